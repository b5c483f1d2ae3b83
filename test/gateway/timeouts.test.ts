// A call's own shorter timeout on every path (docs/gateway.md "Timeouts, in order of precedence"):
// `_meta["dev.mcpx/timeoutMs"]` on pass-through tools/call, prompts/get and resources/read, mcpx_call's
// timeoutSec, and an mcpx_exec script's per-call options.timeoutSec — against a real upstream that never
// answers. Each call ends with the timeout error after about the time asked, the upstream is told
// (notifications/cancelled), nothing is held after (one request at a time per identity here: a slot kept
// by a timed-out call would refuse the next), and the key never reaches the upstream. (`mcpx call`, `read`
// and `exec --timeout`: test/cli/cli-call.test.ts.)
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MODERN } from '../../src/protocol/revisions';
import { type TestGateway, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-timeouts-'));
const hungRecord = join(dir, 'hung.jsonl');
const ptRecord = join(dir, 'pt.jsonl');
let gw: TestGateway;

before(async () => {
  gw = await gatewayFor(
    {
      // Gateway mode: mcpx_call, mcpx_exec, prompts (up_greet) and resources (mcpx://up/…).
      up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--fail', 'hang-all', '--record', hungRecord]),
      // Pass-through: its tools under their own names.
      pt: fixtureCommand(['--rev', '2025-11-25', '--name', 'pt', '--fail', 'hang-all', '--record', ptRecord]),
      // Answers: whether the key is forwarded (its `meta` tool returns the _meta it got).
      ok: fixtureCommand(['--rev', '2026-07-28', '--name', 'ok']),
    },
    { 'pool.callTimeout': '5s', 'mcp.passthrough': ['pt'], 'limits.inflightPerIdentity': 1 },
  );
});
after(async () => {
  await gw?.close();
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

const TIMEOUT = 'dev.mcpx/timeoutMs';
const text = (r: Json | undefined) => String(((r?.content as Json[]) ?? [])[0]?.text ?? '');

/** Cancellations the upstream received, by request method. */
function cancelled(record: string): string[] {
  // An upstream starts at its first call: no file yet, nothing received.
  if (!existsSync(record)) return [];
  const frames = readFileSync(record, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { dir: string; frame: Json }).frame);
  const methodOf = new Map(frames.filter((f) => 'method' in f && 'id' in f).map((f) => [f.id, String(f.method)]));
  return frames
    .filter((f) => f.method === 'notifications/cancelled')
    .map((f) => methodOf.get((f.params as Json).requestId) ?? '?');
}

/** `f` timed: it must end with the timeout error after about `ms` (at least `ms`, well before 5 s). */
async function timesOut(ms: number, f: () => Promise<{ error?: { code: number; message: string }; result?: Json }>) {
  const t0 = Date.now();
  const r = await f();
  const took = Date.now() - t0;
  const message = r.error?.message ?? text(r.result);
  assert.match(message, new RegExp(`within ${ms} ms \\(the timeout the call asked for\\)`), JSON.stringify(r));
  assert.ok(took >= ms - 5 && took < ms + 2500, `ended after ${took} ms`);
  return r;
}

async function legacy(): Promise<HttpClient> {
  const c = new HttpClient(gw.url, '2025-11-25');
  await c.initialize();
  return c;
}

describe('_meta["dev.mcpx/timeoutMs"]', () => {
  test('pass-through tools/call, both eras: ends at the asked time, cancelled upstream, nothing held', async () => {
    const before = cancelled(ptRecord).length;
    for (const c of [await legacy(), new HttpClient(gw.url, MODERN)]) {
      const r = await timesOut(300, () =>
        c.request('tools/call', { name: 'echo', arguments: { text: 'x' } }, { meta: { [TIMEOUT]: 300 } }),
      );
      assert.equal(r.error?.code, -32603);
      assert.match(r.error!.message, /upstream pt did not answer tools\/call/);
    }
    await until(() => cancelled(ptRecord).length >= before + 2, { what: 'both cancellations upstream' });
    assert.deepEqual(cancelled(ptRecord).slice(before), ['tools/call', 'tools/call']);
  });

  test('nothing is held after a timeout: the same client calls again at once, the upstream still runs', async () => {
    // One request at a time per identity here: a slot kept by the timed-out call would refuse these.
    const c = await legacy();
    for (let i = 0; i < 2; i++)
      await timesOut(150, () =>
        c.request('tools/call', { name: 'echo', arguments: { text: 'x' } }, { meta: { [TIMEOUT]: 150 } }),
      );
    const servers = await c.request('tools/call', { name: 'mcpx_servers', arguments: {} });
    assert.equal(servers.error, undefined, JSON.stringify(servers.error));
    const pt = ((servers.result!.structuredContent as Json).servers as Json[]).find((s) => s.name === 'pt')!;
    assert.equal(pt.state, 'running', 'a timeout ends the call, not the connection');
  });

  test('prompts/get and resources/read through the gateway', async () => {
    const c = await legacy();
    const before = cancelled(hungRecord).length;
    const p = await timesOut(250, () =>
      c.request('prompts/get', { name: 'up_greet', arguments: { who: 'Ada' } }, { meta: { [TIMEOUT]: 250 } }),
    );
    assert.match(p.error!.message, /upstream up did not answer prompts\/get/);
    const m = new HttpClient(gw.url, MODERN);
    const r = await timesOut(250, () =>
      m.request('resources/read', { uri: 'mcpx://up/fixture://doc' }, { meta: { [TIMEOUT]: 250 } }),
    );
    assert.match(r.error!.message, /upstream up did not answer resources\/read/);
    await until(() => cancelled(hungRecord).length >= before + 2, { what: 'both cancellations upstream' });
    assert.deepEqual(cancelled(hungRecord).slice(before), ['prompts/get', 'resources/read']);
  });

  test('never raises pool.callTimeout; the shorter of _meta and timeoutSec holds', async () => {
    const c = await legacy();
    const before = cancelled(hungRecord).length;
    // Twice the configured bound: the configured 5 s holds, named as pool.callTimeout.
    const t0 = Date.now();
    const r = await c.request(
      'tools/call',
      { name: 'echo', arguments: { text: 'x' } },
      { meta: { [TIMEOUT]: 10_000 } },
    );
    assert.match(r.error!.message, /within 5000 ms \(pool\.callTimeout\)/);
    assert.ok(Date.now() - t0 < 8000);
    await timesOut(200, () =>
      c.request(
        'tools/call',
        { name: 'mcpx_call', arguments: { server: 'up', tool: 'echo', arguments: { text: 'x' }, timeoutSec: 30 } },
        { meta: { [TIMEOUT]: 200 } },
      ),
    );
    // Its cancellation arrives before the next test counts the upstream's.
    await until(() => cancelled(hungRecord).length >= before + 1, { what: 'the cancellation upstream' });
  });

  test('a bad value is -32602 naming the key, in both eras, before the upstream is asked', async () => {
    const before = readFileSync(ptRecord, 'utf8').length;
    for (const c of [await legacy(), new HttpClient(gw.url, MODERN)])
      for (const bad of [0, -5, 1.5, '300', null, { ms: 1 }]) {
        const r = await c.request('tools/call', { name: 'echo', arguments: {} }, { meta: { [TIMEOUT]: bad } });
        assert.equal(r.error?.code, -32602, JSON.stringify(bad));
        assert.match(
          r.error!.message,
          /_meta\["dev\.mcpx\/timeoutMs"\] must be a positive whole number of milliseconds/,
        );
      }
    assert.equal(readFileSync(ptRecord, 'utf8').length, before, 'nothing reached the upstream');
  });

  test('the key is not forwarded upstream; a call within its time answers', async () => {
    const c = new HttpClient(gw.url, MODERN);
    const r = await c.request(
      'tools/call',
      { name: 'mcpx_call', arguments: { server: 'ok', tool: 'meta', arguments: {} } },
      { meta: { [TIMEOUT]: 4000 } },
    );
    const seen = JSON.parse(text(r.result)) as Json;
    assert.ok(seen['io.modelcontextprotocol/protocolVersion'], 'the upstream got its _meta');
    assert.ok(!(TIMEOUT in seen), JSON.stringify(seen));
  });
});

describe('the gateway tools', () => {
  test("mcpx_call's timeoutSec", async () => {
    const c = new HttpClient(gw.url, MODERN);
    const before = cancelled(hungRecord).length;
    const r = await timesOut(300, () =>
      c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'echo', arguments: { text: 'x' }, timeoutSec: 0.3 },
      }),
    );
    assert.match(r.error!.message, /upstream up did not answer tools\/call/);
    const bad = await c.request('tools/call', {
      name: 'mcpx_call',
      arguments: { server: 'up', tool: 'echo', arguments: { text: 'x' }, timeoutSec: 0 },
    });
    assert.equal(bad.result?.isError, true, '2026-07-28: invalid arguments are an isError result');
    assert.match(text(bad.result), /timeoutSec/);
    await until(() => cancelled(hungRecord).length >= before + 1, { what: 'the cancellation upstream' });
    assert.deepEqual(cancelled(hungRecord).slice(before), ['tools/call']);
  });

  test("an mcpx_exec script's per-call options.timeoutSec; a bad one is the script's error", async () => {
    const c = new HttpClient(gw.url, MODERN);
    const before = cancelled(hungRecord).length;
    const t0 = Date.now();
    const r = await c.request('tools/call', {
      name: 'mcpx_exec',
      arguments: {
        script: `const t = Date.now();
          try { await mcpx.call('up', 'echo', {text: 'x'}, {timeoutSec: 0.3}); return 'answered'; }
          catch (e) { return {message: e.message, ms: Date.now() - t}; }`,
      },
    });
    const out = (r.result!.structuredContent as Json).result as Json;
    assert.match(String(out.message), /within 300 ms \(the timeout the call asked for\)/);
    assert.ok(Number(out.ms) >= 290 && Number(out.ms) < 2800, `after ${out.ms} ms`);
    assert.ok(Date.now() - t0 < 4000);
    await until(() => cancelled(hungRecord).length >= before + 1, { what: 'the cancellation upstream' });
    assert.deepEqual(cancelled(hungRecord).slice(before), ['tools/call']);
    const bad = await c.request('tools/call', {
      name: 'mcpx_exec',
      arguments: {
        script: `try { await mcpx.call('up', 'echo', {text: 'x'}, {timeoutSec: -1}); } catch (e) { return e.message; }`,
      },
    });
    assert.match(
      String((bad.result!.structuredContent as Json).result),
      /the options' timeoutSec must be a positive number of seconds, got -1/,
    );
  });
});
