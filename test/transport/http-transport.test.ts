// Streamable HTTP mechanics shared by both eras: sessions, the GET stream, DELETE, Origin and Host,
// batches, body limits, cancellation on disconnect per era, /v1/protocol.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Listening } from '../../src/app/app';
import { startTestServer } from '../harness/gateway';
import { HttpClient, type Json } from '../harness/wire';
import { stays, until } from '../harness/wait';

let gw: Listening;
const cancelled: string[] = [];
const called: string[] = [];
before(async () => {
  gw = await startTestServer(
    {
      'transport.sseKeepAlive': '40ms',
      'transport.allowedOrigins': ['https://trusted.example'],
      'transport.maxBodyBytes': 1024 * 1024,
    },
    { onCancelled: (n) => cancelled.push(n), onCalled: (n) => called.push(n) },
  );
});
after(() => gw.close());

/** A raw request with headers fetch would not let us set (Host). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  const u = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
      let b = '';
      res.on('data', (d) => (b += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: b }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('sessions', () => {
  test('only initialize mints a session; unknown session 404; DELETE ends it (204, then 404)', async () => {
    const c = new HttpClient(gw.url, '2025-06-18');
    const list = await c.request('tools/list');
    assert.equal(list.reply.headers.get('mcp-session-id'), null);
    await c.initialize();
    const id = c.sessionId!;
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.equal((await c.request('tools/list')).reply.status, 200);
    const del = await fetch(gw.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': id } });
    assert.equal(del.status, 204);
    const gone = await c.request('tools/list');
    assert.equal(gone.reply.status, 404);
    assert.equal((gone.reply.frames[0]!.error as Json).code, -32600);
    const fake = new HttpClient(gw.url, '2025-06-18');
    fake.sessionId = 'not-a-session';
    assert.equal((await fake.request('ping')).reply.status, 404);
  });

  test('a header naming another supported revision is served for the session; one naming none is 400', async () => {
    const c = new HttpClient(gw.url, '2025-06-18');
    await c.initialize();
    const body = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } };
    const other = await c.post(body, { ...c.headers(body), 'MCP-Protocol-Version': '2025-03-26' });
    assert.equal(other.status, 200);
    assert.deepEqual(
      (other.frames[0]!.result as Json).structuredContent,
      { sum: 3 },
      'spelled for the negotiated 2025-06-18',
    );
    const garbage = await c.post(body, { ...c.headers(), 'MCP-Protocol-Version': 'v1' });
    assert.equal(garbage.status, 400);
    assert.match(String((garbage.frames[0]!.error as Json).message), /Unsupported MCP-Protocol-Version "v1"/);
  });

  test('GET opens the session push stream; without a session it is 405', async () => {
    const none = await fetch(gw.url, { headers: { Accept: 'text/event-stream' } });
    assert.equal(none.status, 405);
    const c = new HttpClient(gw.url, '2025-11-25');
    await c.initialize();
    const ctl = new AbortController();
    const res = await fetch(gw.url, {
      headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': c.sessionId! },
      signal: ctl.signal,
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    ctl.abort();
  });

  test('a dropped connection inside a session is not a cancellation; outside one it is', async () => {
    const c = new HttpClient(gw.url, '2025-11-25');
    await c.initialize();
    const n = cancelled.length;
    /** Aborts `ctl` once the next call has reached the provider: the call is in flight when its client goes. */
    const abortOnceCalled = (ctl: AbortController) => {
      const k = called.length;
      void until(() => called.length > k, { what: 'the call at the provider' }).then(() => ctl.abort());
    };
    const ctl = new AbortController();
    abortOnceCalled(ctl);
    const p = c.request('tools/call', { name: 'slow', arguments: { ms: 200, steps: 2 } }, { signal: ctl.signal });
    await assert.rejects(p);
    await stays(() => cancelled.length === n, { for: 300, what: 'the session call not cancelled' });
    assert.equal(cancelled.length, n, 'the session call ran to its end');
    // A notifications/cancelled inside the session does cancel.
    const id = c.id();
    const body = {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'slow', arguments: { ms: 2000, steps: 20 } },
    };
    const k = called.length;
    const running = c.post(body);
    await until(() => called.length > k, { what: 'the call at the provider' });
    assert.equal((await c.notify('notifications/cancelled', { requestId: id, reason: 'test' })).status, 202);
    const reply = await running;
    assert.deepEqual(reply.frames, [], 'a cancelled request is not answered: its POST gets an empty stream');
    await until(() => cancelled.length === n + 1);
    // Sessionless: the disconnect is the only cancellation there can be.
    const s = new HttpClient(gw.url, '2025-03-26');
    const ctl2 = new AbortController();
    abortOnceCalled(ctl2);
    const p2 = s.request('tools/call', { name: 'slow', arguments: { ms: 2000, steps: 20 } }, { signal: ctl2.signal });
    await assert.rejects(p2);
    await until(() => cancelled.length === n + 2);
  });
});

