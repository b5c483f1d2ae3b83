// Resource subscriptions end to end (docs/protocol.md "Resource subscriptions"): counted per URI across clients, delivered in each
// client's form, released by every way a watcher ends, resubscribed when the upstream restarts, and
// honest where no update will come.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { HttpPeer } from '../fixtures/upstream/client';
import { fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json, parseSse } from '../harness/wire';
import { assertServerFrame } from '../harness/schema';
import { until } from '../harness/wait';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-sub-'));
after(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

const DOC = 'mcpx://up/fixture://doc';
const received = (record: string, method: string) =>
  readFileSync(record, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { dir: string; frame: Json })
    .filter((l) => l.dir === 'in' && l.frame.method === method);

describe('legacy resources/subscribe through the gateway', () => {
  test('two watchers of one URI: one upstream subscription; updates to both; the last to leave unsubscribes; a restart resubscribes', async () => {
    const record = join(dir, 'sub.jsonl');
    const gw = await gatewayFor({ up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--record', record]) });
    try {
      const a = new HttpPeer('2025-11-25', gw.url);
      const init = await a.initialize({});
      assert.deepEqual(((init.result as Json).capabilities as Json).resources, { listChanged: true, subscribe: true });
      const streamA = await a.listen();
      const b = new HttpPeer('2025-11-25', gw.url);
      await b.initialize({});
      const streamB = await b.listen();
      assert.deepEqual((await a.request('resources/subscribe', { uri: DOC })).result, {});
      assert.deepEqual((await b.request('resources/subscribe', { uri: DOC })).result, {});
      assert.equal(received(record, 'resources/subscribe').length, 1, 'counted per URI: one upstream subscription');
      await a.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'touch', arguments: { uri: 'fixture://doc' } },
      });
      const updates = (p: HttpPeer) =>
        p.frames.filter((f) => f.method === 'notifications/resources/updated').map((f) => (f.params as Json).uri);
      await until(() => updates(a).length === 1 && updates(b).length === 1);
      assert.deepEqual(updates(a), [DOC], "in the client's own form");
      // The upstream crashes while the subscription is wanted: restarted at once and subscribed again.
      await a.request('tools/call', { name: 'mcpx_call', arguments: { server: 'up', tool: 'crash', arguments: {} } });
      await until(() => received(record, 'resources/subscribe').length === 2);
      await a.request('resources/unsubscribe', { uri: DOC });
      assert.equal(received(record, 'resources/unsubscribe').length, 0, 'one watcher left');
      streamB.close();
      await b.request('resources/unsubscribe', { uri: DOC });
      await until(() => received(record, 'resources/unsubscribe').length === 1);
      streamA.close();
      assert.deepEqual([...a.problems, ...b.problems], []);
    } finally {
      await gw.close();
    }
  });

  test('a session that ends releases its watches without a separate call', async () => {
    const record = join(dir, 'end.jsonl');
    const gw = await gatewayFor({ up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--record', record]) });
    try {
      const a = new HttpPeer('2025-11-25', gw.url);
      await a.initialize({});
      await a.request('resources/subscribe', { uri: DOC });
      assert.equal(
        (await fetch(gw.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': a.sessionId! } })).status,
        204,
      );
      await until(() => received(record, 'resources/unsubscribe').length === 1);
    } finally {
      await gw.close();
    }
  });
});

describe('2026-07-28 listen with resourceSubscriptions', () => {
  test('the acknowledgement lists only URIs whose updates will arrive; updates are tagged', async () => {
    const gw = await gatewayFor({
      up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']),
      modern: fixtureCommand(['--rev', '2026-07-28', '--name', 'modern']),
    });
    try {
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      const uris = [DOC, 'mcpx://modern/fixture://doc', 'mcpx://nowhere/x'];
      const body = {
        jsonrpc: '2.0',
        id: 7,
        method: 'subscriptions/listen',
        params: { _meta: meta, notifications: { resourceSubscriptions: uris } },
      };
      const ctl = new AbortController();
      const res = await fetch(gw.url, {
        method: 'POST',
        signal: ctl.signal,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'MCP-Protocol-Version': '2026-07-28',
          'Mcp-Method': 'subscriptions/listen',
        },
        body: JSON.stringify(body),
      });
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      const frames = () => parseSse(text) as Json[];
      const readUntil = async (pred: () => boolean) => {
        while (!pred()) {
          const { value, done } = await reader.read();
          if (done) break;
          text += value;
        }
      };
      await readUntil(() => frames().length >= 1);
      const ack = frames()[0]!;
      assert.deepEqual(
        (ack.params as Json).notifications,
        { resourceSubscriptions: [DOC, 'mcpx://modern/fixture://doc'] },
        'only the URIs whose updates will arrive (both upstream eras; no server owns the third)',
      );
      const other = new HttpClient(gw.url, '2026-07-28');
      await other.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'touch', arguments: { uri: 'fixture://doc' } },
      });
      await readUntil(() => frames().some((f) => f.method === 'notifications/resources/updated'));
      const upd = frames().find((f) => f.method === 'notifications/resources/updated')!;
      assert.deepEqual(upd.params, { uri: DOC, _meta: { 'io.modelcontextprotocol/subscriptionId': 7 } });
      for (const f of frames()) assertServerFrame('2026-07-28', f);
      ctl.abort();
      await until(() => gw.g.watches().length === 0);
    } finally {
      await gw.close();
    }
  });
});

describe('GET /v1/events', () => {
  test('server state, resource updates and the "no updates will be delivered" warning on one stream', async () => {
    const gw = await gatewayFor({ up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) });
    const ctl = new AbortController();
    try {
      const res = await fetch(new URL('/v1/events', gw.url), {
        headers: { Authorization: `Bearer ${gw.secret}` },
        signal: ctl.signal,
      });
      assert.equal(res.headers.get('content-type'), 'text/event-stream');
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      const a = new HttpPeer('2025-11-25', gw.url);
      await a.initialize({});
      await a.request('resources/subscribe', { uri: DOC });
      await a.request('resources/subscribe', { uri: 'mcpx://nowhere/x' });
      await a.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'touch', arguments: { uri: 'fixture://doc' } },
      });
      const events = () => parseSse(text) as Json[];
      while (!events().some((e) => e.type === 'resource.updated')) text += (await reader.read()).value ?? '';
      const types = events().map((e) => e.type);
      assert.ok(types.includes('server.state'));
      assert.ok(
        events().some(
          // A URI naming no configured server is not quoted to every reader of the stream: it may be anything.
          (e) =>
            e.type === 'server.log' &&
            String(e.data) === 'no updates will be delivered for a watch: the mcpx:// URI names no configured server',
        ),
      );
      assert.deepEqual(events().find((e) => e.type === 'resource.updated')!.uri, 'fixture://doc');
    } finally {
      ctl.abort();
      await gw.close();
    }
  });
});
