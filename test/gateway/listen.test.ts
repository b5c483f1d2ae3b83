// list_changed relayed (pass-through: unsolicited to a legacy client that can be pushed to; on a
// subscriptions/listen stream that asked for it to a modern one), and how a listen stream begins and
// ends on each transport.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { after, describe, test } from 'node:test';
import { HttpPeer } from '../fixtures/upstream/client';
import { startTestServer } from '../harness/gateway';
import { fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { type Json, parseSse } from '../harness/wire';
import { assertServerFrame } from '../harness/schema';
import { until } from '../harness/wait';

after(() => killAll());

const SID = 'io.modelcontextprotocol/subscriptionId';

describe('list_changed through the gateway', () => {
  test('legacy session with its GET stream: tools/list_changed arrives unsolicited; the list is fetched anew', async () => {
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) },
      { 'mcp.passthrough': ['up'] },
    );
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      const init = await peer.initialize({});
      assert.deepEqual(((init.result as Json).capabilities as Json).tools, { listChanged: true });
      const stream = await peer.listen();
      const before = ((await peer.request('tools/list')).result as Json).tools as Json[];
      await peer.request('tools/call', { name: 'mutate', arguments: {} });
      await until(() => peer.frames.some((f) => f.method === 'notifications/tools/list_changed'), {
        what: 'the list change',
      });
      assert.ok(peer.frames.some((f) => f.method === 'notifications/tools/list_changed'));
      const afterList = ((await peer.request('tools/list')).result as Json).tools as Json[];
      assert.equal(afterList.length, before.length + 1, 'the cached list was dropped');
      stream.close();
      assert.deepEqual(peer.problems, []);
    } finally {
      await gw.close();
    }
  });

  test('2026-07-28: the acknowledgement first, tagged notifications, only what the filter names; the result when mcpx ends it', async () => {
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) },
      { 'mcp.passthrough': ['up'], 'transport.sseKeepAlive': '50ms' },
    );
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const body = {
      jsonrpc: '2.0',
      id: 'L1',
      method: 'subscriptions/listen',
      params: { _meta: meta, notifications: { toolsListChanged: true, resourceSubscriptions: ['x://y'] } },
    };
    const res = await fetch(gw.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2026-07-28',
        'Mcp-Method': 'subscriptions/listen',
      },
      body: JSON.stringify(body),
    });
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const readUntil = async (pred: () => boolean) => {
      while (!pred()) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
    };
    try {
      await readUntil(() => parseSse(text).length >= 1);
      const ack = parseSse(text)[0] as Json;
      assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
      assert.deepEqual(
        (ack.params as Json).notifications,
        { toolsListChanged: true, resourceSubscriptions: ['x://y'] },
        'the pass-through upstream declares resources.subscribe',
      );
      assert.equal(((ack.params as Json)._meta as Json)[SID], 'L1');
      // A change: call mutate from another client.
      const other = new HttpPeer('2026-07-28', gw.url);
      await other.request('tools/call', { name: 'mutate', arguments: {} }, {}, {});
      await readUntil(() => parseSse(text).some((f) => (f as Json).method === 'notifications/tools/list_changed'));
      const change = parseSse(text).find((f) => (f as Json).method === 'notifications/tools/list_changed') as Json;
      assert.equal(((change.params as Json)._meta as Json)[SID], 'L1');
      assert.match(text, /^:\n\n/m, 'keep-alive comments on the held stream');
    } finally {
      const closing = gw.close();
      await readUntil(() => false);
      await closing;
    }
    const frames = parseSse(text) as Json[];
    const last = frames.at(-1)!;
    assert.equal(last.id, 'L1', 'mcpx ends the stream with the listen result (HTTP: the result, then close)');
    assert.equal((last.result as Json).resultType, 'complete');
    for (const f of frames) assertServerFrame('2026-07-28', f, 'id' in f ? 'subscriptions/listen' : undefined);
    assert.equal(
      frames.filter((f) => f.method === 'notifications/cancelled').length,
      0,
      'no notifications/cancelled over HTTP',
    );
  });
});

