// npm run bench: mcpx's server against the floor, then the gateway (bench/gateway.ts: through an upstream,
// against mcp-proxy), in one run, on this machine. Writes docs/performance.md with both sections.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifactsBench, artifactsReport } from './artifacts';
import { execBench, execReport } from './exec';
import { floodBench, floodReport } from './flood';
import { pinsBench, pinsReport } from './pins';
import { sandboxBench, sandboxReport } from './sandbox';
import { searchBench, searchReport } from './search';
import { reloadBench, reloadReport } from './reload';
import { shimBench, shimReport } from './shim';
import { teamBench, teamReport } from './team';
import { gatewayBench } from './gateway';
import { governanceBench } from './governance';
import { guardrailsBench } from './guardrails';
import { SMOKE, type Figures, fmt, httpLoad, size, startProcess, stdioLoad, stop } from './lib';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const floorJs = join(__dirname, 'floor.js');
const MS = size(3000, 200, 'BENCH_MS');
const WARM_MS = size(300, 50);

const legacyHeaders = { 'Content-Type': 'application/json', Accept: 'application/json' };
const ping = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`;
const modernCall = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'mcpx_servers',
      arguments: {},
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
const modernHeaders = {
  ...legacyHeaders,
  'MCP-Protocol-Version': '2026-07-28',
  'Mcp-Method': 'tools/call',
  'Mcp-Name': 'mcpx_servers',
};

interface Row {
  what: string;
  clients: number;
  mcpx: Figures;
  floor: Figures;
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const floor = await startProcess(process.execPath, [floorJs], /listening on (\S+)/);
  const mcpx = await startProcess(process.execPath, [cli, 'daemon', '--port', '0'], /listening on (\S+)/);
  let id = 1;
  try {
    for (const clients of [1, 16]) {
      for (const [what, body, headers] of [
        ['ping (2025-03-26, headerless)', () => ping(id++), legacyHeaders],
        ['tools/call (2026-07-28)', () => modernCall(id++), modernHeaders],
      ] as const) {
        await httpLoad(mcpx.match, body, headers, clients, WARM_MS); // warm-up
        const m = await httpLoad(mcpx.match, body, headers, clients, MS);
        const f = await httpLoad(floor.match, body, headers, clients, MS);
        rows.push({ what: `HTTP ${what}`, clients, mcpx: m, floor: f });
        process.stdout.write(`HTTP ${what} x${clients}: mcpx ${fmt(m)} | floor ${fmt(f)}\n`);
      }
    }
  } finally {
    await stop(mcpx.child);
    await stop(floor.child);
  }
  for (const clients of [1, 16]) {
    const { spawn } = await import('node:child_process');
    const m = spawn(process.execPath, [cli, 'serve', '--transport', 'stdio', '--standalone'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const f = spawn(process.execPath, [floorJs, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
    await stdioLoad(m, ping, clients, WARM_MS);
    const mf = await stdioLoad(m, ping, clients, MS);
    const ff = await stdioLoad(f, ping, clients, MS);
    m.stdin.end();
    f.stdin.end();
    await Promise.all([stop(m), stop(f)]);
    rows.push({ what: 'stdio ping', clients, mcpx: mf, floor: ff });
    process.stdout.write(`stdio ping x${clients}: mcpx ${fmt(mf)} | floor ${fmt(ff)}\n`);
  }
  const gateway = await gatewayBench(MS);
  const flood = await floodBench();
  const shim = await shimBench();
  const exec = await execBench();
  const reload = await reloadBench();
  const governance = await governanceBench(MS);
  const guardrails = await guardrailsBench(MS);
  const pins = await pinsBench();
  const search = await searchBench();
  const sandbox = await sandboxBench();
  const artifacts = await artifactsBench();
  const team = await teamBench();
  // Memory per idle legacy session (bench/sessions.ts), in its own process.
  const { execFileSync } = await import('node:child_process');
  const sessions = execFileSync(process.execPath, [join(__dirname, 'sessions.js'), String(size(1000, 20))], {
    encoding: 'utf8',
  }).trim();
  const lines = [
    '# Performance',
    '',
    `Written by \`npm run bench\` (bench/run.ts, then bench/gateway.ts) on ${new Date().toISOString().slice(0, 10)}: generated, do not edit.`,
    'Each floor is a trivial node:http (or stdio) responder driven by the same client in the same run; the',
    'ratio is what matters, not the absolute numbers (these machines are noisy).',
    '',
    '## Server core (bench/run.ts)',
    '',
    `${MS} ms per cell, on this project's 2-core machine; mcpx here has no upstream (ping, and its own tool mcpx_servers).`,
    '',
    '| what | clients | mcpx req/s | floor req/s | floor/mcpx | mcpx p50 ms | mcpx p99 ms | floor p50 ms | floor p99 ms |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.what} | ${r.clients} | ${r.mcpx.rps.toFixed(0)} | ${r.floor.rps.toFixed(0)} | ${(r.floor.rps / r.mcpx.rps).toFixed(2)}x | ${r.mcpx.p50.toFixed(2)} | ${r.mcpx.p99.toFixed(2)} | ${r.floor.p50.toFixed(2)} | ${r.floor.p99.toFixed(2)} |`,
    ),
    '',
    ...gateway,
    '',
    '### Idle sessions (bench/sessions.ts)',
    '',
    `${sessions}: each session did initialize and notifications/initialized, then was left open.`,
    '',
    ...floodReport(flood),
    '',
    ...shimReport(shim),
    '',
    ...execReport(exec),
    '',
    ...reloadReport(reload),
    '',
    ...governance,
    '',
    ...guardrails,
    '',
    ...pinsReport(pins),
    '',
    ...searchReport(search),
    '',
    ...sandboxReport(sandbox),
    ...artifactsReport(artifacts),
    '',
    ...teamReport(team),
  ];
  // The smoke's figures mean nothing: they are printed, never written over the measured ones.
  if (SMOKE) process.stdout.write(`${lines.join('\n')}\nbench: smoke run complete (BENCH_SMOKE=1)\n`);
  else writeFileSync(join(root, 'docs', 'performance.md'), lines.join('\n'));
}

main().catch((e) => {
  process.stderr.write(`bench: ${(e as Error).stack}\n`);
  process.exit(1);
});
