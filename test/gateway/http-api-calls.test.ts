// Calls through the HTTP API (docs/gateway.md "The HTTP API") beyond the plain call: cancellation, calls in
// flight, the call gate (a `deny` rule, the activity record as `http-api`), pins, a profile's API and a
// shorter timeout (?timeoutMs=), on a real gateway's listener over a real fixture upstream.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fixtureCommand, gatewayFor } from '../harness/upstreams';
import { until } from '../harness/wait';
import { type Json, gw, base, auth, received, upstreamCalls, post, validate } from './httpApiKit';

describe('cancellation', () => {
  test('closing the connection cancels the call upstream', async () => {
    const ctl = new AbortController();
    const res = fetch(`${base()}/v1/call/fx/slow`, {
      method: 'POST',
      headers: { ...auth(), 'Content-Type': 'application/json', Accept: 'application/x-ndjson' },
      body: JSON.stringify({ ms: 30_000, steps: 30 }),
      signal: ctl.signal,
    });
    const reader = (await res).body!.getReader();
    await reader.read(); // the first progress line: the call is running upstream
    ctl.abort();
    const cancelled = () => received('notifications/cancelled').length;
    await until(() => cancelled() >= 1, { what: 'notifications/cancelled upstream' });
    assert.ok(cancelled() >= 1, 'notifications/cancelled reached the upstream');
  });
});

describe('calls in flight', () => {
  test("past transport.maxInflightPerIdentity an identity's next call is 429, until one ends", async () => {
    const ctl = new AbortController();
    const first = await fetch(`${base()}/v1/call/fx/slow`, {
      method: 'POST',
      headers: {
        ...auth(),
        'Content-Type': 'application/json',
        'Mcpx-Identity': 'busy',
        Accept: 'application/x-ndjson',
      },
      body: JSON.stringify({ ms: 30_000, steps: 30 }),
      signal: ctl.signal,
    });
    const reader = first.body!.getReader();
    await reader.read(); // running
    const second = await post('/v1/call/fx/echo', JSON.stringify({ text: 'second' }), { 'Mcpx-Identity': 'busy' });
    assert.equal(second.status, 429);
    assert.equal(second.headers.get('retry-after'), '1');
    assert.match(((await second.json()) as Json).error as string, /transport\.maxInflightPerIdentity/);
    // Another identity is not held up.
    assert.equal(
      (await post('/v1/call/fx/echo', JSON.stringify({ text: 'other' }), { 'Mcpx-Identity': 'idle' })).status,
      200,
    );
    ctl.abort();
    const again = await until(
      async () => {
        const s = (await post('/v1/call/fx/echo', JSON.stringify({ text: 'again' }), { 'Mcpx-Identity': 'busy' }))
          .status;
        return s === 429 ? undefined : s;
      },
      { what: 'a call admitted again' },
    );
    assert.equal(again, 200);
  });
});

describe('the call gate', () => {
  test('a deny rule refuses the call before the upstream hears it; the activity log records it', async () => {
    const res = await post('/v1/call/fx/fail', '{}', { 'Mcpx-Identity': 'api-tester' });
    assert.equal(res.status, 200);
    const body = (await res.json()) as Json;
    assert.equal(body.isError, true);
    assert.match(JSON.stringify(body.content), /permissions\.rules\[0\]/);
    assert.equal(upstreamCalls('fail').length, 0);
    const denied = gw.g.activity.recent({ server: 'fx' }).find((r) => r.target === 'fail')!;
    assert.equal(denied.path, 'http-api');
    assert.equal(denied.outcome.status, 'denied');
    assert.equal(denied.decision.action, 'deny');
    assert.equal(denied.client.identity, 'client:api-tester');
    assert.equal(denied.client.transport, 'http');
  });

  test('an allowed call is recorded as http-api, ok', async () => {
    const res = await post('/v1/call/fx/echo', JSON.stringify({ text: 'logged' }));
    assert.equal(res.status, 200);
    const r = gw.g.activity.recent({ server: 'fx' }).find((x) => x.target === 'echo')!;
    assert.equal(r.path, 'http-api');
    assert.equal(r.outcome.status, 'ok');
  });
});