describe('Origin and Host', () => {
  test('loopback and allowed origins pass; anything else is 403 with a JSON-RPC error', async () => {
    const c = new HttpClient(gw.url, '2025-06-18');
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1', 'https://trusted.example']) {
      assert.equal(
        (await c.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { ...c.headers(), Origin: origin })).status,
        200,
        origin,
      );
    }
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1.evil.example']) {
      const r = await c.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { ...c.headers(), Origin: origin });
      assert.equal(r.status, 403, origin);
      assert.match(String((r.frames[0]!.error as Json).message), /not allowed/);
    }
    const host = await raw(
      'POST',
      '/mcp',
      { Host: 'evil.example:8899', 'Content-Type': 'application/json' },
      '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    );
    assert.equal(host.status, 403);
    const v1 = await raw('GET', '/v1/protocol', { Host: 'attacker.example' });
    assert.equal(v1.status, 403, '/v1 is behind the same check');
  });
});

describe('batches', () => {
  test('2025-03-26 (headerless) accepts a batch; initialize inside one is refused', async () => {
    const c = new HttpClient(gw.url, '2025-03-26');
    const reply = await c.post([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      },
      { jsonrpc: '2.0', id: 4, method: 7 },
    ]);
    assert.equal(reply.status, 200);
    assert.deepEqual(
      reply.frames.map((f) => f.id),
      [1, 2, 3, 4],
    );
    assert.equal(((reply.frames[1]!.result as Json).content as Json[])[0]!.text, 'hi');
    assert.equal((reply.frames[2]!.error as Json).code, -32600);
    assert.equal((reply.frames[3]!.error as Json).code, -32600);
  });

  test('every other revision refuses a batch with one -32600 (400)', async () => {
    for (const rev of ['2025-06-18', '2025-11-25'] as const) {
      const c = new HttpClient(gw.url, rev);
      await c.initialize();
      const r = await c.post([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
      assert.equal(r.status, 400, rev);
      assert.equal((r.frames[0]!.error as Json).code, -32600);
    }
    const m = new HttpClient(gw.url, '2026-07-28');
    const r = await m.post([{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: m.params() }], {
      ...m.headers(),
      'Mcp-Method': 'tools/list',
    });
    assert.equal(r.status, 400);
    const empty = await new HttpClient(gw.url, '2025-03-26').post([]);
    assert.equal(empty.status, 400);
  });
});

describe('bad input, and the server keeps serving', () => {
  test('the rejection corpus: each gets its specific error and status', async () => {
    const c = new HttpClient(gw.url, '2025-03-26');
    const cases: Array<[string, string, number, number]> = [
      ['truncated JSON', '{"jsonrpc":"2.0","id":1,"method":"pi', 400, -32700],
      ['not JSON at all', 'hello', 400, -32700],
      ['wrong jsonrpc', '{"jsonrpc":"1.0","id":1,"method":"ping"}', 400, -32600],
      ['null id', '{"jsonrpc":"2.0","id":null,"method":"ping"}', 400, -32600],
      ['fractional id', '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', 400, -32600],
      ['params an array', '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]}', 400, -32600],
      ['a bare string', '"ping"', 400, -32600],
      ['method not a string', '{"jsonrpc":"2.0","id":1,"method":42}', 400, -32600],
    ];
    for (const [why, body, status, code] of cases) {
      const r = await c.post(undefined, c.headers(), { raw: body });
      assert.equal(r.status, status, why);
      assert.equal((r.frames[0]!.error as Json).code, code, why);
      assert.equal((await c.request('ping')).reply.status, 200, `still serving after: ${why}`);
    }
  });

  test('a 5 MB body is 413 with a JSON-RPC error; the next request is served', async () => {
    const c = new HttpClient(gw.url, '2025-03-26');
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x'.repeat(5 * 1024 * 1024) } },
    });
    const r = await c.post(undefined, c.headers(), { raw: big });
    assert.equal(r.status, 413);
    assert.match(String((r.frames[0]!.error as Json).message), /too large/);
    assert.equal((await c.request('ping')).reply.status, 200);
  });

  test('a wrong Content-Type is 415; an unknown HTTP method 405; another path 404', async () => {
    const c = new HttpClient(gw.url, '2025-03-26');
    assert.equal(
      (await c.post(undefined, { ...c.headers(), 'Content-Type': 'text/plain' }, { raw: '{}' })).status,
      415,
    );
    assert.equal((await fetch(gw.url, { method: 'PUT' })).status, 405);
    assert.equal((await fetch(new URL('/nope', gw.url))).status, 404);
  });
});

describe('/v1/protocol', () => {
  test('serves the revision table and the effective policy', async () => {
    const r = await fetch(new URL('/v1/protocol', gw.url), { headers: { Authorization: `Bearer ${gw.secret}` } });
    const body = (await r.json()) as Json;
    assert.deepEqual((body.spec as Json).precedence, [
      '2026-07-28',
      '2025-11-25',
      '2025-06-18',
      '2025-03-26',
      '2024-11-05',
    ]);
    assert.deepEqual(((body.methods as Json).initialize as Json).removedIn, '2026-07-28');
    assert.equal((body.revisions as Json[]).length, 5);
  });
});
