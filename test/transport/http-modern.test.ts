// Streamable HTTP, 2026-07-28: discover, the envelope and cache hints, per-request _meta, header rules,
// removed methods, status per code, no sessions, closing the stream cancels.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Listening } from '../../src/app/app';
import { VERSION } from '../../src/config/version';
import { startTestServer } from '../harness/gateway';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';

const M = '2026-07-28';
const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
let gw: Listening;
const cancelled: string[] = [];
const called: string[] = [];
before(async () => {
  gw = await startTestServer(
    { 'mcp.pageSize': 4, 'transport.sseKeepAlive': '40ms' },
    { onCancelled: (n) => cancelled.push(n), onCalled: (n) => called.push(n) },
  );
});
after(() => gw.close());

const client = () => new HttpClient(gw.url, M);

describe('2026-07-28 over HTTP', () => {
  test('server/discover: supportedVersions, capabilities, serverInfo in _meta, public cache hints', async () => {
    const ex = await client().request('server/discover');
    const r = ex.result!;
    assert.deepEqual(r.supportedVersions, ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
    assert.equal(r.resultType, 'complete');
    assert.deepEqual((r._meta as Json)['io.modelcontextprotocol/serverInfo'], {
      name: 'mcpx',
      title: 'mcpx gateway',
      version: VERSION,
    });
    assert.equal(r.cacheScope, 'public');
    assert.equal(r.ttlMs, 60_000);
    assert.equal('serverInfo' in r, false);
    assert.equal(ex.reply.headers.get('mcp-session-id'), null, 'no session minted');
  });

  test('lists carry ttlMs/cacheScope (public, private for resources), reads the read age; calls none', async () => {
    const c = client();
    const expect: Array<[string, string, number]> = [
      ['tools/list', 'public', 60_000],
      ['prompts/list', 'public', 60_000],
      ['resources/templates/list', 'public', 60_000],
      ['resources/list', 'private', 60_000],
    ];
    for (const [method, scope, ttl] of expect) {
      const r = (await c.request(method)).result!;
      assert.equal(r.cacheScope, scope, method);
      assert.equal(r.ttlMs, ttl, method);
      assert.equal(r.resultType, 'complete');
    }
    const read = (await c.request('resources/read', { uri: 'test://doc/readme' })).result!;
    assert.equal(read.cacheScope, 'private');
    assert.equal(read.ttlMs, 0);
    const call = (await c.request('tools/call', { name: 'add', arguments: { a: 1, b: 2 } })).result!;
    assert.equal(call.resultType, 'complete');
    assert.equal('ttlMs' in call, false);
    assert.deepEqual(call.structuredContent, { sum: 3 });
  });

  test('a non-object structuredContent goes to 2026-07-28 as it is; every content type passes', async () => {
    const c = client();
    const r = (await c.request('tools/call', { name: 'scalar', arguments: {} })).result!;
    assert.equal(r.structuredContent, 42);
    const rich = (await c.request('tools/call', { name: 'rich', arguments: {} })).result!;
    assert.deepEqual(
      (rich.content as Json[]).map((b) => b.type),
      ['text', 'image', 'audio', 'resource_link', 'resource'],
    );
    const tools = (await c.request('tools/list')).result!.tools as Json[];
    const add = tools.find((t) => t.name === 'add')!;
    assert.equal('execution' in add, false, 'Tool.execution is not in 2026-07-28 core');
    assert.equal('icons' in add, true);
  });

  test('removed methods are -32601 with 404; unknown too; nothing is session-scoped', async () => {
    for (const method of [
      'initialize',
      'ping',
      'logging/setLevel',
      'resources/subscribe',
      'resources/unsubscribe',
      'nope/nope',
      'tasks/list',
    ]) {
      const ex = await client().request(
        method,
        method === 'initialize'
          ? { protocolVersion: M, capabilities: {}, clientInfo: { name: 'x', version: '1' } }
          : {},
      );
      assert.equal(ex.error?.code, -32601, method);
      assert.equal(ex.reply.status, 404, method);
    }
  });

  test('missing _meta, protocolVersion or clientCapabilities, or an unknown log level is -32602 / 400', async () => {
    const c = client();
    const cases: Json[] = [
      {},
      { _meta: { [CAPS]: {} } },
      { _meta: { [PV]: M } },
      { _meta: { [PV]: M, [CAPS]: {}, 'io.modelcontextprotocol/logLevel': 'loud' } },
    ];
    for (const params of cases) {
      const body = { jsonrpc: '2.0', id: c.id(), method: 'tools/list', params };
      const reply = await c.post(body);
      const err = reply.frames[0]!.error as Json;
      assert.equal(err.code, -32602, JSON.stringify(params));
      assert.equal(reply.status, 400);
    }
    // clientInfo is a SHOULD: a request without it is served.
    const body = { jsonrpc: '2.0', id: c.id(), method: 'tools/list', params: { _meta: { [PV]: M, [CAPS]: {} } } };
    assert.equal((await c.post(body)).status, 200);
  });

  test('header rules: MCP-Protocol-Version, Mcp-Method and Mcp-Name must be present and agree (-32020, 400)', async () => {
    const c = client();
    const call = (name: string) => ({
      jsonrpc: '2.0',
      id: c.id(),
      method: 'tools/call',
      params: c.params({ name: 'add', arguments: {} }),
      _n: name,
    });
    const variants: Array<[string, (h: Record<string, string>) => void]> = [
      ['no version header', (h) => delete h['MCP-Protocol-Version']],
      ['version header differs from the body', (h) => (h['MCP-Protocol-Version'] = '2025-11-25')],
      ['no Mcp-Method', (h) => delete h['Mcp-Method']],
      ['wrong Mcp-Method', (h) => (h['Mcp-Method'] = 'tools/list')],
      ['no Mcp-Name', (h) => delete h['Mcp-Name']],
      ['wrong Mcp-Name', (h) => (h['Mcp-Name'] = 'echo')],
      ['bad sentinel', (h) => (h['Mcp-Name'] = '=?base64?***?=')],
    ];
    for (const [why, mutate] of variants) {
      const { _n, ...body } = call(why);
      void _n;
      const headers = c.headers(body);
      mutate(headers);
      const reply = await c.post(body, headers);
      assert.equal(reply.status, 400, why);
      assert.equal((reply.frames[0]!.error as Json).code, -32020, why);
      assert.equal(reply.frames[0]!.id, body.id, `${why}: the error keeps the request id`);
    }
    // A name outside the header-safe set travels base64-encoded and is accepted.
    const ex = await c.request('tools/call', { name: 'nöpe', arguments: {} });
    assert.equal(ex.error?.code, -32602, 'reached the tool lookup');
    assert.match(ex.error!.message, /nöpe/);
  });

  test('a notification POST: MCP-Protocol-Version required (every POST), Mcp-Method not (requests only); 202 (docs/protocol.md "Notification POSTs in 2026-07-28")', async () => {
    const c = client();
    const note = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 999_999, _meta: { [PV]: M } },
    };
    const bare = c.headers(note);
    assert.equal(bare['Mcp-Method'], undefined, 'the harness sends no Mcp-Method on a notification');
    assert.equal((await c.post(note, bare)).status, 202);
    // A body that names 2026-07-28 without the header (one naming nothing is a headerless legacy POST).
    const { 'MCP-Protocol-Version': _, ...noVersion } = bare;
    const refused = await c.post(note, noVersion);
    assert.equal(refused.status, 400);
    assert.equal((refused.frames[0]!.error as Json).code, -32020);
    assert.equal('id' in refused.frames[0]!, false, 'a notification has no id to echo');
  });

  test('an unknown per-request version is -32022 with the supported list', async () => {
    const c = client();
    const body = {
      jsonrpc: '2.0',
      id: c.id(),
      method: 'tools/list',
      params: { _meta: { [PV]: '2099-01-01', [CAPS]: {} } },
    };
    const reply = await c.post(body, { ...c.headers(body), 'MCP-Protocol-Version': '2099-01-01' });
    assert.equal(reply.status, 400);
    const err = reply.frames[0]!.error as Json;
    assert.equal(err.code, -32022);
    assert.deepEqual((err.data as Json).requested, '2099-01-01');
    assert.ok(((err.data as Json).supported as string[]).includes(M));
  });

  test('unknown tool -32602 (400); resource not found -32602 with data.uri; internal -32603 (500)', async () => {
    const c = client();
    const t = await c.request('tools/call', { name: 'nope', arguments: {} });
    assert.equal(t.error?.code, -32602);
    assert.equal(t.reply.status, 400);
    const r = await c.request('resources/read', { uri: 'test://doc/missing' });
    assert.equal(r.error?.code, -32602);
    assert.deepEqual(r.error?.data, { uri: 'test://doc/missing' });
    const boom = await c.request('resources/read', { uri: 'test://doc/boom' });
    assert.equal(boom.error?.code, -32603);
    assert.equal(boom.reply.status, 500);
  });

  test('an empty-string cursor is a cursor in 2026-07-28 (one never issued: -32602)', async () => {
    const ex = await client().request('tools/list', { cursor: '' });
    assert.equal(ex.error?.code, -32602);
  });

  test('logs only at the per-request level; none without one; progress increasing', async () => {
    const c = client();
    const quiet = await c.request(
      'tools/call',
      { name: 'slow', arguments: { ms: 30, steps: 2 } },
      { meta: { progressToken: 'a' } },
    );
    assert.deepEqual(
      quiet.notifications.map((n) => n.method),
      ['notifications/progress', 'notifications/progress'],
    );
    const loud = await c.request(
      'tools/call',
      { name: 'slow', arguments: { ms: 30, steps: 2 } },
      { meta: { 'io.modelcontextprotocol/logLevel': 'debug' } },
    );
    assert.deepEqual(
      loud.notifications.map((n) => (n.params as Json).level),
      ['info', 'debug', 'info', 'debug'],
    );
    // Capabilities are per request: nothing set on an earlier request carries over.
    const after = await c.request('tools/call', { name: 'slow', arguments: { ms: 10, steps: 1 } });
    assert.equal(after.notifications.length, 0);
    assert.equal(after.reply.contentType, 'application/json');
  });

  test('closing the stream cancels the request', async () => {
    const c = client();
    const before = cancelled.length;
    const calls = called.length;
    const ctl = new AbortController();
    const pending = c.request(
      'tools/call',
      { name: 'slow', arguments: { ms: 2000, steps: 20 } },
      { signal: ctl.signal, meta: { progressToken: 1 } },
    );
    await until(() => called.length > calls, { what: 'the call at the provider' });
    ctl.abort();
    await assert.rejects(pending);
    await until(() => cancelled.length > before);
  });

  test('a slow call becomes an SSE stream with keep-alive comments', async () => {
    const ex = await client().request('tools/call', { name: 'slow', arguments: { ms: 200, steps: 1 } });
    assert.equal(ex.reply.contentType, 'text/event-stream');
    assert.match(ex.reply.text, /^:\n\n/m);
    assert.equal(ex.result?.resultType, 'complete');
  });
});
