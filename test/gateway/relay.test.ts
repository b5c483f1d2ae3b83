// Progress and log messages of an upstream call relayed to the host (docs/protocol.md "Progress"): the host's token
// restored, increasing, throttled, nothing for calls not in flight; logs at or above the host's level,
// none without one; progress extends the call timeout.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    // The call takes twice the timeout, reporting every tenth of it: a stalled event loop on a loaded
    // machine would have to hold a report back nine tenths of the timeout to end the call early.
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) },
      { 'pool.callTimeout': '1000ms' },
    );
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      await peer.initialize({});
      const ok = await peer.request(
        'tools/call',
        { name: 'mcpx_call', arguments: { server: 'up', tool: 'slow', arguments: { ms: 2000, steps: 20 } } },
        { progressToken: 'p' },
      );
      assert.ok('result' in ok, JSON.stringify(ok));
      const late = await peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'slow', arguments: { ms: 2000, steps: 20 } },
      });
      assert.match(JSON.stringify(late.error), /within 1000 ms/);
    } finally {
      await gw.close();
    }
  });
});

describe('log messages go to the call they relate to (docs/protocol.md "Log messages relayed")', () => {
  const steps = (n: number, of: number) => Array.from({ length: n }, (_, i) => `slow: step ${i + 1} of ${of}`);

  /** A legacy session at level info. */
  const session = async (url: string) => {
    const c = new HttpClient(url, '2025-11-25');
    await c.initialize();
    await c.request('logging/setLevel', { level: 'info' });
    return c;
  };
  /** `slow` of the upstream `up` in `steps` steps, over `ms` where the upstream keeps time. */
  const slow = (c: HttpClient, steps: number, ms?: number) =>
    c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'up', tool: 'slow', arguments: { ms, steps } } });
  const logs = (n: Json[]) =>
    n.filter((f) => f.method === 'notifications/message').map((f) => String((f.params as Json).data));

  /** Two legacy sessions, each calling `slow` at once on the same shared upstream: A in 3 steps over
   *  600 ms, B in 5 over 1250 ms, so each message says whose call logged it. */
  async function twoCalls(url: string): Promise<{ a: string[]; b: string[] }> {
    const [ca, cb] = [await session(url), await session(url)];
    const [ra, rb] = await Promise.all([slow(ca, 3, 600), slow(cb, 5, 1250)]);
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

  /** A legacy stdio upstream whose tool `slow` {steps} logs `slow: step i of steps` and answers in an order
   *  the test sets, not a clock: it holds the calls until two are in (both are in flight at the gateway,
   *  which counts a call before it sends it), then logs A's three steps and B's first two, interleaved,
   *  and answers A; B's last three steps and its answer wait until the test creates `release` (A's answer
   *  has reached its client: the gateway is done with A's call). */
  function scriptedUpstream(dir: string): { script: string; release: () => void } {
    const script = join(dir, 'two-calls.js');
    const release = join(dir, 'release');
    writeFileSync(
      script,
      `const { existsSync } = require('node:fs');
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const ok = (id, result) => send({ jsonrpc: '2.0', id, result });
const log = (i, of) => send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'slow: step ' + i + ' of ' + of } });
const answer = (c) => ok(c.id, { content: [{ type: 'text', text: 'done in ' + c.steps + ' steps' }] });
const calls = [];
function run() {
  const [a, b] = calls.sort((x, y) => x.steps - y.steps);
  for (let i = 1; i <= a.steps; i++) (log(i, a.steps), i < a.steps && log(i, b.steps));
  answer(a);
  const wait = setInterval(() => {
    if (!existsSync(${JSON.stringify(release)})) return;
    clearInterval(wait);
    for (let i = a.steps; i <= b.steps; i++) log(i, b.steps);
    answer(b);
  }, 10);
}
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined || m.method === undefined) return;
  if (m.method === 'initialize')
    return ok(m.id, { protocolVersion: '2025-11-25', capabilities: { tools: {}, logging: {} }, serverInfo: { name: 'up', version: '1' } });
  if (m.method === 'tools/list')
    return ok(m.id, { tools: [{ name: 'slow', inputSchema: { type: 'object', properties: { steps: { type: 'number' } } } }] });
  if (m.method === 'tools/call') {
    calls.push({ id: m.id, steps: m.params.arguments.steps });
    return calls.length === 2 && run();
  }
  if (m.method === 'ping' || m.method === 'logging/setLevel') return ok(m.id, {});
  send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
});
`,
    );
    return { script, release: () => writeFileSync(release, '') };
  }

  test('from a stdio upstream, a message naming no request reaches no call while two are in flight; it goes to the GET streams', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-relay-'));
    const up = scriptedUpstream(dir);
    const gw = await gatewayFor({ up: { command: process.execPath, args: [up.script] } });
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
      const [ca, cb] = [await session(gw.url), await session(gw.url)];
      const callB = slow(cb, 5);
      const ra = await slow(ca, 3);
      up.release();
      const [a, b] = [logs(ra.notifications), logs((await callB).notifications)];
      // While both run (A's three steps, B's first two) nothing names a call; once A has ended, B's call
      // is the only one on the connection and its messages are its own (as a question would be).
      assert.deepEqual(a, []);
      assert.deepEqual(b, ['slow: step 3 of 5', 'slow: step 4 of 5', 'slow: step 5 of 5']);
      const pushed = () =>
        (parseSse(text) as Json[])
          .filter((f) => f.method === 'notifications/message')
          .map((f) => String((f.params as Json).data));
      await until(() => pushed().length >= 5, { what: 'five log messages pushed' });
      for (const f of parseSse(text)) assertServerFrame('2025-11-25', f);
      assert.deepEqual(pushed().sort(), [...steps(3, 3), ...steps(2, 5)].sort());
      ctl.abort();
      await reading;
    } finally {
      ctl.abort();
      await gw.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
