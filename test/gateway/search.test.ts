// Tool search (docs/gateway.md "Tool search"): mcpx_search over a real gateway in front of ten real
// stdio servers of 30 realistic tools each (test/fixtures/search/catalog.ts over tools.json), the fixed
// question set (test/fixtures/search/questions.json) held to hit@5 >= 0.9, limit and server, mcpx_tools'
// query on the same index, and a tool that appears after a list change. Every frame the clients receive
// is validated against the schema of their revision (test/harness/wire.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseConfig } from '../../src/config/file';
import { Settings } from '../../src/config/settings';
import { words } from '../../src/gateway/search/index';
import { catalog } from '../fixtures/search/data';
import { fixture, repoRoot } from '../harness/gateway';
import { type TestGateway, gatewayFor } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';

const CATALOG = catalog();
const QUESTIONS = (
  JSON.parse(readFileSync(join(repoRoot(), 'test', 'fixtures', 'search', 'questions.json'), 'utf8')) as {
    questions: Array<{ q: string; expect: string }>;
  }
).questions;

const server = (name: string, ...more: string[]) => ({
  command: process.execPath,
  args: [fixture('search/catalog'), '--server', name, ...more],
});

interface Hit {
  server: string;
  name: string;
  description: string;
  inputSchema: Json;
  score: number;
}

async function search(c: HttpClient, args: Json): Promise<{ tools: Hit[]; result: Json }> {
  const ex = await c.request('tools/call', { name: 'mcpx_search', arguments: args });
  assert.ok(ex.result, `mcpx_search answered: ${JSON.stringify(ex.error)}`);
  return { tools: ((ex.result.structuredContent as Json | undefined)?.tools ?? []) as Hit[], result: ex.result };
}

describe('mcpx_search over ten realistic servers', () => {
  let gw: TestGateway;
  let modern: HttpClient;
  let legacy: HttpClient;
  before(async () => {
    gw = await gatewayFor(Object.fromEntries(Object.keys(CATALOG).map((s) => [s, server(s)])), {
      'pool.startTimeout': '20s',
    });
    modern = new HttpClient(gw.url, '2026-07-28');
    legacy = new HttpClient(gw.url, '2025-06-18');
    await legacy.initialize();
  });
  after(async () => {
    await gw.close();
  });

  test('names are split into words on _ - . / and camelCase', () => {
    assert.deepEqual(words('listDirectory_withSizes.v2-beta/HTTPServer'), [
      'list',
      'Directory',
      'with',
      'Sizes',
      'v2',
      'beta',
      'HTTP',
      'Server',
    ]);
  });

  test('the 30 questions: the tool meant is among the first five for at least 27 of them', async (t) => {
    let hit1 = 0;
    let hit5 = 0;
    const misses: string[] = [];
    for (const { q, expect } of QUESTIONS) {
      const { tools } = await search(modern, { query: q, limit: 5 });
      assert.ok(tools.length <= 5, 'limit 5 holds');
      const ranks = tools.map((h) => `${h.server}/${h.name}`);
      if (ranks[0] === expect) hit1++;
      if (ranks.includes(expect)) hit5++;
      else misses.push(`${q} -> ${ranks.join(', ')} (meant ${expect})`);
    }
    t.diagnostic(`hit@1 ${hit1}/${QUESTIONS.length}, hit@5 ${hit5}/${QUESTIONS.length}`);
    for (const m of misses) t.diagnostic(`miss: ${m}`);
    assert.equal(QUESTIONS.length, 30);
    assert.ok(hit5 / QUESTIONS.length >= 0.9, `hit@5 ${hit5}/30: ${misses.join(' | ')}`);
  });

  test('a hit is what mcpx_call takes: server, upstream name, one-line description, the listed input schema', async () => {
    const { tools } = await search(legacy, { query: 'commit the staged work with a message', limit: 3 });
    const top = tools[0]!;
    assert.deepEqual([top.server, top.name], ['git', 'git_commit']);
    const listed = CATALOG.git!.find((t) => t.name === 'git_commit')!;
    assert.deepEqual(top.inputSchema, listed.inputSchema);
    assert.equal(top.description, listed.description);
    assert.ok(!top.description.includes('\n'));
    // Called at once with what the hit says.
    const called = await legacy.request('tools/call', {
      name: 'mcpx_call',
      arguments: { server: top.server, tool: top.name, arguments: { repo_path: '/r', message: 'm' } },
    });
    assert.deepEqual(called.result?.content, [{ type: 'text', text: '{"repo_path":"/r","message":"m"}' }]);
  });

  test('every revision lists mcpx_search and gets its hits (as text where structuredContent is unknown)', async () => {
    for (const rev of ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const) {
      const c = new HttpClient(gw.url, rev);
      if (rev !== '2026-07-28') await c.initialize();
      const listed = ((await c.request('tools/list')).result!.tools as Json[]).find((t) => t.name === 'mcpx_search');
      assert.deepEqual((listed?.inputSchema as Json | undefined)?.required, ['query'], rev);
      const ex = await c.request('tools/call', {
        name: 'mcpx_search',
        arguments: { query: 'who last modified each line', limit: 1 },
      });
      const text = String(((ex.result!.content as Json[])[0] as Json).text);
      assert.equal((JSON.parse(text) as { tools: Hit[] }).tools[0]?.name, 'git_blame', rev);
    }
  });

  test('limit: 10 by default, as asked up to 50, and out of bounds refused', async () => {
    assert.equal((await search(modern, { query: 'list' })).tools.length, 10);
    assert.equal((await search(modern, { query: 'list', limit: 3 })).tools.length, 3);
    assert.ok((await search(modern, { query: 'list', limit: 50 })).tools.length > 10);
    for (const limit of [0, 51, 2.5]) {
      const { result } = await search(modern, { query: 'list', limit });
      assert.equal(result.isError, true, `limit ${limit} is refused`);
    }
  });

  test('server: only that server is searched; an unknown server is an error naming it', async () => {
    const { tools } = await search(modern, { query: 'create a new branch', server: 'github', limit: 50 });
    assert.ok(tools.length > 0);
    assert.ok(tools.every((h) => h.server === 'github'));
    assert.equal(tools[0]!.name, 'create_branch');
    const unknown = await modern.request('tools/call', {
      name: 'mcpx_search',
      arguments: { query: 'x', server: 'nope' },
    });
    assert.match(JSON.stringify(unknown.error ?? unknown.result), /nope/);
  });

  test("mcpx_tools' query uses the same index: every word matched, best first, its own entry shape", async () => {
    const ex = await modern.request('tools/call', { name: 'mcpx_tools', arguments: { query: 'pull requests' } });
    const tools = (ex.result!.structuredContent as Json).tools as Json[];
    assert.ok(tools.length >= 5);
    for (const t of tools) {
      assert.equal(t.server, 'github');
      assert.equal(t.name, `github_${String(t.tool)}`, 'the name a client calls it under');
      assert.match(`${String(t.tool)} ${String(t.description)}`, /pull/i);
    }
    // Ranked, not sorted by name: a tool named for pull requests leads.
    assert.match(String(tools[0]!.tool), /pull_request/);
    // A word may be misspelt slightly.
    const typo = await modern.request('tools/call', { name: 'mcpx_tools', arguments: { query: 'kubernets pods' } });
    // Both name a Kubernetes pod; the one named for pods leads.
    assert.deepEqual(
      ((typo.result!.structuredContent as Json).tools as Json[]).map((t) => t.tool),
      ['kubectl_get_pods', 'kubectl_logs'],
    );
  });
});

