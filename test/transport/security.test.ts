// Loopback is not a boundary (docs/security.md): the endpoint secret on /mcp and /v1, 415 for a POST that
// is not application/json, and questions that belong to their owner.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { HttpPeer, startHttpFixture } from '../fixtures/upstream/client';
import { startTestServer } from '../harness/gateway';
import { fixtureCommand, gatewayFor, killAll, untilCalled } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-security-'));
after(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
const JSON_TYPE = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const bearer = (s: string) => ({ Authorization: `Bearer ${s}` });
const textOf = (r: Json) =>
  String(((((r.result as Json)?.content as Json[]) ?? [])[0] as Json)?.text ?? JSON.stringify(r.error));

describe('the endpoint secret', () => {
  test('without the secret: 401 with WWW-Authenticate and where the URL is, never the secret', async () => {
    const gw = await startTestServer();
    try {
      const secret = gw.secret!;
      assert.match(secret, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
      assert.equal(gw.url, `${gw.bare}/${secret}`, 'the endpoint that works is /mcp/<secret>');
      const inits: RequestInit[] = [
        { method: 'POST', headers: JSON_TYPE, body: PING },
        { method: 'GET', headers: { Accept: 'text/event-stream' } },
        { method: 'DELETE', headers: { 'Mcp-Session-Id': 'x' } },
      ];
      for (const init of inits) {
        const res = await fetch(gw.bare, init);
        assert.equal(res.status, 401, init.method);
        assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="mcpx"');
        const body = await res.text();
        const message = String(((JSON.parse(body) as Json).error as Json).message);
        assert.match(message, /endpoints\.json/);
        assert.match(message, /mcpx: Copy Endpoint/);
        assert.match(message, /mcpx daemon/);
        assert.ok(!body.includes(secret), 'the 401 never contains the secret');
      }
    } finally {
      await gw.close();
    }
  });

  test('a wrong secret is 401, in the header or the path; the right one works either way', async () => {
    const gw = await startTestServer();
    try {
      const secret = gw.secret!;
      const wrong = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
      const post = (url: string, h: Record<string, string> = {}) =>
        fetch(url, { method: 'POST', headers: { ...JSON_TYPE, ...h }, body: PING });
      assert.equal((await post(gw.bare, bearer(wrong))).status, 401, 'wrong Bearer');
      assert.equal((await post(gw.bare, bearer(`${secret}x`))).status, 401, 'longer Bearer');
      assert.equal((await post(gw.bare, { Authorization: secret })).status, 401, 'not a Bearer credential');
      assert.equal((await post(`${gw.bare}/${wrong}`)).status, 401, '/mcp/<wrong>');
      assert.equal((await post(`${gw.bare}/`)).status, 401, '/mcp/ with nothing');
      assert.equal((await post(`${gw.bare}/${wrong}/x`)).status, 401, '/mcp/<wrong>/x');
      assert.equal((await post(`${gw.bare}/${secret}/`)).status, 401, '/mcp/<secret>/ with nothing after');
      // /mcp/<secret>/<profile> is a profile's endpoint (docs/gateway.md "Profiles"): none is configured.
      assert.equal((await post(`${gw.bare}/${secret}/x`)).status, 404, '/mcp/<secret>/x');
      // The right one, as Bearer on /mcp and in the path, frames validated.
      const viaHeader = new HttpClient(gw.bare, '2025-11-25', { headers: bearer(secret) });
      assert.equal((await viaHeader.initialize()).reply.status, 200);
      assert.ok((await viaHeader.request('tools/list')).result);
      const viaPath = new HttpClient(gw.url, '2026-07-28');
      assert.equal((await viaPath.request('server/discover')).reply.status, 200);
    } finally {
      await gw.close();
    }
  });

  test('/v1 needs the secret as Bearer: /v1/questions, /v1/events and /v1/protocol are 401 without it', async () => {
    const gw = await gatewayFor({ up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) });
    try {
      const base = new URL(gw.url);
      for (const path of ['/v1/questions', '/v1/events', '/v1/protocol']) {
        const res = await fetch(new URL(path, base));
        assert.equal(res.status, 401, path);
        assert.ok(!(await res.text()).includes(gw.secret));
      }
      const answer = await fetch(new URL('/v1/questions/00000000-0000-0000-0000-000000000000', base), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"action":"accept"}',
      });
      assert.equal(answer.status, 401);
      const ok = await fetch(new URL('/v1/questions', base), { headers: bearer(gw.secret) });
      assert.equal(ok.status, 200);
      assert.deepEqual(await ok.json(), { questions: [] });
    } finally {
      await gw.close();
    }
  });

  test('transport.secret off: /mcp is served without it, and the listener says so', async () => {
    const gw = await startTestServer({ 'transport.secret': false });
    try {
      assert.equal(gw.secret, undefined);
      assert.equal(gw.url, gw.bare);
      assert.equal((await new HttpClient(gw.bare, '2026-07-28').request('server/discover')).reply.status, 200);
    } finally {
      await gw.close();
    }
  });
});

