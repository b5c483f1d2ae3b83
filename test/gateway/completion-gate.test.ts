// completion/complete goes through the same gate and record as calls, prompts and reads (docs/gateway.md
// "Permissions"): a rule that refuses a server refuses its completions —
// the upstream never asked — a profile's own rules apply on its endpoint, and every completion is an
// activity record of kind `completion` (its target the prompt's name or the resource's URI). The same
// holds for POST /v1/complete, the HTTP API's completion.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HttpPeer } from '../fixtures/upstream/client';
import { type TestGateway, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-completion-'));
const records = { a: join(dir, 'a.jsonl'), b: join(dir, 'b.jsonl') };
let gw: TestGateway;

before(async () => {
  const fixture = (name: 'a' | 'b') =>
    fixtureCommand(['--rev', '2025-11-25', '--name', name, '--record', records[name]]);
  gw = await gatewayFor(
    { a: fixture('a'), b: fixture('b') },
    {},
    {
      permissions: { rules: [{ server: 'b', action: 'deny' }] },
      profiles: {
        quiet: { servers: ['a'], mode: 'aggregated', permissions: { rules: [{ kind: 'completion', action: 'deny' }] } },
      },
    },
  );
});
after(async () => {
  await gw?.close();
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** The completion/complete requests `server`'s upstream received. */
const asked = (server: 'a' | 'b'): Json[] =>
  existsSync(records[server])
    ? readFileSync(records[server], 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { dir: string; frame: Json })
        .filter((l) => l.dir === 'in' && l.frame.method === 'completion/complete')
        .map((l) => l.frame.params as Json)
    : [];

const values = (r: Json | undefined) => ((r?.completion as Json | undefined)?.values as string[] | undefined) ?? [];

describe('completion/complete at the gate', { timeout: 60_000 }, () => {
  test('a server-wide deny refuses it (-32602 permissions.denied), the upstream never asked', async () => {
    for (const rev of ['2025-11-25', '2026-07-28'] as const) {
      const c = new HttpClient(gw.url, rev);
      if (rev !== '2026-07-28') await c.initialize();
      const r = await c.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'b_greet' },
        argument: { name: 'who', value: 'a' },
      });
      // The prompt index lists b's prompts: b is running for that, but never asked to complete.
      assert.equal(r.error?.code, -32602, JSON.stringify(r.response));
      assert.match(String(r.error?.message), /mcpx refused completing b\/greet: denied by permissions\.rules\[0\]/);
      const viaResource = await c.request('completion/complete', {
        ref: { type: 'ref/resource', uri: 'mcpx://b/fixture://items/{id}' },
        argument: { name: 'id', value: '1' },
      });
      assert.equal(viaResource.error?.code, -32602);
    }
    assert.deepEqual(asked('b'), []);
    const refused = gw.g.activity.recent({ server: 'b' }).filter((r) => r.kind === 'completion');
    assert.equal(refused.length, 4);
    assert.ok(refused.every((r) => r.outcome.status === 'denied' && r.decision.rule === 'permissions.rules[0]'));
  });

  test('an allowed completion is recorded as kind completion, its target the prompt or the resource URI', async () => {
    const c = new HttpClient(gw.url, '2025-11-25');
    await c.initialize();
    const prompt = await c.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'a_greet' },
      argument: { name: 'who', value: 'a' },
    });
    assert.deepEqual(values(prompt.result), ['alice']);
    const template = await c.request('completion/complete', {
      ref: { type: 'ref/resource', uri: 'mcpx://a/fixture://items/{id}' },
      argument: { name: 'id', value: '' },
    });
    assert.deepEqual(values(template.result), ['1', '2', '3']);
    const recorded = gw.g.activity.recent({ server: 'a' }).filter((r) => r.kind === 'completion');
    assert.deepEqual(recorded.map((r) => [r.target, r.outcome.status, r.path]).sort(), [
      ['fixture://items/{id}', 'ok', 'pass-through'],
      ['greet', 'ok', 'pass-through'],
    ]);
    assert.deepEqual(recorded.find((r) => r.target === 'greet')!.arguments, { argument: { name: 'who', value: 'a' } });
  });

  test("its upstream request is in flight as a call's: its progress and log messages reach the client", async () => {
    const peer = new HttpPeer('2025-11-25', gw.url);
    await peer.initialize({});
    await peer.request('logging/setLevel', { level: 'info' });
    const r = await peer.request(
      'completion/complete',
      { ref: { type: 'ref/prompt', name: 'a_greet' }, argument: { name: 'who', value: 'a' } },
      { progressToken: 'typing' },
    );
    assert.deepEqual(values(r.result as Json), ['alice']);
    const progress = peer.frames.filter((f) => f.method === 'notifications/progress').map((f) => f.params as Json);
    assert.deepEqual(
      progress.map((p) => p.progressToken),
      ['typing'],
    );
    const logs = peer.frames.filter((f) => f.method === 'notifications/message').map((f) => (f.params as Json).data);
    assert.deepEqual(logs, ['completion/complete']);
    assert.deepEqual(peer.problems, []);
  });

  test("a profile's own rule refuses completion on its endpoint only", async () => {
    const c = new HttpClient(`${gw.url}/quiet`, '2025-11-25');
    await c.initialize();
    const before = asked('a').length;
    const r = await c.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'a_greet' },
      argument: { name: 'who', value: 'b' },
    });
    assert.equal(r.error?.code, -32602, JSON.stringify(r.response));
    assert.match(String(r.error?.message), /profiles\.quiet\.permissions\.rules\[0\]/);
    assert.equal(asked('a').length, before);
  });

  test("POST /v1/complete: the same gate, recorded as http-api; a profile's rules under its path; 415 and 400 before anything runs", async () => {
    const post = (path: string, body: unknown, type = 'application/json') =>
      fetch(new URL(path, gw.bare), {
        method: 'POST',
        headers: { Authorization: `Bearer ${gw.secret}`, 'Content-Type': type },
        body: JSON.stringify(body),
      });
    const ok = await post('/v1/complete', {
      ref: { type: 'ref/prompt', name: 'a_greet' },
      argument: { name: 'who', value: 'b' },
    });
    assert.equal(ok.status, 200);
    assert.deepEqual(values((await ok.json()) as Json), ['bob']);
    const last = gw.g.activity.recent({ server: 'a' }).find((r) => r.kind === 'completion' && r.path === 'http-api');
    assert.ok(last, 'recorded as http-api');
    const denied = await post('/v1/complete', {
      ref: { type: 'ref/prompt', name: 'b_greet' },
      argument: { name: 'who', value: 'b' },
    });
    assert.equal(denied.status, 400);
    const why = (await denied.json()) as Json;
    assert.equal(why.code, -32602);
    assert.match(String(why.error), /mcpx refused completing b\/greet/);
    const before = asked('a').length;
    const profile = await post('/v1/profiles/quiet/v1/complete', {
      ref: { type: 'ref/prompt', name: 'a_greet' },
      argument: { name: 'who', value: 'b' },
    });
    assert.equal(profile.status, 400);
    assert.match(String(((await profile.json()) as Json).error), /profiles\.quiet/);
    assert.equal(asked('a').length, before);
    assert.equal(
      (await post('/v1/complete', { ref: { type: 'ref/prompt', name: 'a_greet' } })).status,
      400,
      'no argument',
    );
    assert.equal((await post('/v1/complete', {}, 'text/plain')).status, 415);
    assert.deepEqual(asked('b'), []);
  });
});
