// Progress and log messages of an upstream call relayed to the host (docs/protocol.md "Progress"): the host's token
// restored, increasing, throttled, nothing for calls not in flight; logs at or above the host's level,
// none without one; progress extends the call timeout.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { HttpPeer } from './fixtures/upstream/client';
import type { Revision } from './harness/schema';
import { fixtureCommand, gatewayFor, killAll } from './harness/upstreams';
import { HttpClient, type Json } from './harness/wire';

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