describe('415 for a POST that is not application/json', () => {
  test('no Content-Type, text/plain or a type that only mentions json: 415, and the tool never ran', async () => {
    const gw = await gatewayFor({ up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) });
    try {
      const count = (headers: Record<string, string>) =>
        fetch(gw.url, {
          method: 'POST',
          headers: { Accept: 'application/json, text/event-stream', ...headers },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'mcpx_call', arguments: { server: 'up', tool: 'count', arguments: {} } },
          }),
        });
      const types: Array<Record<string, string>> = [
        {},
        { 'Content-Type': 'text/plain' },
        { 'Content-Type': 'text/plain; charset=json' },
      ];
      for (const h of types) {
        const res = await count(h);
        assert.equal(res.status, 415, JSON.stringify(h));
      }
      // The secret is checked first: without it the same request is 401, not 415.
      assert.equal((await fetch(new URL(gw.bare), { method: 'POST', body: '{}' })).status, 401);
      // The first call that reaches the upstream counts 1: none of the refused ones ran.
      const c = new HttpClient(gw.url, '2026-07-28');
      const r = await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'count', arguments: {} },
      });
      assert.equal(textOf(r.response!), '1');
      const charset = await count({ 'Content-Type': 'application/json; charset=utf-8' });
      assert.equal(charset.status, 200, 'parameters on application/json are fine');
    } finally {
      await gw.close();
    }
  });
});

