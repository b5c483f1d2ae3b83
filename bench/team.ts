// node build/bench/team.js: what the team's store costs a call (docs/team.md). One `mcpx daemon` with its
// state in the state directory (one person's), then one replica with store.url naming a real Redis
// (Debian's redis-server, started here), each in front of the same stdio fixture in pass-through; a
// 2026-07-28 tools/call of `echo` — a call that needs no shared state: the store is off its path but for
// the activity record, appended without waiting — from 1 and 16 keep-alive clients, BENCH_MS each, in
// one run. run.ts calls teamBench() and writes its section into docs/performance.md.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { haveRedis, startRedis } from '../test/harness/redis';
import { type Figures, fmt, httpLoad, runAlone, stop } from './lib';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const fixture = join(root, 'build', 'test', 'fixtures', 'upstream', 'server.js');
const MS = Number(process.env.BENCH_MS ?? 3000);
const CLIENTS = [1, 16];

const call = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'echo',
      arguments: { text: 'hi' },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'dev.mcpx/session': 'bench',
      },
    },
  });
const headers = {
  'Content-Type': 'application/json',
  Accept: 'application/json',
  'MCP-Protocol-Version': '2026-07-28',
  'Mcp-Method': 'tools/call',
  'Mcp-Name': 'echo',
};

async function daemon(home: string, store?: string): Promise<{ child: ChildProcess; endpoint: string }> {
  const config = join(home, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({ servers: { up: { command: process.execPath, args: [fixture, '--rev', '2025-11-25'] } } }),
  );
  const args = [cli, 'daemon', '--port', '0', '--config', config, '--passthrough', 'up'];
  const env = {
    ...process.env,
    XDG_STATE_HOME: home,
    XDG_CONFIG_HOME: home,
    MCPX_PORT: '',
    MCPX_STORE_KEY: 'bench-store-key-0123456789abcdefghijkl',
  };
  const child = spawn(process.execPath, store ? [...args, '--store', store] : args, {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const endpoint = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (l) => {
      const m = /mcpx listening on (\S+)/.exec(l);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`mcpx daemon exited with ${code}`)));
  });
  return { child, endpoint };
}

type Cell = { clients: number; local: Figures; redis: Figures };
export type TeamFigures = { cells: Cell[] } | { skipped: string };

async function load(endpoint: string, clients: number): Promise<Figures> {
  let id = 1;
  await httpLoad(endpoint, () => call(id++), headers, clients, 300); // warm-up: the upstream started
  return httpLoad(endpoint, () => call(id++), headers, clients, MS);
}

export async function teamBench(): Promise<TeamFigures> {
  if (!haveRedis()) return { skipped: 'redis-server is not installed here (scripts/redis/setup.sh installs it)' };
  const redis = await startRedis();
  const homes = [mkdtempSync(join(tmpdir(), 'mcpx-bench-team-')), mkdtempSync(join(tmpdir(), 'mcpx-bench-team-'))];
  const local = await daemon(homes[0]!);
  const replica = await daemon(homes[1]!, redis.url);
  try {
    const cells: Cell[] = [];
    for (const clients of CLIENTS) {
      const l = await load(local.endpoint, clients);
      const r = await load(replica.endpoint, clients);
      process.stdout.write(`team x${clients}: local ${fmt(l)} | redis ${fmt(r)}\n`);
      cells.push({ clients, local: l, redis: r });
    }
    return { cells };
  } finally {
    await stop(local.child);
    await stop(replica.child);
    await redis.close();
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  }
}

export function teamReport(f: TeamFigures): string[] {
  const head = [
    '### A team replica on Redis (bench/team.ts)',
    '',
    `One \`mcpx daemon\` keeping its state in the state directory, and one with store.url naming a local redis-server, each in front of the same stdio fixture in pass-through; a 2026-07-28 tools/call of echo (no shared state on its path: the activity record is appended to the store without waiting), ${MS} ms per cell.`,
    '',
  ];
  if ('skipped' in f) return [...head, `Not measured: ${f.skipped}.`];
  return [
    ...head,
    '| clients | local req/s | Redis req/s | Redis/local | local p50 ms | Redis p50 ms | local p99 ms | Redis p99 ms |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...f.cells.map(
      (c) =>
        `| ${c.clients} | ${c.local.rps.toFixed(0)} | ${c.redis.rps.toFixed(0)} | ${(c.redis.rps / c.local.rps).toFixed(2)}x | ${c.local.p50.toFixed(2)} | ${c.redis.p50.toFixed(2)} | ${c.local.p99.toFixed(2)} | ${c.redis.p99.toFixed(2)} |`,
    ),
  ];
}

// Run alone (`node build/bench/team.js`); bundled into run.js it only exports.
runAlone('team.js', teamBench, teamReport);
