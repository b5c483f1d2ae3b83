// POST /v1/servers/{server}/restart (`mcpx restart`; the command itself: test/cli/cli-call.test.ts): a shared
// server's process replaced and a call in flight on it ended, a `scope: "identity"` server's instances
// stopped until their next call, a start that fails said at once (502), and the refusals — 404 for a
// server not configured, 405 for another method, 401 without the endpoint secret. Real fixture upstreams
// over real loopback HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestGateway, fixtureCommand, gatewayFor, killAll, untilCalled } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';

let gw: TestGateway;
const dir = mkdtempSync(join(tmpdir(), 'mcpx-v1-servers-'));
const record = join(dir, 'up.jsonl');
before(async () => {
  gw = await gatewayFor(
    {
      up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--record', record]),
      mine: { ...fixtureCommand(['--rev', '2025-11-25', '--name', 'mine']), scope: 'identity' },
      broken: fixtureCommand(['--rev', '2025-11-25', '--name', 'broken', '--fail', 'exit-at-once']),
    },
    { 'pool.startTimeout': '2s', 'pool.probeTimeout': '300ms' },
  );
});
after(async () => {
  await gw?.close();
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

async function restart(server: string, o: { method?: string; noSecret?: boolean } = {}) {
  const res = await fetch(new URL(`/v1/servers/${encodeURIComponent(server)}/restart`, gw.url), {
    method: o.method ?? 'POST',
    headers: o.noSecret ? {} : { Authorization: `Bearer ${gw.secret}` },
  });
  return { status: res.status, allow: res.headers.get('allow'), body: (await res.json().catch(() => ({}))) as Json };
}

const text = (r: Json | undefined) => String(((r?.content as Json[]) ?? [])[0]?.text ?? '');
async function whoami(c: HttpClient, server: string, session?: string): Promise<string> {
  const r = await c.request(
    'tools/call',
    { name: 'mcpx_call', arguments: { server, tool: 'whoami', arguments: {} } },
    { meta: session ? { 'dev.mcpx/session': session } : {} },
  );
  return text(r.result);
}

describe('POST /v1/servers/{server}/restart', () => {
  test('a shared server: a new process, running at once; a call in flight on the old one ends', async () => {
    const c = new HttpClient(gw.url, '2025-11-25');
    await c.initialize();
    const before = await whoami(c, 'up');
    const slow = c.request('tools/call', {
      name: 'mcpx_call',
      arguments: { server: 'up', tool: 'slow', arguments: { ms: 60_000, steps: 1 } },
    });
    await untilCalled(record, 'slow');
    const r = await restart('up');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.restarted, 'up');
    const rows = r.body.servers as Json[];
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.state, 'running');
    assert.equal(typeof rows[0]!.pid, 'number');
    const ended = await slow;
    assert.equal(ended.error?.code, -32603, JSON.stringify(ended.response));
    assert.match(ended.error!.message, /upstream up is stopping/);
    assert.notEqual(await whoami(c, 'up'), before, 'another process answers');
  });

  test('a scope: identity server: its instances stop, each starts again at its next call', async () => {
    const c = new HttpClient(gw.url, '2025-11-25');
    await c.initialize();
    const alice = await whoami(c, 'mine', 'alice');
    const r = await restart('mine');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(
      (r.body.servers as Json[]).every((s) => s.state === 'stopped'),
      JSON.stringify(r.body.servers),
    );
    assert.notEqual(await whoami(c, 'mine', 'alice'), alice);
  });

  test('a start that fails: 502 with the reason', async () => {
    const r = await restart('broken');
    assert.equal(r.status, 502, JSON.stringify(r.body));
    assert.match(String(r.body.error), /upstream broken/);
  });

  test('refusals: 404 not configured, 405 another method, 401 without the secret', async () => {
    const nope = await restart('nope');
    assert.equal(nope.status, 404);
    assert.equal(nope.body.error, 'no such server is configured');
    const get = await restart('up', { method: 'GET' });
    assert.equal(get.status, 405);
    assert.equal(get.allow, 'POST');
    assert.equal((await restart('up', { noSecret: true })).status, 401);
  });
});