describe('questions belong to their owner', () => {
  test('a question at the broker: another client can neither see nor answer it; the person (the secret) can', async () => {
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) },
      {},
      {},
      { questionTtlMs: 10_000 },
    );
    try {
      const owner = new HttpPeer('2025-11-25', gw.url);
      await owner.initialize({});
      const pending = owner.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'elicit', arguments: { text: 'Owner only?' } },
      });
      await until(() => gw.g.questions().length === 1);
      const id = gw.g.questions()[0]!.id;
      const base = new URL(gw.url);
      // Another local client, without the secret: nothing listed, nothing answered.
      assert.equal((await fetch(new URL('/v1/questions', base))).status, 401);
      const stolen = await fetch(new URL(`/v1/questions/${id}`, base), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ action: 'accept', content: { answer: 'stolen' } }),
      });
      assert.equal(stolen.status, 401);
      // Another MCP client on the endpoint: no MCP surface lists the broker's questions.
      const other = new HttpPeer('2025-11-25', gw.url);
      await other.initialize({});
      const tools = (await other.request('tools/list')).result as Json;
      for (const t of tools.tools as Json[]) assert.doesNotMatch(String(t.name), /question|elicit/);
      assert.equal(gw.g.questions().length, 1, 'still waiting for its answerer');
      // The person, with the secret.
      const listed = (await (await fetch(new URL('/v1/questions', base), { headers: bearer(gw.secret) })).json()) as {
        questions: Json[];
      };
      assert.deepEqual(
        listed.questions.map((q) => q.id),
        [id],
      );
      const answered = await fetch(new URL(`/v1/questions/${id}`, base), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...bearer(gw.secret) },
        body: JSON.stringify({ action: 'accept', content: { answer: 'the person' } }),
      });
      assert.equal(answered.status, 200);
      assert.match(textOf(await pending), /the person/);
    } finally {
      await gw.close();
    }
  });

  test('the questions of a withdrawn call leave /v1/questions, owned or not', async () => {
    const record = join(dir, 'withdrawn.jsonl');
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--record', record]) },
      {},
      {},
      { questionTtlMs: 30_000 },
    );
    try {
      const base = new URL(gw.url);
      const listed = async () =>
        (
          (await (await fetch(new URL('/v1/questions', base), { headers: bearer(gw.secret) })).json()) as {
            questions: Json[];
          }
        ).questions;
      const elicit = { name: 'mcpx_call', arguments: { server: 'up', tool: 'elicit', arguments: {} } };
      // Owned: the one call on the connection, cancelled by its client.
      const peer = new HttpPeer('2025-11-25', gw.url);
      await peer.initialize({});
      void peer.raw('tools/call', elicit, 7).catch(() => undefined);
      await until(() => gw.g.questions().length === 1);
      assert.equal((await listed()).length, 1);
      await peer.notify('notifications/cancelled', { requestId: 7, reason: 'the user gave up' });
      await until(() => gw.g.questions().length === 0, { what: 'withdrawn with its call' });
      // Unowned: another client's call shares the connection, so the question has no owner; once every
      // call it could belong to has ended (one cancelled, the other done), it leaves the broker too.
      const other = new HttpPeer('2025-11-25', gw.url);
      await other.initialize({});
      const slow = other.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'slow', arguments: { ms: 800 } },
      });
      await untilCalled(record, 'slow');
      void peer.raw('tools/call', elicit, 8).catch(() => undefined);
      await until(() => gw.g.questions().length === 1);
      assert.equal(gw.g.questions()[0]!.reason, 'calls of several clients share the connection');
      await peer.notify('notifications/cancelled', { requestId: 8, reason: 'the user gave up' });
      assert.match(textOf(await slow), /slept/);
      await until(() => gw.g.questions().length === 0, { what: 'withdrawn once every candidate call ended' });
      assert.deepEqual(await listed(), []);
      assert.deepEqual([...peer.problems, ...other.problems], []);
    } finally {
      await gw.close();
    }
  });

  test('two calls of one client on one upstream connection: the question goes to that client', async () => {
    const record = join(dir, 'one-client.jsonl');
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--record', record]) },
      {},
      {},
      { questionTtlMs: 10_000 },
    );
    try {
      const peer = new HttpPeer('2025-11-25', gw.url);
      peer.answer = () => ({ action: 'accept', content: { answer: 'mine' } });
      await peer.initialize({ elicitation: {} });
      const slow = peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'slow', arguments: { ms: 1500 } },
      });
      // The slow call is in flight on the connection before the question is asked.
      await untilCalled(record, 'slow');
      const asked = await peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'elicit', arguments: { text: 'Whose?' } },
      });
      assert.match(textOf(asked), /mine/);
      assert.equal(peer.frames.filter((f) => f.method === 'elicitation/create').length, 1, 'asked on the wire');
      assert.equal(gw.g.questions().length, 0, 'never at the broker');
      await slow;
      assert.deepEqual(peer.problems, []);
    } finally {
      await gw.close();
    }
  });

  test("Streamable HTTP upstream: a question on a call's own response stream belongs to that call", async () => {
    const record = join(dir, 'web.jsonl');
    const web = ['--rev', '2025-11-25', '--transport', 'http', '--name', 'web', '--record', record];
    const { url } = await startHttpFixture(web);
    const gw = await gatewayFor({ web: { type: 'http', url } }, {}, {}, { questionTtlMs: 10_000 });
    try {
      // Another client's call shares the upstream connection.
      const other = new HttpPeer('2025-11-25', gw.url);
      await other.initialize({});
      const slow = other.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'web', tool: 'slow', arguments: { ms: 1500 } },
      });
      await untilCalled(record, 'slow');
      const peer = new HttpPeer('2025-11-25', gw.url);
      peer.answer = () => ({ action: 'accept', content: { answer: 'on my stream' } });
      await peer.initialize({ elicitation: {} });
      const asked = await peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'web', tool: 'elicit', arguments: { text: 'Whose?' } },
      });
      assert.match(textOf(asked), /on my stream/);
      assert.equal(gw.g.questions().length, 0, 'never at the broker');
      assert.equal(other.frames.filter((f) => f.method === 'elicitation/create').length, 0, 'never to the other');
      await slow;
      assert.deepEqual([...peer.problems, ...other.problems], []);
    } finally {
      await gw.close();
    }
  });
});

describe("an upstream's log messages", () => {
  test("quoting the upstream's own secret, it is masked before the message reaches the client or /v1/events", async () => {
    // The fixture's `slow` logs "slow: step 1 of 2": an env value of the server's definition that it
    // happens to quote stands for a credential an upstream leaks into its own log.
    const secret = 'step 1 of 2';
    const gw = await gatewayFor({
      up: { ...fixtureCommand(['--rev', '2025-11-25', '--name', 'up']), env: { FAKE_TOKEN: secret } },
    });
    const events: unknown[] = [];
    const off = gw.g.onEvent((e) => e.type === 'server.log' && events.push(e));
    try {
      const c = new HttpClient(gw.url, '2025-11-25');
      await c.initialize();
      await c.request('logging/setLevel', { level: 'info' });
      const r = await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'slow', arguments: { ms: 100, steps: 2 } },
      });
      assert.ok(r.result, JSON.stringify(r.error));
      const logs = r.notifications.filter((n) => n.method === 'notifications/message');
      assert.ok(logs.length >= 2, `the call's log messages were relayed: ${logs.length}`);
      assert.ok(JSON.stringify(logs).includes('slow: ***'), JSON.stringify(logs));
      assert.equal(JSON.stringify(logs).includes(secret), false, 'not in what the client received');
      assert.ok(events.length >= 2);
      assert.equal(JSON.stringify(events).includes(secret), false, 'not in the events (/v1/events, the editor)');
    } finally {
      off();
      await gw.close();
    }
  });
});