describe('mcpx_search follows list changes', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await gatewayFor({
      vault: server('memory', '--extra', 'rotate_signing_keys|Rotate the API signing keys and revoke the old ones.|'),
    });
  });
  after(async () => {
    await gw.close();
  });

  test('a tool that appears after list_changed is found by the next search', async () => {
    const c = new HttpClient(gw.url, '2026-07-28');
    const before = await search(c, { query: 'rotate signing keys' });
    assert.ok(!before.tools.some((h) => h.name === 'rotate_signing_keys'), 'not listed yet');
    const changed = new Promise<void>((resolve) => {
      const off = gw.g.onEvent((e) => {
        if (e.type === 'list.changed' && e.server === 'vault') {
          off();
          resolve();
        }
      });
    });
    await c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'vault', tool: 'catalog_reveal' } });
    await changed;
    const { tools } = await search(c, { query: 'rotate signing keys' });
    assert.deepEqual([tools[0]?.server, tools[0]?.name], ['vault', 'rotate_signing_keys']);
    // The server's documents were replaced, not added to: each tool is found once.
    const all = await search(c, { query: 'rotate signing keys entity graph', limit: 50 });
    const names = all.tools.map((h) => h.name);
    assert.equal(new Set(names).size, names.length);
  });
});

describe('mcpx_search follows a reload', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await gatewayFor({ git: server('git') });
  });
  after(async () => {
    await gw.close();
  });

  test("a server added is searched, one removed is not, one given a tools.deny loses those tools' hits", async () => {
    const c = new HttpClient(gw.url, '2026-07-28');
    const reload = (servers: Json) =>
      gw.g.reload(
        parseConfig({ servers }, 'test', { env: process.env }),
        new Settings([{ source: 'flag', values: { 'pool.probeTimeout': '1s', 'pool.startTimeout': '5s' } }]),
      );
    const top = async (query: string) => (await search(c, { query })).tools.map((h) => `${h.server}/${h.name}`);
    assert.ok(!(await top('open a bug report issue on github')).includes('github/create_issue'));
    assert.equal((await top('commit the staged work'))[0], 'git/git_commit');
    await reload({ git: server('git'), github: server('github') });
    assert.ok((await top('open a bug report issue on github')).includes('github/create_issue'));
    await reload({ github: { ...server('github'), tools: { deny: ['create_issue'] } } });
    const after = await top('open a bug report issue on github');
    assert.ok(after.length > 0 && !after.includes('github/create_issue'), 'denied: not a hit');
    assert.ok(!(await top('commit the staged work')).some((h) => h.startsWith('git/')), 'git is gone');
  });
});

describe('mcpx_search and a hostile upstream', () => {
  let gw: TestGateway;
  // A 10 KB description: its start is indexed, what lies past 2,000 characters is not.
  const description = `quasar calibration ${'filler '.repeat(1500)}zeppelin`;
  before(async () => {
    const tool = { name: 'long_winded', description, inputSchema: { type: 'object' } };
    gw = await gatewayFor({
      h: {
        command: process.execPath,
        args: [fixture('upstream/hostile'), '--tool-json', JSON.stringify([{ tool, result: { content: [] } }])],
      },
    });
  });
  after(async () => {
    await gw.close();
  });

  test('a huge description is indexed only up to its bound, and a hit shows one short line', async () => {
    const c = new HttpClient(gw.url, '2026-07-28');
    const { tools } = await search(c, { query: 'quasar calibration' });
    assert.deepEqual([tools[0]?.server, tools[0]?.name], ['h', 'long_winded']);
    assert.ok(tools[0]!.description.length <= 200 && tools[0]!.description.startsWith('quasar calibration'));
    assert.ok(!(await search(c, { query: 'zeppelin' })).tools.some((h) => h.name === 'long_winded'));
  });
});
