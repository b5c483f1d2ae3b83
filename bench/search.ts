// node build/bench/search.js: what tool search saves and costs (docs/gateway.md "Tool search"). In
// process, a gateway in front of real stdio servers:
// - the size of `tools/list` for a realistic set — the npm reference servers installed under
//   node_modules (server-everything, -memory, -filesystem, -sequential-thinking: whichever are there; no
//   download) plus servers of test/fixtures/search/tools.json up to 10 — in pass-through (every tool
//   listed), aggregated (the gateway's own tools) and search mode (mcpx_search, mcpx_call and
//   mcpx_describe only): bytes of the result's JSON and tokens estimated as bytes / 4;
// - over the 10 × 30 fixture tools: mcpx_search latency p50/p99 (each of the 30 questions ROUNDS times,
//   through the tool's handle, lists cached as every client finds them) and hit@1 / hit@5 on the 30
//   questions of test/fixtures/search/questions.json.
// run.ts calls searchBench() and writes its section into docs/performance.md.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../src/config/file';
import { Settings } from '../src/config/settings';
import { Gateway } from '../src/gateway/gateway';
import type { JsonObject } from '../src/protocol/jsonrpc';
import { editorContext } from '../src/vscode/editorCall';
import { catalog } from '../test/fixtures/search/data';
import { runAlone, size } from './lib';

const root = join(__dirname, '..', '..');
const catalogJs = join(root, 'build', 'test', 'fixtures', 'search', 'catalog.js');
const ROUNDS = size(20, 1, 'BENCH_ROUNDS');
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

const fixtureServer = (name: string) => ({ command: process.execPath, args: [catalogJs, '--server', name] });

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
  p50: number;
  p99: number;
  hit1: number;
  hit5: number;
  questions: number;
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

  // Latency and quality over the 10 × 30 fixture tools.
  const questions = (
    JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'search', 'questions.json'), 'utf8')) as {
      questions: Array<{ q: string; expect: string }>;
    }
  ).questions;
  const all = Object.fromEntries(Object.keys(catalog()).map((s) => [s, fixtureServer(s)]));
  return withGateway(all, [], async (g) => {
    const h = (await g.resolveTool('mcpx_search', ctx))!;
    const ask = async (query: string, limit = 5) =>
      ((await h.call({ query, limit }, ctx)).structuredContent as { tools: Array<{ server: string; name: string }> })
        .tools;
    let hit1 = 0;
    let hit5 = 0;
    for (const { q, expect } of questions) {
      const found = (await ask(q)).map((t) => `${t.server}/${t.name}`);
      if (found[0] === expect) hit1++;
      if (found.includes(expect)) hit5++;
    }
    const times: number[] = [];
    for (let r = 0; r < ROUNDS; r++)
      for (const { q } of questions) {
        const t = performance.now();
        await ask(q, 10);
        times.push(performance.now() - t);
      }
    return {
      servers: names,
      listings,
      p50: pct(times, 0.5),
      p99: pct(times, 0.99),
      hit1,
      hit5,
      questions: questions.length,
    };
  });
}

export function searchReport(f: SearchFigures): string[] {
  const n = f.questions;
  return [
    '### Tool search (bench/search.ts)',
    '',
    `\`tools/list\` of a gateway in front of ${f.servers.length} stdio servers (${f.servers.join(', ')}): the npm reference servers installed, then servers of test/fixtures/search/tools.json (30 tools each). Bytes of the result's JSON; tokens estimated as bytes / 4 (no tokenizer is run).`,
    '',
    '| mode | tools listed | bytes | ≈ tokens |',
    '| --- | --- | --- | --- |',
    ...f.listings.map((l) => `| ${l.mode} | ${l.tools} | ${l.bytes} | ${Math.round(l.bytes / 4)} |`),
    '',
    `mcpx_search over the 10 × 30 fixture tools, in process (the lists cached), ${ROUNDS} × ${n} questions, limit 10:`,
    '',
    '| what | figure |',
    '| --- | --- |',
    `| latency p50 | ${f.p50.toFixed(3)} ms |`,
    `| latency p99 | ${f.p99.toFixed(3)} ms |`,
    `| hit@1 on the ${n} questions (test/fixtures/search/questions.json) | ${f.hit1}/${n} = ${(f.hit1 / n).toFixed(2)} |`,
    `| hit@5 | ${f.hit5}/${n} = ${(f.hit5 / n).toFixed(2)} |`,
  ];
}

// Run alone (`node build/bench/search.js`); bundled into run.js it only exports.
runAlone('search.js', searchBench, searchReport);