describe('listen on stdio', () => {
  test('the client ends a stream with notifications/cancelled (no result); mcpx ends one with notifications/cancelled, then the result', async () => {
    const { StdioClient } = await import('../harness/wire');
    const { fixture } = await import('../harness/gateway');
    const c = new StdioClient(process.execPath, [fixture('serve')], '2026-07-28');
    const first = c.request('subscriptions/listen', { notifications: { toolsListChanged: true } }, {}, 'A');
    const second = c.request('subscriptions/listen', { notifications: {} }, {}, 'B');
    await until(() => c.frames.filter((f) => f.method === 'notifications/subscriptions/acknowledged').length >= 2, {
      what: 'both acknowledgements',
      every: 10,
    });
    const acks = c.frames.filter((f) => f.method === 'notifications/subscriptions/acknowledged');
    assert.deepEqual(
      acks.map((f) => ((f.params as Json)._meta as Json)[SID]).sort(),
      ['A', 'B'],
      'two streams on one connection, keyed by request id',
    );
    c.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'A', reason: 'done' } });
    void first;
    c.child.kill('SIGTERM');
    const b = await second;
    const order = c.frames.filter(
      (f) => (f.method === 'notifications/cancelled' && (f.params as Json).requestId === 'B') || f.id === 'B',
    );
    assert.deepEqual(
      order.map((f) => (f.method ? 'cancelled' : 'result')),
      ['cancelled', 'result'],
    );
    assert.equal(((b.result as Json)._meta as Json)[SID], 'B');
    await c.exited;
    assert.equal(c.frames.filter((f) => f.id === 'A').length, 0, 'the stream the client cancelled gets no result');
  });
});

describe('a 2026-07-28 upstream with scope "identity"', () => {
  test("each client's own instance is listened to: its list change drops the cached list", async () => {
    const gw = await gatewayFor(
      { up: { ...fixtureCommand(['--rev', '2026-07-28', '--name', 'up']), scope: 'identity' } },
      { 'mcp.passthrough': ['up'] },
    );
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      await peer.initialize({});
      const count = async () => (((await peer.request('tools/list')).result as Json).tools as Json[]).length;
      const before = await count();
      await peer.request('tools/call', { name: 'mutate', arguments: {} });
      const after = await until(
        async () => {
          const n = await count();
          return n !== before ? n : undefined;
        },
        { what: 'tools/list to change' },
      );
      assert.equal(
        after,
        before + 1,
        "the list_changed on this client's instance's listen stream reached the catalogue",
      );
      assert.deepEqual(peer.problems, []);
    } finally {
      await gw.close();
    }
  });
});

describe('listen streams and the server', () => {
  test('a stream the client ends leaves no listener on the server-wide closing signal', async () => {
    const l = await startTestServer();
    const closing = l.server.listens.closingSignal;
    const before = getEventListeners(closing, 'abort').length;
    try {
      for (let i = 0; i < 3; i++) {
        const ctl = new AbortController();
        const meta = {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        };
        const res = await fetch(l.url, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            'MCP-Protocol-Version': '2026-07-28',
            'Mcp-Method': 'subscriptions/listen',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: `S${i}`,
            method: 'subscriptions/listen',
            params: { _meta: meta, notifications: { toolsListChanged: true } },
          }),
          signal: ctl.signal,
        });
        const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
        let text = '';
        while (parseSse(text).length < 1) text += (await reader.read()).value ?? '';
        assert.equal((parseSse(text)[0] as Json).method, 'notifications/subscriptions/acknowledged');
        assert.equal(getEventListeners(closing, 'abort').length, before + 1, 'the open stream waits on it');
        ctl.abort();
        await reader.read().catch(() => undefined);
        await until(() => getEventListeners(closing, 'abort').length <= before, {
          what: `stream ${i}: its listener gone`,
        });
        assert.equal(getEventListeners(closing, 'abort').length, before, `stream ${i}: its listener is gone with it`);
      }
    } finally {
      await l.close();
    }
  });
});
