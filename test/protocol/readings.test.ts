// Readings of the open questions where behaviour follows from them (docs/protocol.md "Readings of the open
// questions"): where a revision declares a server's capabilities, an embedded resource without its MIME type,
// roots and sampling still declared although deprecated, roots as guidance and not access control, the
// _meta of tool uses and results in a sampling request relayed, and StringSchema's `pattern`. Each on a real
// gateway over fixture upstreams, every frame validated for its revision by the harness clients.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { HttpPeer } from '../fixtures/upstream/client';
import { answerProblem } from '../../src/gateway/inbox/broker';
import { spellQuestion } from '../../src/protocol/questions';
import { hostile, killHostiles } from '../harness/hostile';
import { fixtureCommand, gatewayPool, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-readings-'));
const gateway = gatewayPool();
after(async () => {
  killAll();
  killHostiles();
  rmSync(dir, { recursive: true, force: true });
});

const frames = (file: string): Json[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { dir: string; frame: Json })
    .filter((l) => l.dir === 'in')
    .map((l) => l.frame);

describe('readings where behaviour follows', { timeout: 60_000 }, () => {
  test('server capabilities are declared on server/discover, never per response (002 A/C20, D/C7)', async () => {
    const gw = await gateway({ up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) });
    const c = new HttpClient(gw.url, '2026-07-28');
    const discover = (await c.request('server/discover')).result!;
    const caps = discover.capabilities as Json;
    for (const k of ['tools', 'prompts', 'resources', 'completions']) assert.ok(k in caps, `${k} declared`);
    for (const method of ['tools/list', 'prompts/list', 'resources/list']) {
      const r = (await c.request(method)).result!;
      assert.equal('capabilities' in r, false, method);
      assert.deepEqual(
        Object.keys((r._meta as Json) ?? {}).filter((k) => /capabilit/i.test(k)),
        [],
        `${method}: no capabilities in _meta`,
      );
    }
  });

  test('an embedded resource without mimeType is relayed to every era (002 D/C8: receivers accept its absence)', async () => {
    const result = { content: [{ type: 'resource', resource: { uri: 'notes://a', text: 'no type given' } }] };
    const gw = await gateway({
      h: hostile('--tool-json', JSON.stringify([{ tool: { name: 'embed', inputSchema: { type: 'object' } }, result }])),
    });
    for (const rev of ['2025-06-18', '2025-11-25', '2026-07-28'] as const) {
      const c = new HttpClient(gw.url, rev);
      if (rev !== '2026-07-28') await c.initialize();
      const r = (
        await c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'h', tool: 'embed', arguments: {} } })
      ).result!;
      const block = (r.content as Json[])[0]!;
      assert.equal(block.type, 'resource', rev);
      assert.equal((block.resource as Json).text, 'no type given');
      assert.equal('mimeType' in (block.resource as Json), false);
    }
  });

  test('roots and sampling, deprecated in 2026-07-28, are still declared to a 2026-07-28 upstream; roots are guidance, not a bound on reads', async () => {
    const record = join(dir, 'modern.jsonl');
    const gw = await gateway(
      { m: fixtureCommand(['--rev', '2026-07-28', '--name', 'm', '--record', record]) },
      {},
      { roots: ['/work/a'] },
    );
    const c = new HttpClient(gw.url, '2025-11-25');
    await c.initialize();
    await c.request('tools/call', {
      name: 'mcpx_call',
      arguments: { server: 'm', tool: 'echo', arguments: { text: 'x' } },
    });
    const call = frames(record).find((f) => f.method === 'tools/call')!;
    const declared = ((call.params as Json)._meta as Json)['io.modelcontextprotocol/clientCapabilities'] as Json;
    assert.ok('roots' in declared && 'sampling' in declared, JSON.stringify(declared));
    // A file outside the roots is read all the same: the permission rules, not the roots, refuse reads.
    const read = await c.request('resources/read', { uri: 'mcpx://m/file:///abs/path.txt' });
    assert.equal(((read.result!.contents as Json[])[0] as Json).text, 'abs');
  });

  test('the _meta of tool uses and tool results in an upstream’s sampling request reaches the client as written', async () => {
    const gw = await gateway({ up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) });
    const peer = new HttpPeer('2025-11-25', gw.url);
    let asked: Json | undefined;
    peer.answer = (req) => {
      asked = req.params as Json;
      return { role: 'assistant', content: { type: 'text', text: 'done' }, model: 'm' };
    };
    await peer.initialize({ sampling: { tools: {} } });
    const messages = [
      { role: 'user', content: { type: 'text', text: 'weather?' } },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'u1', name: 'weather', input: {}, _meta: { 'example.com/trace': 'use-1' } }],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            toolUseId: 'u1',
            content: [{ type: 'text', text: 'sunny' }],
            _meta: { 'example.com/trace': 'result-1' },
          },
        ],
      },
    ];
    const tools = [{ name: 'weather', inputSchema: { type: 'object' } }];
    await peer.request('tools/call', {
      name: 'mcpx_call',
      arguments: { server: 'up', tool: 'sample', arguments: { sampling: { messages, tools } } },
    });
    assert.deepEqual(asked?.messages, messages);
    assert.deepEqual(peer.problems, []);
  });

  test('StringSchema pattern (002 E): relayed as the upstream wrote it, and an answer that breaks it is refused', () => {
    const params = {
      message: 'code?',
      requestedSchema: { type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]+$' } } },
    };
    for (const rev of ['2025-11-25', '2026-07-28'] as const)
      assert.deepEqual(
        spellQuestion('elicitation/create', params, rev, () => 'id').requestedSchema,
        params.requestedSchema,
      );
    assert.match(
      String(answerProblem('elicitation/create', params, { action: 'accept', content: { code: 'abc' } })),
      /must match pattern/,
    );
    assert.equal(
      answerProblem('elicitation/create', params, { action: 'accept', content: { code: 'ABC' } }),
      undefined,
    );
  });

  test('a request from a 2026-07-28 upstream is not answered while 2026-07-28 is strict; spec.lenient lets it be', async () => {
    // A 2026-07-28 server that breaks the rule: during a call it sends roots/list, a request no server of
    // its revision may send, and says whether an answer came: as soon as one does, or after half a second
    // without one (the window only bounds the unanswered case, so a slow answer is never read as none).
    const script = join(dir, 'asks-2026.js');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      script,
      `const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const meta = { 'io.modelcontextprotocol/serverInfo': { name: 'asks', version: '1' } };
let report;
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === 'up-1' && !m.method) return report?.('result' in m ? 'answered' : 'unanswered');
  if (m.id === undefined) return;
  const ok = (result) => send({ jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', _meta: meta, ...result } });
  if (m.method === 'server/discover') return ok({ supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'public' });
  if (m.method === 'tools/list') return ok({ tools: [{ name: 'probe', inputSchema: { type: 'object' } }], ttlMs: 0, cacheScope: 'public' });
  if (m.method === 'tools/call') {
    const timer = setTimeout(() => report('unanswered'), 500);
    report = (text) => {
      clearTimeout(timer);
      report = undefined;
      ok({ content: [{ type: 'text', text }] });
    };
    return send({ jsonrpc: '2.0', id: 'up-1', method: 'roots/list' });
  }
  send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
});`,
    );
    const probe = async (values: Json) => {
      const gw = await gateway({ a: { command: process.execPath, args: [script] } }, values);
      const c = new HttpClient(gw.url, '2025-11-25');
      await c.initialize();
      const r = (
        await c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'a', tool: 'probe', arguments: {} } })
      ).result!;
      return String(((r.content as Json[])[0] as Json).text);
    };
    assert.equal(await probe({}), 'unanswered');
    assert.equal(await probe({ 'spec.lenient': ['2026-07-28'] }), 'answered');
  });
});
