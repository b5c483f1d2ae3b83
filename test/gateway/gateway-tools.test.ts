// The gateway's own tools come from one registry (src/gateway/tools/index.ts): each tool listed exactly
// once with its definition, in the registry's order, and only a tool in the registry can be called.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { JsonObject } from '../../src/protocol/jsonrpc';
import type { CallContext } from '../../src/server/provider';
import { GATEWAY_TOOLS, GatewayTools } from '../../src/gateway/tools';
import type { ToolDeps } from '../../src/gateway/tools/tool';
import { defaultView } from '../../src/gateway/profiles/view';
import type { McpxError } from '../../src/protocol/errors';
import { type TestGateway, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient } from '../harness/wire';

const ctx = (rev: CallContext['rev']): CallContext =>
  ({
    rev,
    signal: new AbortController().signal,
    identity: 'test',
    clientCapabilities: {},
    meta: {},
    progress: () => undefined,
    log: () => undefined,
  }) as CallContext;

describe('the gateway tools registry', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await gatewayFor({ notes: fixtureCommand(['--rev', '2025-11-25', '--name', 'notes']) });
  });
  after(async () => {
    await gw.close();
    killAll();
  });

  test('every mcpx_ tool is one module in the registry: a name, a description, an object input schema, annotations', () => {
    const names = GATEWAY_TOOLS.map((t) => t.definition.name);
    assert.deepEqual(names, ['mcpx_call', 'mcpx_exec', 'mcpx_servers', 'mcpx_tools', 'mcpx_describe', 'mcpx_search']);
    assert.equal(new Set(names).size, names.length, 'no name twice');
    for (const t of GATEWAY_TOOLS) {
      const d = t.definition;
      assert.match(d.name, /^mcpx_[a-z]+$/);
      assert.ok(typeof d.description === 'string' && d.description.length > 20, `${d.name} has a description`);
      assert.equal(d.inputSchema.type, 'object', `${d.name}'s input schema is an object schema`);
      assert.ok(d.annotations && typeof d.annotations === 'object', `${d.name} has annotations`);
    }
  });

  test('tools/list shows each registry tool exactly once, as its module defines it, in the registry order', async () => {
    const listed = await gw.g.listTools(ctx('2025-11-25'));
    const own = listed.filter((t) => String(t.name).startsWith('mcpx_'));
    assert.deepEqual(
      own,
      GATEWAY_TOOLS.map((t) => t.definition as JsonObject),
    );
  });

  test('each registry tool resolves to a handle with its listed task support and input schema', async () => {
    for (const t of GATEWAY_TOOLS) {
      const h = await gw.g.resolveTool(t.definition.name, ctx('2025-11-25'));
      assert.ok(h, `${t.definition.name} resolves`);
      assert.equal(h.name, t.definition.name);
      assert.deepEqual(h.inputSchema, t.definition.inputSchema);
      const ex = t.definition.execution as { taskSupport?: string } | undefined;
      assert.equal(h.taskSupport, ex?.taskSupport);
    }
    // A registry tool is called through its module: mcpx_servers names the configured server.
    const h = await gw.g.resolveTool('mcpx_servers', ctx('2025-11-25'));
    const r = await h!.call({}, ctx('2025-11-25'));
    const servers = (r.structuredContent as { servers: Array<{ name: string }> }).servers;
    assert.deepEqual(
      servers.map((s) => s.name),
      ['notes'],
    );
  });

  test('a tool not in the registry is not callable: not resolved, and a call names it as unknown', async () => {
    assert.equal(await gw.g.resolveTool('mcpx_secret', ctx('2025-11-25')), undefined);
    await assert.rejects(
      gw.g.callTool('mcpx_secret', {}, ctx('2025-11-25')),
      (e: Error & { code?: number }) => e.code === -32602 && /no tool named "mcpx_secret"/.test(e.message),
    );
    // A registry without a tool does not resolve it, though the module exists: the registry alone decides.
    const only = new GatewayTools({} as ToolDeps, [GATEWAY_TOOLS[2]!]);
    const view = defaultView(new Map(), []);
    assert.equal(only.resolve('mcpx_call', view), undefined);
    assert.ok(only.resolve('mcpx_servers', view));
    assert.deepEqual(
      only.definitions(view).map((d) => d.name),
      ['mcpx_servers'],
    );
    // A registry that names one tool twice is refused when it is built.
    assert.throws(() => new GatewayTools({} as ToolDeps, [GATEWAY_TOOLS[2]!, GATEWAY_TOOLS[2]!]), /share a name/);
  });

  test("a registry tool's arguments are checked against its input schema before it runs (spelled per era at the edge)", async () => {
    const h = await gw.g.resolveTool('mcpx_describe', ctx('2025-11-25'));
    // The gateway refuses with one typed error, whatever the caller's revision.
    await assert.rejects(h!.call({ tool: 'x' }, ctx('2025-06-18')), (e: McpxError) => e.code === 'arguments.invalid');
    // From 2025-11-25 an input error is a tool result with isError; before, a -32602 protocol error.
    const modern = new HttpClient(gw.url, '2025-11-25');
    await modern.initialize();
    const r = (await modern.request('tools/call', { name: 'mcpx_describe', arguments: { tool: 'x' } })).result!;
    assert.equal(r.isError, true);
    assert.match(JSON.stringify(r.content), /Invalid arguments for mcpx_describe/);
    const old = new HttpClient(gw.url, '2025-06-18');
    await old.initialize();
    const e = (await old.request('tools/call', { name: 'mcpx_describe', arguments: { tool: 'x' } })).error!;
    assert.equal(e.code, -32602);
    assert.match(String(e.message), /Invalid arguments for mcpx_describe/);
  });
});

describe("a tool result's structuredContent against its outputSchema", () => {
  test('a mismatch is relayed with a warning in _meta["dev.mcpx/warnings"] and a log line; a match and an isError result are left as they are', async () => {
    const { hostile, killHostiles } = await import('../harness/hostile');
    const outputSchema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    const tool = (name: string, structuredContent: JsonObject, isError = false) => ({
      tool: { name, inputSchema: { type: 'object' }, outputSchema },
      result: {
        content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
        structuredContent,
        ...(isError ? { isError } : {}),
      },
    });
    const logs: string[] = [];
    const gw = await gatewayFor(
      {
        h: hostile(
          '--tool-json',
          JSON.stringify([tool('bad', { n: 'seven' }), tool('good', { n: 7 }), tool('failed', { why: 1 }, true)]),
        ),
      },
      {},
      {},
      { log: (l) => logs.push(l) },
    );
    try {
      const c = new HttpClient(gw.url, '2025-11-25');
      await c.initialize();
      const call = async (t: string) =>
        (await c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'h', tool: t, arguments: {} } }))
          .result!;
      const bad = await call('bad');
      assert.deepEqual(bad.structuredContent, { n: 'seven' }, 'relayed as the upstream sent it');
      const warnings = ((bad._meta as JsonObject)['dev.mcpx/warnings'] as string[])[0]!;
      assert.match(warnings, /^structuredContent of h\/bad does not match its outputSchema: .*\/n must be number/);
      assert.ok(logs.some((l) => l.includes('[h] structuredContent of h/bad does not match its outputSchema')));
      for (const t of ['good', 'failed']) assert.equal((await call(t))._meta, undefined, t);
    } finally {
      await gw.close();
      killHostiles();
    }
  });
});
