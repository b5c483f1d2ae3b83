// The gateway over fixture upstreams of every revision and transport: era probe and fallback, calls,
// prompts, resources, not-found mapping, errors relayed; and every frame mcpx sent upstream validated
// against the upstream's revision (the fixture records what it received).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Revision } from '../harness/schema';
import { checkRecorded, fixtureCommand, gatewayFor, killAll, startHttpFixture } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-fx-'));
after(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

type Case = { rev: Revision; transport: 'stdio' | 'http' | 'sse' };
const CASES: Case[] = [
  ...(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as Revision[]).map((rev) => ({
    rev,
    transport: 'stdio' as const,
  })),
  ...(['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as Revision[]).map((rev) => ({
    rev,
    transport: 'http' as const,
  })),
  { rev: '2024-11-05', transport: 'sse' },
];
const atLeast = (rev: Revision, floor: Revision) => rev >= floor;

async function upstream(c: Case, record: string, extra: string[] = []): Promise<Record<string, unknown>> {
  const args = ['--rev', c.rev, '--transport', c.transport, '--record', record, '--name', 'up', ...extra];
  if (c.transport === 'stdio') return fixtureCommand(args);
  const { url } = await startHttpFixture(args);
  return { type: 'http', url };
}

for (const c of CASES) {
  describe(`upstream ${c.rev} over ${c.transport}`, () => {
    test('probe, call, prompt, resources, errors; every frame sent upstream is valid for its revision', async () => {
      const record = join(dir, `${c.rev}-${c.transport}.jsonl`);
      const gw = await gatewayFor({ up: await upstream(c, record) }, {}, { roots: ['/work/root-a'] });
      try {
        const client = new HttpClient(gw.url, '2025-11-25');
        await client.initialize();
        const call = async (tool: string, args: Json = {}) =>
          client.request('tools/call', { name: 'mcpx_call', arguments: { server: 'up', tool, arguments: args } });
        const echo = await call('echo', { text: 'hello' });
        assert.deepEqual(echo.result?.content, [{ type: 'text', text: 'hello' }]);
        const add = await call('add', { a: 2, b: 5 });
        assert.equal(
          JSON.stringify(add.result?.structuredContent ?? null),
          atLeast(c.rev, '2025-06-18') ? '{"sum":7}' : 'null',
        );
        // The upstream's JSON-RPC error is relayed as that error.
        const err = await call('error');
        assert.equal(err.error?.code, -32602);
        assert.match(err.error!.message, /bad thing/);
        const fail = await call('fail');
        assert.equal(fail.result?.isError, true);
        if (atLeast(c.rev, '2025-06-18')) {
          // Resource URIs inside a result are rewritten so the client can read them back through mcpx.
          const rich = await call('rich');
          const link = (rich.result!.content as Json[]).find((b) => b.type === 'resource_link')!;
          assert.equal(link.uri, 'mcpx://up/fixture://doc');
        }
        if (c.rev !== '2026-07-28') {
          const roots = await call('roots');
          assert.match(
            JSON.stringify(roots.result?.content),
            /root-a/,
            'roots/list answered with the configured roots',
          );
        }
        const servers = await client.request('tools/call', { name: 'mcpx_servers', arguments: {} });
        const s = (servers.result!.structuredContent as { servers: Json[] }).servers[0]!;
        assert.equal(s.revision, c.rev);
        assert.equal(s.era, c.rev === '2026-07-28' ? 'modern' : 'legacy');
        assert.equal(s.transport, c.transport);
        const prompts = await client.request('prompts/list');
        assert.deepEqual(
          (prompts.result!.prompts as Json[]).map((p) => p.name),
          ['up_greet'],
        );
        const greet = await client.request('prompts/get', { name: 'up_greet', arguments: { who: 'Ada' } });
        assert.match(JSON.stringify(greet.result!.messages), /Hello, Ada!/);
        const res = await client.request('resources/list');
        const uris = (res.result!.resources as Json[]).map((r) => r.uri);
        assert.deepEqual(uris, ['mcpx://up/fixture://doc', 'mcpx://up/file:///abs/path.txt']);
        const read = await client.request('resources/read', { uri: 'mcpx://up/fixture://doc' });
        assert.deepEqual((read.result!.contents as Json[])[0], {
          uri: 'mcpx://up/fixture://doc',
          mimeType: 'text/plain',
          text: 'doc body',
        });
        const tpl = await client.request('resources/templates/list');
        assert.equal((tpl.result!.resourceTemplates as Json[])[0]!.uriTemplate, 'mcpx://up/fixture://items/{id}');
        const item = await client.request('resources/read', { uri: 'mcpx://up/fixture://items/7' });
        assert.match(JSON.stringify(item.result), /item 7/);
        // Four causes of not-found, each -32002 with data.uri for a legacy client.
        for (const uri of ['fixture://doc', 'mcpx:///x', 'mcpx://nope/x', 'mcpx://up/fixture://missing']) {
          const nf = await client.request('resources/read', { uri });
          assert.equal(nf.error?.code, -32002, uri);
          assert.deepEqual(nf.error?.data, { uri });
        }
        const done = await client.request('completion/complete', {
          ref: { type: 'ref/prompt', name: 'up_greet' },
          argument: { name: 'who', value: 'a' },
        });
        assert.deepEqual((done.result!.completion as Json).values, ['alice']);
        const received = checkRecorded(record, c.rev);
        const methods = received.map((f) => f.method).filter(Boolean);
        assert.equal(methods.includes('initialize'), c.rev !== '2026-07-28');
        assert.equal(methods[0], c.transport === 'sse' ? 'initialize' : 'server/discover', 'modern is probed first');
        const ids = received.filter((f) => 'method' in f && 'id' in f).map((f) => f.id);
        assert.equal(new Set(ids).size, ids.length, 'request ids are never reused');
      } finally {
        await gw.close();
      }
    });
  });
}

