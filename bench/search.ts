// node build/bench/search.js: what tool search saves and costs (docs/gateway.md "Tool search"). In
// process, a gateway in front of real stdio servers:
// - the size of `tools/list` for a realistic set — the npm reference servers installed under
//   node_modules (server-everything, -memory, -filesystem, -sequential-thinking: whichever are there; no
//   download) plus servers of test/fixtures/search/tools.json up to 10 — in pass-through (every tool
//   listed), aggregated (the gateway's own tools) and search mode (mcpx_search, mcpx_call and
//   mcpx_describe only): bytes of the result's JSON and tokens estimated as bytes / 4;
// - quality: hit@1 / hit@5 of the evaluation queries (test/fixtures/search/real/queries.json, each half,
//   and the fresh held-out set real/queries-fresh.json) over the 18 real servers' tools
//   (real/servers.json), and of the 30 questions of
//   test/fixtures/search/questions.json over the 10 × 30 fixture tools;
// - latency over 1,023 tools (the real servers' 123 and the fixture servers' 300 three times over):
//   mcpx_search p50/p99, every query of the three sets ROUNDS times, through the tool's handle, lists cached
//   as every client finds them.
// run.ts calls searchBench() and writes its section into docs/performance.md.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../src/config/file';
import { Settings } from '../src/config/settings';
import { Gateway } from '../src/gateway/gateway';
import type { JsonObject } from '../src/protocol/jsonrpc';
import { editorContext } from '../src/vscode/editorCall';
import { catalog, evalQueries, freshQueries, realServers } from '../test/fixtures/search/data';
import { type HalfFigures, evaluate, ratio } from '../test/fixtures/search/evaluate';
import { runAlone, size } from './lib';

const root = join(__dirname, '..', '..');
const catalogJs = join(root, 'build', 'test', 'fixtures', 'search', 'catalog.js');
const ROUNDS = size(10, 1, 'BENCH_ROUNDS');
const SERVERS = 10;

/** The reference servers, as test/gateway-thirdparty.test.ts starts them, where installed. */
const REFERENCE: Record<string, string[]> = {
  everything: ['server-everything/dist/index.js', 'stdio'],
  memory: ['server-memory/dist/index.js'],
  filesystem: ['server-filesystem/dist/index.js', tmpdir()],
  'sequential-thinking': ['server-sequential-thinking/dist/index.js'],
};

function referenceServers(): Record<string, { command: string; args: string[] }> {
  const out: Record<string, { command: string; args: string[] }> = {};
  for (const [name, [path, ...args]] of Object.entries(REFERENCE)) {
    const js = join(root, 'node_modules', '@modelcontextprotocol', path!);
    if (existsSync(js)) out[name] = { command: process.execPath, args: [js, ...args] };
  }
  return out;
}

const fixtureServer = (name: string, ...more: string[]) => ({
  command: process.execPath,
  args: [catalogJs, '--server', name, ...more],
});
const realServer = (name: string) => ({ command: process.execPath, args: [catalogJs, '--real', name] });

