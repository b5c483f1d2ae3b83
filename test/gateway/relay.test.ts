// Progress and log messages of an upstream call relayed to the host (docs/protocol.md "Progress"): the host's token
// restored, increasing, throttled, nothing for calls not in flight; logs at or above the host's level,
// none without one; progress extends the call timeout.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { HttpPeer } from '../fixtures/upstream/client';
import type { Revision } from '../harness/schema';
import { assertServerFrame } from '../harness/schema';
import { fixtureCommand, gatewayFor, killAll, startHttpFixture } from '../harness/upstreams';
import { HttpClient, type Json, parseSse } from '../harness/wire';
import { until } from '../harness/wait';

after(() => killAll());

for (const upstreamRev of ['2025-11-25', '2026-07-28'] as Revision[]) {
  describe(`relay from a ${upstreamRev} upstream`, () => {
    test('legacy host: progress under its own token, logs at the level it set', async () => {
      const gw = await gatewayFor({ up: fixtureCommand(['--rev', upstreamRev, '--name', 'up']) });
      try {
        const peer = new HttpPeer('2025-11-25', gw.url);
        await peer.initialize({});
        await peer.request('logging/setLevel', { level: 'info' });
        await peer.request(
          'tools/call',
          { name: 'mcpx_call', arguments: { server: 'up', tool: 'slow', arguments: { ms: 120, steps: 3 } } },
          { progressToken: 'host-token-1' },
        );
        const progress = peer.frames.filter((f) => f.method === 'notifications/progress').map((f) => f.params as Json);
        assert.ok(progress.length >= 1, 'progress relayed');
        assert.ok(
          progress.every((p) => p.progressToken === 'host-token-1'),
          "the host's token restored",
        );
        assert.deepEqual(progress.at(-1)!.progress, 3, 'the final report always passes');
        const values = progress.map((p) => Number(p.progress));
        assert.deepEqual(
          values,
          [...values].sort((a, b) => a - b),
        );
        const logs = peer.frames.filter((f) => f.method === 'notifications/message');
        assert.ok(logs.length >= 1, 'log messages relayed');
        assert.deepEqual(peer.problems, []);
      } finally {
        await gw.close();
      }
    });

    test("2026-07-28 host: logs only with a per-request level; the token upstream is mcpx's own", async () => {
      const gw = await gatewayFor(
        { up: fixtureCommand(['--rev', upstreamRev, '--name', 'up']) },
        { 'mcp.passthrough': ['up'] },
      );
      try {
        const c = new HttpClient(gw.url, '2026-07-28');
        const quiet = await c.request('tools/call', { name: 'slow', arguments: { ms: 60, steps: 2 } });
        assert.equal(
          quiet.notifications.filter((n) => n.method === 'notifications/message').length,
          0,
          'no level, no messages',
        );
        const loud = await c.request(
          'tools/call',
          { name: 'slow', arguments: { ms: 60, steps: 2 } },
          { meta: { 'io.modelcontextprotocol/logLevel': 'info', progressToken: 77 } },
        );
        assert.ok(loud.notifications.some((n) => n.method === 'notifications/message'));
        assert.ok(
          loud.notifications
            .filter((n) => n.method === 'notifications/progress')
            .every((n) => (n.params as Json).progressToken === 77),
        );
        const meta = await c.request(
          'tools/call',
          { name: 'meta', arguments: {} },
          { meta: { progressToken: 'mine' } },
        );
        const seen = JSON.parse(String((meta.result!.content as Json[])[0]!.text)) as Json;
        assert.match(String(seen.progressToken), /^mcpx-\d+$/, 'replaced upstream');
      } finally {
        await gw.close();
      }
    });
  });
}

describe('progress and log messages of prompts/get and resources/read are relayed as a call’s', () => {
  for (const upstreamRev of ['2025-11-25', '2026-07-28'] as Revision[]) {
    test(`a ${upstreamRev} upstream, a legacy host: under its own token, at the level it set`, async () => {
      const gw = await gatewayFor({ up: fixtureCommand(['--rev', upstreamRev, '--name', 'up']) });
      try {
        const peer = new HttpPeer('2025-11-25', gw.url);
        await peer.initialize({});
        await peer.request('logging/setLevel', { level: 'info' });
        await peer.request('prompts/get', { name: 'up_greet', arguments: { who: 'ada' } }, { progressToken: 'p-get' });
        await peer.request('resources/read', { uri: 'mcpx://up/fixture://doc' }, { progressToken: 'r-read' });
        const progress = peer.frames.filter((f) => f.method === 'notifications/progress').map((f) => f.params as Json);
        assert.deepEqual(
          progress.map((p) => [p.progressToken, p.progress]),
          [
            ['p-get', 1],
            ['r-read', 1],
          ],
        );
        const logs = peer.frames
          .filter((f) => f.method === 'notifications/message')
          .map((f) => (f.params as Json).data);
        assert.deepEqual(logs, ['prompts/get greet', 'resources/read fixture://doc']);
        assert.deepEqual(peer.problems, []);
      } finally {
        await gw.close();
      }
    });
  }
});