describe('what a modern client declares goes upstream narrowed; trace context unchanged', () => {
  test('pass-through to a 2026-07-28 upstream', async () => {
    const record = join(dir, 'narrow.jsonl');
    const gw = await gatewayFor(
      { up: await upstream({ rev: '2026-07-28', transport: 'http' }, record) },
      { 'mcp.passthrough': ['up'] },
    );
    try {
      const client = new HttpClient(gw.url, '2026-07-28', {
        capabilities: { roots: {}, sampling: {}, elicitation: {} },
      });
      const trace = {
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        tracestate: 'k=v',
        baggage: 'a=b',
      };
      const r = await client.request('tools/call', { name: 'meta', arguments: {} }, { meta: trace });
      const seen = JSON.parse(String((r.result!.content as Json[])[0]!.text)) as Json;
      assert.deepEqual(
        seen['io.modelcontextprotocol/clientCapabilities'],
        { roots: {}, elicitation: {}, sampling: {} },
        'listChanged is not 2026-07-28',
      );
      for (const [k, v] of Object.entries(trace)) assert.equal(seen[k], v, k);
      const formOnly = new HttpClient(gw.url, '2026-07-28', {
        capabilities: { elicitation: { form: {} }, experimental: { x: {} } },
      });
      const r3 = await formOnly.request('tools/call', { name: 'meta', arguments: {} });
      assert.deepEqual(
        (JSON.parse(String((r3.result!.content as Json[])[0]!.text)) as Json)[
          'io.modelcontextprotocol/clientCapabilities'
        ],
        { elicitation: { form: {} } },
        'exactly what the client declared, nothing mcpx lacks',
      );
      const none = new HttpClient(gw.url, '2026-07-28', { capabilities: {} });
      const r2 = await none.request('tools/call', { name: 'meta', arguments: {} });
      assert.deepEqual(
        (JSON.parse(String((r2.result!.content as Json[])[0]!.text)) as Json)[
          'io.modelcontextprotocol/clientCapabilities'
        ],
        {},
      );
      checkRecorded(record, '2026-07-28');
    } finally {
      await gw.close();
    }
  });
});
