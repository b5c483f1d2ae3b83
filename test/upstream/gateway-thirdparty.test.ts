// Real third-party upstreams from npm (@modelcontextprotocol/server-everything, server-memory) as real
// processes behind the gateway, reached by the official SDK client over Streamable HTTP: through
// mcpx_call in gateway mode, and under their own names in pass-through mode.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { repoRoot } from '../harness/gateway';
import { validating } from '../harness/sdk';
import { type TestGateway, gatewayFor } from '../harness/upstreams';

const root = repoRoot();
const dir = mkdtempSync(join(tmpdir(), 'mcpx-3p-'));
const servers = {
  everything: {
    command: process.execPath,
    args: [join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
  },
  memory: {
    command: process.execPath,
    args: [join(root, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')],
    env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
  },
};

// The harness's start-up bounds are for the fixture upstreams: these keep mcpx's defaults.
const start = (passthrough: string[]) =>
  gatewayFor(servers, { 'mcp.passthrough': passthrough, 'pool.probeTimeout': '3s', 'pool.startTimeout': '10s' });

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'sdk-test', version: '1.0.0' });
  await client.connect(validating(new StreamableHTTPClientTransport(new URL(url))).transport);
  return client;
}

after(() => rmSync(dir, { recursive: true, force: true }));

describe('gateway mode, real upstreams', () => {
  let s: TestGateway;
  before(async () => {
    s = await start([]);
  });
  after(async () => {
    await s.close();
  });

  test('fixed tools in their order; discovery; mcpx_call returns the upstream result verbatim', async () => {
    const c = await connect(s.url);
    const tools = await c.listTools();
    assert.deepEqual(
      tools.tools.map((t) => t.name),
      ['mcpx_call', 'mcpx_exec', 'mcpx_servers', 'mcpx_tools', 'mcpx_describe', 'mcpx_search'],
    );
    const found = await c.callTool({ name: 'mcpx_tools', arguments: { query: 'echo' } });
    const hits = (found.structuredContent as { tools: Array<{ server: string; tool: string; name: string }> }).tools;
    assert.ok(hits.some((h) => h.server === 'everything' && h.tool === 'echo' && h.name === 'everything_echo'));
    const echo = await c.callTool({
      name: 'mcpx_call',
      arguments: { server: 'everything', tool: 'echo', arguments: { message: 'hi there' } },
    });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: hi there' }]);
    const described = await c.callTool({ name: 'mcpx_describe', arguments: { server: 'everything', tool: 'echo' } });
    assert.equal(
      (described.structuredContent as { tool: { inputSchema: { type: string } } }).tool.inputSchema.type,
      'object',
    );
    const created = await c.callTool({
      name: 'mcpx_call',
      arguments: {
        server: 'memory',
        tool: 'create_entities',
        arguments: { entities: [{ name: 'mcpx', entityType: 'project', observations: ['a gateway'] }] },
      },
    });
    assert.equal(created.isError ?? false, false, JSON.stringify(created));
    const graph = await c.callTool({
      name: 'mcpx_call',
      arguments: { server: 'memory', tool: 'read_graph', arguments: {} },
    });
    assert.match(JSON.stringify(graph.content), /a gateway/);
    const servers = await c.callTool({ name: 'mcpx_servers', arguments: {} });
    const list = (
      servers.structuredContent as { servers: Array<{ name: string; state: string; era: string; revision: string }> }
    ).servers;
    assert.deepEqual(
      list.map((x) => [x.name, x.state, x.era]),
      [
        ['everything', 'running', 'legacy'],
        ['memory', 'running', 'legacy'],
      ],
    );
    await c.close();
  });

  test('arguments are checked against the input schema before the upstream is called', async () => {
    const c = await connect(s.url);
    const bad = await c.callTool({
      name: 'mcpx_call',
      arguments: { server: 'everything', tool: 'echo', arguments: { message: 42 } },
    });
    assert.equal(bad.isError, true, 'a 2025-11-25 client gets an isError result');
    assert.match(JSON.stringify(bad.content), /\/message must be string/);
    await assert.rejects(
      c.callTool({ name: 'mcpx_call', arguments: { server: 'nope', tool: 'x' } }),
      /no server named "nope"/,
    );
    await c.close();
  });

  test('prompts are <server>_<prompt>, resources mcpx://<server>/<uri>, and read back', async () => {
    const c = await connect(s.url);
    const prompts = await c.listPrompts();
    assert.ok(prompts.prompts.some((p) => p.name.startsWith('everything_')));
    const resources = await c.listResources();
    const first = resources.resources.find((r) => r.uri.startsWith('mcpx://everything/'))!;
    assert.ok(first, JSON.stringify(resources.resources.slice(0, 3)));
    const read = await c.readResource({ uri: first.uri });
    assert.equal(read.contents[0]!.uri, first.uri);
    await assert.rejects(c.readResource({ uri: 'mcpx://nowhere/x' }), /names no configured server/);
    await c.close();
  });

  test('the era of each upstream is cached in <state>/upstream-eras.json', () => {
    const file = join(s.dir, 'upstream-eras.json');
    assert.ok(existsSync(file));
    const eras = Object.values(JSON.parse(readFileSync(file, 'utf8')) as Record<string, { era: string }>);
    assert.deepEqual(
      eras.map((e) => e.era),
      ['legacy', 'legacy'],
    );
  });
});

describe('pass-through mode, real upstreams', () => {
  let s: TestGateway;
  before(async () => {
    s = await start(['everything']);
  });
  after(async () => {
    await s.close();
  });

  test("the upstream's tools under their own names, ahead of the gateway's, results verbatim", async () => {
    const c = await connect(s.url);
    const names = (await c.listTools()).tools.map((t) => t.name);
    const at = names.indexOf('mcpx_call');
    assert.ok(at > 0);
    const upstream = names.slice(0, at);
    assert.deepEqual(
      upstream,
      [...upstream].sort((a, b) => a.localeCompare(b)),
    );
    assert.ok(upstream.includes('echo'));
    const echo = await c.callTool({ name: 'echo', arguments: { message: 'direct' } });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: direct' }]);
    const prompts = await c.listPrompts();
    assert.ok(
      prompts.prompts.some((p) => !p.name.startsWith('everything_')),
      'pass-through prompts are unprefixed',
    );
    const res = await c.listResources();
    const own = res.resources.find((r) => !r.uri.startsWith('mcpx://'))!;
    const read = await c.readResource({ uri: own.uri });
    assert.equal(read.contents[0]!.uri, own.uri);
    await c.close();
  });
});
