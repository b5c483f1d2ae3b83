// McpServer.handle() through the Runner, in memory: the revision of each request, validation, the
// modern envelope and the legacy spelling (every response checked against its revision's schema), and
// listen streams.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject } from '../../src/protocol/jsonrpc';
import { Conn } from '../../src/server/conn';
import { testProvider } from '../fixtures/provider';
import { TEST_SERVER_INFO, memoryServer, req, modern, result, error } from '../harness/memory';
import { REVISIONS, type Revision, assertServerFrame } from '../harness/schema';
import { CLIENT_INFO } from '../harness/wire';

const MODERN: Revision = '2026-07-28';
const LEGACY_REVS = REVISIONS.filter((r) => r !== MODERN);
const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

describe('McpServer: the revision of each request', () => {
  test('a request whose _meta names 2026-07-28 is handled as modern, whatever the transport settled on', async () => {
    const mem = memoryServer(testProvider());
    const { runner, channel } = mem.runner(new Conn('stdio', 'memory'));
    const out = await runner.request(modern(1, 'tools/list'), '2024-11-05', channel);
    assert.equal(out.rev, MODERN);
    assert.equal(result(out.response).resultType, 'complete');
    assertServerFrame(MODERN, out.response, 'tools/list');
    const legacy = await runner.request(req(2, 'tools/list'), '2024-11-05', channel);
    assert.equal(legacy.rev, '2024-11-05');
    assert.equal(
      'resultType' in result(legacy.response),
      false,
      'the next request without _meta is legacy again: nothing carries over',
    );
    assertServerFrame('2024-11-05', legacy.response, 'tools/list');
  });

  test('a legacy version named in _meta leaves the transport revision in charge', async () => {
    const mem = memoryServer(testProvider());
    const { runner, channel } = mem.runner();
    const out = await runner.request(req(1, 'tools/list', { _meta: { [PV]: '2025-06-18' } }), '2025-03-26', channel);
    assert.equal(out.rev, '2025-03-26');
    assertServerFrame('2025-03-26', out.response, 'tools/list');
  });

  test('an unknown per-request version is -32022 with data.requested and data.supported', async () => {
    const mem = memoryServer(testProvider());
    const { runner, channel } = mem.runner();
    const out = await runner.request(
      req(1, 'tools/list', { _meta: { [PV]: '2099-01-01', [CAPS]: {} } }),
      MODERN,
      channel,
    );
    const e = error(out.response);
    assert.equal(e.code, -32022);
    const data = e.data as { requested: string; supported: string[] };
    assert.equal(data.requested, '2099-01-01');
    assert.deepEqual([...data.supported].sort(), [...REVISIONS].sort(), 'every revision mcpx serves is listed');
    assertServerFrame(MODERN, out.response);
  });

  for (const method of ['logging/setLevel', 'ping', 'initialize', 'resources/subscribe']) {
    test(`${method}, removed in 2026-07-28, is -32601 to a modern request (and answered to legacy)`, async () => {
      const mem = memoryServer(testProvider());
      const { runner, channel } = mem.runner();
      const params: JsonObject =
        method === 'logging/setLevel'
          ? { level: 'info' }
          : method === 'initialize'
            ? { protocolVersion: MODERN, capabilities: {}, clientInfo: CLIENT_INFO }
            : method === 'resources/subscribe'
              ? { uri: 'test://doc/readme' }
              : {};
      const out = await runner.request(modern(1, method, params), MODERN, channel);
      assert.equal(error(out.response).code, -32601);
      assertServerFrame(MODERN, out.response);
      if (method === 'logging/setLevel' || method === 'ping') {
        const legacy = await runner.request(req(2, method, params), '2025-11-25', channel);
        assertServerFrame('2025-11-25', legacy.response, method);
      }
    });
  }

  test('a method gated behind a capability mcpx did not declare is -32601 in both eras (docs/protocol.md "Un-negotiated capabilities")', async () => {
    // A provider without prompts: discover declares none, and prompts/* is not served to anyone.
    const base = testProvider();
    const provider = Object.assign(Object.create(base) as typeof base, {
      capabilities: () => ({ ...base.capabilities(), prompts: false }),
      listPrompts: undefined,
      getPrompt: undefined,
    });
    const mem = memoryServer(provider);
    const { runner, channel } = mem.runner();
    const caps = result((await runner.request(modern(1, 'server/discover'), MODERN, channel)).response).capabilities;
    assert.equal('prompts' in (caps as JsonObject), false);
    assert.equal('tools' in (caps as JsonObject), true);
    const out = await runner.request(modern(2, 'prompts/list'), MODERN, channel);
    assert.equal(error(out.response).code, -32601);
    assertServerFrame(MODERN, out.response);
    const legacy = await runner.request(req(3, 'prompts/get', { name: 'x' }), '2025-11-25', channel);
    assert.equal(error(legacy.response).code, -32601);
  });

  test('server/discover is not answered to a legacy request', async () => {
    const mem = memoryServer(testProvider());
    const { runner, channel } = mem.runner();
    for (const rev of LEGACY_REVS) {
      const out = await runner.request(req(1, 'server/discover'), rev, channel);
      assert.equal(error(out.response).code, -32601, rev);
    }
  });

  test('a modern request without _meta, without the version, or without clientCapabilities is -32602', async () => {
    const mem = memoryServer(testProvider());
    const { runner, channel } = mem.runner();
    const cases: Array<[string, JsonObject | undefined]> = [
      ['no params', undefined],
      ['params without _meta', {}],
      ['_meta without clientCapabilities', { _meta: { [PV]: MODERN } }],
      ['clientCapabilities not an object', { _meta: { [PV]: MODERN, [CAPS]: 'all' } }],
      ['_meta without the version', { _meta: { [CAPS]: {} } }],
    ];
    for (const [what, params] of cases) {
      const out = await runner.request(req(what, 'tools/list', params), MODERN, channel);
      assert.equal(error(out.response).code, -32602, what);
      assertServerFrame(MODERN, out.response);
    }
    const unknownLevel = await runner.request(
      modern(9, 'tools/list', {}, { 'io.modelcontextprotocol/logLevel': 'loud' }),
      MODERN,
      channel,
    );
    assert.equal(error(unknownLevel.response).code, -32602);
  });

  test('legacy initialize with an unsupported or modern version gets the latest legacy one (counter-offer)', async () => {
    const mem = memoryServer(testProvider());
    for (const asked of ['1999-01-01', MODERN]) {
      const { runner, conn, channel } = mem.runner();
      const out = await runner.request(
        req(0, 'initialize', { protocolVersion: asked, capabilities: {}, clientInfo: CLIENT_INFO }),
        '2024-11-05',
        channel,
      );
      const r = result(out.response);
      assert.equal(r.protocolVersion, '2025-11-25', `asked ${asked}`);
      assert.equal(out.rev, '2025-11-25', 'the answer is spelled in the revision it negotiated');
      assert.equal(out.session, true);
      assert.equal(conn.revision, '2025-11-25');
      assertServerFrame('2025-11-25', out.response, 'initialize');
    }
  });

  test('legacy initialize with a supported version keeps it, and declares what the provider delivers', async () => {
    const mem = memoryServer(testProvider());
    for (const rev of LEGACY_REVS) {
      const { runner, channel } = mem.runner();
      const out = await runner.request(
        req(0, 'initialize', { protocolVersion: rev, capabilities: {}, clientInfo: CLIENT_INFO }),
        '2024-11-05',
        channel,
      );
      const r = result(out.response);
      assert.equal(r.protocolVersion, rev);
      assert.equal(r.instructions, 'A test provider.');
      const caps = r.capabilities as JsonObject;
      assert.ok(caps.tools && caps.prompts && caps.resources && caps.logging, JSON.stringify(caps));
      assert.equal('subscribe' in (caps.resources as JsonObject), false, 'the test provider cannot subscribe');
      assertServerFrame(rev, out.response, 'initialize');
    }
  });
});