async function withGateway<T>(
  servers: Record<string, unknown>,
  passthrough: string[],
  run: (g: Gateway) => Promise<T>,
  profiles?: Record<string, unknown>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-search-'));
  const settings = new Settings([
    { source: 'flag', values: { 'mcp.passthrough': passthrough, 'pool.startTimeout': '30s' } },
  ]);
  const config = parseConfig({ servers, ...(profiles ? { profiles } : {}) }, 'bench', { env: process.env });
  const g = new Gateway(config, settings, { stateDir: dir });
  try {
    return await run(g);
  } finally {
    await g.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const bytes = (tools: JsonObject[]) => Buffer.byteLength(JSON.stringify({ tools }));

interface Listing {
  mode: string;
  tools: number;
  bytes: number;
}

interface SearchFigures {
  servers: string[];
  listings: Listing[];
  /** Tools indexed where latency was measured, and the searches timed. */
  tools: number;
  searches: number;
  /** Mean CPU time of one search (the process's user and system time over them all): what the machine's
   *  load does not inflate as it does the wall-clock percentiles. */
  cpu: number;
  p50: number;
  p99: number;
  real: Record<'tune' | 'held' | 'fresh', HalfFigures>;
  fixture: HalfFigures;
}

type Ask = (query: string, limit?: number) => Promise<string[]>;

/** mcpx_search of a gateway, through the tool's handle: `server/tool`s, best first. */
async function asker(g: Gateway): Promise<Ask> {
  const ctx = editorContext();
  const h = (await g.resolveTool('mcpx_search', ctx))!;
  return async (query, limit = 5) =>
    (
      (await h.call({ query, limit }, ctx)).structuredContent as { tools: Array<{ server: string; name: string }> }
    ).tools.map((t) => `${t.server}/${t.name}`);
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

export async function searchBench(): Promise<SearchFigures> {
  const ctx = editorContext();
  // The realistic set: the reference servers installed, then fixture servers not sharing their names.
  const refs = referenceServers();
  const realistic: Record<string, unknown> = { ...refs };
  for (const name of Object.keys(catalog())) {
    if (Object.keys(realistic).length >= SERVERS) break;
    if (!(name in realistic)) realistic[name] = fixtureServer(name);
  }
  const names = Object.keys(realistic);
  const listings: Listing[] = [];
  const pass = await withGateway(realistic, names, (g) => g.listTools(ctx));
  listings.push({ mode: 'pass-through (every tool)', tools: pass.length, bytes: bytes(pass) });
  const own = await withGateway(realistic, [], (g) => g.listTools(ctx));
  listings.push({ mode: 'aggregated (the gateway tools)', tools: own.length, bytes: bytes(own) });
  // Search mode as a profile lists it (docs/gateway.md "Profiles"): mcpx_search and mcpx_call, no pinned tools.
  const search = await withGateway(realistic, [], (g) => g.listTools({ ...ctx, profile: 'search' }), {
    search: { servers: names, mode: 'search' },
  });
  listings.push({
    mode: `search profile (${search.map((t) => t.name).join(', ')})`,
    tools: search.length,
    bytes: bytes(search),
  });

  // Quality: the evaluation queries over the real servers; the 30 questions over the fixture servers.
  const real = await withGateway(
    Object.fromEntries(Object.keys(realServers()).map((s) => [s, realServer(s)])),
    [],
    async (g) => evaluate([...evalQueries(), ...freshQueries()], await asker(g)),
  );
  const fixtureQuestions = (
    JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'search', 'questions.json'), 'utf8')) as {
      questions: Array<{ q: string; expect: string }>;
    }
  ).questions.map(({ q, expect }) => ({ q, expect: [expect], half: 'held' as const }));
  const fixture = await withGateway(
    Object.fromEntries(Object.keys(catalog()).map((s) => [s, fixtureServer(s)])),
    [],
    async (g) => (await evaluate(fixtureQuestions, await asker(g))).held,
  );
  // Latency over 1,000 tools: the real servers and the fixture servers three times over.
  const many = {
    ...Object.fromEntries(Object.keys(realServers()).map((s) => [s, realServer(s)])),
    ...Object.fromEntries(Object.keys(catalog()).map((s) => [`${s}-x3`, fixtureServer(s, '--copies', '3')])),
  };
  const queries = [...evalQueries(), ...freshQueries(), ...fixtureQuestions].map((x) => x.q);
  return withGateway(many, [], async (g) => {
    const ask = await asker(g);
    const times: number[] = [];
    const cpu0 = process.cpuUsage();
    for (let r = 0; r < ROUNDS; r++)
      for (const q of queries) {
        const t = performance.now();
        await ask(q, 10);
        times.push(performance.now() - t);
      }
    const cpu = process.cpuUsage(cpu0);
    const tools =
      Object.values(realServers()).reduce((n, s) => n + s.tools.length, 0) +
      3 * Object.values(catalog()).reduce((n, s) => n + s.length, 0);
    return {
      servers: names,
      listings,
      tools,
      searches: times.length,
      cpu: (cpu.user + cpu.system) / 1000 / times.length,
      p50: pct(times, 0.5),
      p99: pct(times, 0.99),
      real,
      fixture,
    };
  });
}

export function searchReport(f: SearchFigures): string[] {
  const row = (what: string, h: HalfFigures) =>
    `| ${what} | ${h.queries} | ${ratio(h.hit1, h.queries)} | ${ratio(h.hit5, h.queries)} |`;
  return [
    '### Tool search (bench/search.ts)',
    '',
    `\`tools/list\` of a gateway in front of ${f.servers.length} stdio servers (${f.servers.join(', ')}): the npm reference servers installed, then servers of test/fixtures/search/tools.json (30 tools each). Bytes of the result's JSON; tokens estimated as bytes / 4 (no tokenizer is run).`,
    '',
    '| mode | tools listed | bytes | ≈ tokens |',
    '| --- | --- | --- | --- |',
    ...f.listings.map((l) => `| ${l.mode} | ${l.tools} | ${l.bytes} | ${Math.round(l.bytes / 4)} |`),
    '',
    'Quality of mcpx_search, limit 5 (docs/gateway.md "Tool search"):',
    '',
    '| queries | answerable | hit@1 | hit@5 |',
    '| --- | --- | --- | --- |',
    row('test/fixtures/search/real/queries.json, held-out half (18 real servers, 123 tools)', f.real.held),
    row('the same, tuning half', f.real.tune),
    row('test/fixtures/search/real/queries-fresh.json, the fresh held-out set (the same servers)', f.real.fresh),
    row('test/fixtures/search/questions.json (10 × 30 fixture tools)', f.fixture),
    '',
    `mcpx_search latency over ${f.tools} tools (the real servers, and the fixture servers' tools three times over), in process (the lists cached), ${f.searches} searches (every query of the three sets ${ROUNDS} times), limit 10:`,
    '',
    '| what | figure |',
    '| --- | --- |',
    `| latency p50 | ${f.p50.toFixed(3)} ms |`,
    `| latency p99 | ${f.p99.toFixed(3)} ms |`,
    `| CPU time per search (mean) | ${f.cpu.toFixed(3)} ms |`,
  ];
}

// Run alone (`node build/bench/search.js`); bundled into run.js it only exports.
runAlone('search.js', searchBench, searchReport);