describe('pins', () => {
  test('a tool held by its pin is refused through the HTTP API, naming the review, before the upstream hears it', async () => {
    const rugRecord = join(tmpdir(), `mcpx-http-api-rug-${process.pid}.jsonl`);
    const g2 = await gatewayFor({
      a: fixtureCommand(['--rev', '2025-11-25', '--name', 'a', '--rug', 'description', '--record', rugRecord]),
    });
    const call = (tool: string, args: Json) =>
      fetch(`${g2.bare.replace(/\/mcp$/, '')}/v1/call/a/${tool}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${g2.secret}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(args),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Json }));
    const rugCalls = () =>
      readFileSync(rugRecord, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { dir: string; frame: Json })
        .filter((l) => l.dir === 'in' && l.frame.method === 'tools/call' && (l.frame.params as Json).name === 'rug')
        .length;
    try {
      assert.deepEqual((await call('rug', { text: 'before' })).body.content, [{ type: 'text', text: 'before' }]);
      assert.equal((await call('pull', {})).status, 200);
      const r = await until(
        async () => {
          const x = await call('rug', { text: 'after' });
          return x.body.isError === true ? x : undefined;
        },
        { what: 'the changed tool held' },
      );
      assert.equal(r.body.isError, true);
      assert.match(JSON.stringify(r.body.content), /mcpx holds the tool/);
      const held = rugCalls();
      assert.equal((await call('rug', { text: 'again' })).body.isError, true);
      assert.equal(rugCalls(), held, 'the held call never reached the upstream');
      const rec = g2.g.activity.recent({ server: 'a' }).find((x) => x.target === 'rug' && x.pin === 'held')!;
      assert.equal(rec.path, 'http-api');
    } finally {
      await g2.close();
      rmSync(rugRecord, { force: true });
    }
  });
});

describe("a profile's API", () => {
  test('its document, its list and its calls offer only what the profile offers', async () => {
    const res = await fetch(`${base()}/v1/profiles/narrow/openapi.json`, { headers: auth() });
    assert.equal(res.status, 200);
    const doc = (await res.json()) as Json & { paths: Record<string, Json>; servers: Json[] };
    const v = await validate(structuredClone(doc));
    assert.equal(v.valid, true, JSON.stringify(v.errors));
    assert.deepEqual(
      Object.keys(doc.paths).filter((p) => p.startsWith('/v1/call/')),
      ['/v1/call/fx/echo'],
    );
    assert.equal(doc.servers[0]!.url, `${base()}/v1/profiles/narrow`);
    const list = (await (await fetch(`${base()}/v1/profiles/narrow/v1/tools`, { headers: auth() })).json()) as {
      tools: Json[];
    };
    assert.deepEqual(
      list.tools.map((t) => [t.server, t.name, t.path]),
      [['fx', 'echo', '/v1/profiles/narrow/v1/call/fx/echo']],
    );
    const ok = await post('/v1/profiles/narrow/v1/call/fx/echo', JSON.stringify({ text: 'through a profile' }));
    assert.equal(ok.status, 200);
    assert.match(JSON.stringify(await ok.json()), /through a profile/);
    // Outside the profile: another tool of its server, another server — unknown, and never called.
    const before = upstreamCalls('add').length;
    for (const path of ['/v1/profiles/narrow/v1/call/fx/add', '/v1/profiles/narrow/v1/call/web/echo']) {
      const r = await post(path, JSON.stringify({ a: 1, b: 2, text: 'x' }));
      assert.equal(r.status, 404, path);
    }
    assert.equal(upstreamCalls('add').length, before);
  });

  test('a profile nobody configured: 404, not quoting it; without the secret: 401', async () => {
    const r = await fetch(`${base()}/v1/profiles/nope/v1/tools`, { headers: auth() });
    assert.equal(r.status, 404);
    assert.equal(((await r.json()) as Json).error, 'no such profile is configured (mcpx profiles lists them)');
    const anon = await fetch(`${base()}/v1/profiles/narrow/openapi.json`);
    assert.equal(anon.status, 401);
  });
});

describe('a shorter timeout (?timeoutMs=)', () => {
  test('ends the call at the asked time, cancels it upstream; a bad value is 400 and calls nothing', async () => {
    const cancelled = () => received('notifications/cancelled').length;
    const before = cancelled();
    const t0 = Date.now();
    const res = await post('/v1/call/fx/slow?timeoutMs=200', JSON.stringify({ ms: 20_000, steps: 20 }));
    assert.equal(res.status, 502);
    assert.match(String(((await res.json()) as Json).error), /timeout the call asked for|timed out/i);
    assert.ok(Date.now() - t0 < 15_000, 'ended long before the tool would have');
    await until(() => cancelled() !== before, { what: 'the upstream told to stop' });
    assert.equal(cancelled(), before + 1, 'the upstream was told to stop');
    const calls = upstreamCalls('slow').length;
    for (const bad of ['0', '-5', 'soon', '1.5']) {
      const r = await post(`/v1/call/fx/slow?timeoutMs=${bad}`, JSON.stringify({ ms: 1, steps: 1 }));
      assert.equal(r.status, 400, bad);
      assert.match(String(((await r.json()) as Json).error), /timeoutMs/);
    }
    assert.equal(upstreamCalls('slow').length, calls, 'nothing called for a bad value');
  });
});