describe('McpServer: spelling the result', () => {
  test('a 2026-07-28 result carries resultType, serverInfo in _meta and the cache hints of the settings', async () => {
    const mem = memoryServer(testProvider(), {
      'protoMessages.listMaxAge': '2500ms',
      'protoMessages.readMaxAge': '700ms',
    });
    const { runner, channel } = mem.runner();
    const list = result((await runner.request(modern(1, 'tools/list'), MODERN, channel)).response);
    assert.equal(list.resultType, 'complete');
    assert.deepEqual((list._meta as JsonObject)[SERVER_INFO_KEY], TEST_SERVER_INFO);
    assert.deepEqual([list.ttlMs, list.cacheScope], [2500, 'public']);
    const read = await runner.request(modern(2, 'resources/read', { uri: 'test://doc/readme' }), MODERN, channel);
    assert.deepEqual([result(read.response).ttlMs, result(read.response).cacheScope], [700, 'private']);
    assertServerFrame(MODERN, read.response, 'resources/read');
    const call = await runner.request(
      modern(3, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } }),
      MODERN,
      channel,
    );
    const c = result(call.response);
    assert.equal(c.resultType, 'complete');
    assert.deepEqual((c._meta as JsonObject)[SERVER_INFO_KEY], TEST_SERVER_INFO);
    assert.equal('ttlMs' in c, false, 'a tools/call result is not cacheable');
    assert.deepEqual(c.structuredContent, { sum: 5 });
    assertServerFrame(MODERN, call.response, 'tools/call');
  });

  test('a legacy result carries nothing of the envelope', async () => {
    const mem = memoryServer(testProvider());
    const { runner, channel } = mem.runner();
    for (const rev of LEGACY_REVS) {
      const r = result((await runner.request(req(1, 'tools/list'), rev, channel)).response);
      for (const k of ['resultType', 'ttlMs', 'cacheScope']) assert.equal(k in r, false, `${k} in ${rev}`);
      assert.equal(isObject(r._meta) && SERVER_INFO_KEY in r._meta, false);
    }
  });

  test('structuredContent is absent before 2025-06-18, present from it; every response valid for its revision', async () => {
    const mem = memoryServer(testProvider());
    const { runner, channel } = mem.runner();
    for (const rev of REVISIONS) {
      const call =
        rev === MODERN
          ? modern(1, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } })
          : req(1, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } });
      const out = await runner.request(call, rev, channel);
      const r = result(out.response);
      const has = rev >= '2025-06-18';
      assert.equal('structuredContent' in r, has, `structuredContent in ${rev}`);
      if (has) assert.deepEqual(r.structuredContent, { sum: 3 });
      assert.deepEqual(
        r.content,
        [{ type: 'text', text: JSON.stringify({ sum: 3 }) }],
        'the text content is kept in every revision',
      );
      assertServerFrame(rev, out.response, 'tools/call');
    }
  });

  test('every list and read of the test provider is valid in every revision (Tool fields, content blocks, prompts)', async () => {
    const mem = memoryServer(testProvider());
    const { runner, channel } = mem.runner();
    const calls: Array<[string, JsonObject]> = [
      ['tools/list', {}],
      ['prompts/list', {}],
      ['resources/list', {}],
      ['resources/templates/list', {}],
      ['tools/call', { name: 'rich', arguments: {} }],
      ['tools/call', { name: 'scalar', arguments: {} }],
      ['prompts/get', { name: 'greet', arguments: { who: 'you' } }],
      ['resources/read', { uri: 'test://doc/readme' }],
    ];
    for (const rev of REVISIONS) {
      for (const [method, params] of calls) {
        const out = await runner.request(
          rev === MODERN ? modern(method, method, params) : req(method, method, params),
          rev,
          channel,
        );
        assert.equal(out.rev, rev);
        assertServerFrame(rev, out.response, method);
      }
    }
  });

  test('the Tool is spelled down: no title or outputSchema before 2025-06-18, no icons before 2025-11-25', async () => {
    const mem = memoryServer(testProvider());
    const { runner, channel } = mem.runner();
    const addIn = async (rev: Revision) => {
      const r = result(
        (await runner.request(rev === MODERN ? modern(1, 'tools/list') : req(1, 'tools/list'), rev, channel)).response,
      );
      return (r.tools as JsonObject[]).find((t) => t.name === 'add')!;
    };
    const old = await addIn('2025-03-26');
    assert.deepEqual(['title' in old, 'outputSchema' in old, 'icons' in old], [false, false, false]);
    const mid = await addIn('2025-06-18');
    assert.deepEqual(['title' in mid, 'outputSchema' in mid, 'icons' in mid], [true, true, false]);
    const late = await addIn('2025-11-25');
    assert.deepEqual(['title' in late, 'outputSchema' in late, 'icons' in late], [true, true, true]);
  });

  test("a spelled result is a copy: the provider's stored list is not changed by spelling it down", async () => {
    const provider = testProvider();
    const mem = memoryServer(provider);
    const { runner, channel } = mem.runner();
    await runner.request(req(1, 'tools/list'), '2024-11-05', channel);
    const r = result((await runner.request(req(2, 'tools/list'), '2025-11-25', channel)).response);
    const add = (r.tools as JsonObject[]).find((t) => t.name === 'add')!;
    assert.ok('icons' in add && 'title' in add, 'the 2024-11-05 spelling did not strip the shared list');
  });
});

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