describe('progress extends the call timeout', () => {
  test('a call reporting progress outlives pool.callTimeout; one that does not, does not', async () => {
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) },
      { 'pool.callTimeout': '250ms' },
    );
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      await peer.initialize({});
      const ok = await peer.request(
        'tools/call',
        { name: 'mcpx_call', arguments: { server: 'up', tool: 'slow', arguments: { ms: 800, steps: 8 } } },
        { progressToken: 'p' },
      );
      assert.ok('result' in ok, JSON.stringify(ok));
      const late = await peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'slow', arguments: { ms: 800, steps: 8 } },
      });
      assert.match(JSON.stringify(late.error), /within 250 ms/);
    } finally {
      await gw.close();
    }
  });
});

describe('log messages go to the call they relate to (docs/protocol.md "Log messages relayed")', () => {
  const steps = (n: number, of: number) => Array.from({ length: n }, (_, i) => `slow: step ${i + 1} of ${of}`);

  /** Two legacy sessions at level info, each calling `slow` at once on the same shared upstream: A in 3
   *  steps over 600 ms, B in 5 over 1250 ms, so each message says whose call logged it. */
  async function twoCalls(url: string): Promise<{ a: string[]; b: string[] }> {
    const session = async () => {
      const c = new HttpClient(url, '2025-11-25');
      await c.initialize();
      await c.request('logging/setLevel', { level: 'info' });
      return c;
    };
    const [ca, cb] = [await session(), await session()];
    const slow = (c: HttpClient, ms: number, steps: number) =>
      c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'slow', arguments: { ms, steps } },
      });
    const [ra, rb] = await Promise.all([slow(ca, 600, 3), slow(cb, 1250, 5)]);
    const logs = (n: Json[]) =>
      n.filter((f) => f.method === 'notifications/message').map((f) => String((f.params as Json).data));
    return { a: logs(ra.notifications), b: logs(rb.notifications) };
  }

  test("from an HTTP upstream, a message on a request's own stream reaches that call only", async () => {
    const { url } = await startHttpFixture(['--rev', '2025-11-25', '--transport', 'http', '--name', 'up']);
    const gw = await gatewayFor({ up: { type: 'http', url, headers: {} } });
    try {
      const { a, b } = await twoCalls(gw.url);
      assert.deepEqual(a, steps(3, 3));
      assert.deepEqual(b, steps(5, 5));
    } finally {
      await gw.close();
    }
  });

  test('from a stdio upstream, a message naming no request reaches no call while two are in flight; it goes to the GET streams', async () => {
    const gw = await gatewayFor({ up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) });
    const ctl = new AbortController();
    try {
      // A third session listens on its GET stream at level info.
      const watcher = new HttpClient(gw.url, '2025-11-25');
      await watcher.initialize();
      await watcher.request('logging/setLevel', { level: 'info' });
      const { 'Content-Type': _, ...headers } = watcher.headers();
      const stream = await fetch(gw.url, { headers: { ...headers, Accept: 'text/event-stream' }, signal: ctl.signal });
      assert.equal(stream.status, 200);
      let text = '';
      const reading = (async () => {
        const dec = new TextDecoder();
        for await (const chunk of stream.body!) text += dec.decode(chunk as Uint8Array);
      })().catch(() => undefined);
      const { a, b } = await twoCalls(gw.url);
      // While both run (A's three steps, B's first two) nothing names a call; once A has ended, B's call
      // is the only one on the connection and its messages are its own (as a question would be).
      assert.deepEqual(a, []);
      assert.deepEqual(b, ['slow: step 3 of 5', 'slow: step 4 of 5', 'slow: step 5 of 5']);
      const pushed = () =>
        (parseSse(text) as Json[])
          .filter((f) => f.method === 'notifications/message')
          .map((f) => String((f.params as Json).data));
      await until(() => pushed().length >= 5, { what: 'five log messages pushed', timeout: 2000 });
      for (const f of parseSse(text)) assertServerFrame('2025-11-25', f);
      assert.deepEqual(pushed().sort(), [...steps(3, 3), ...steps(2, 5)].sort());
      ctl.abort();
      await reading;
    } finally {
      ctl.abort();
      await gw.close();
    }
  });
});
