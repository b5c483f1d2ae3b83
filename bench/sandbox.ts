// node build/bench/sandbox.js: what the upstream sandbox costs (docs/security.md "The upstream sandbox").
// One stdio fixture server (2025-11-25) behind an in-process gateway, sandboxed (bubblewrap, no network)
// and not: spawn → first answer (a fresh gateway each round: the process started, the era probed, one
// mcpx_call echo answered; median of STARTS), and calls/s of mcpx_call echo on a running instance
// (CALLS sequential calls, then CLIENTS in parallel for the same count). The sandbox is paid at the
// start; a call crosses the same pipes. run.ts calls sandboxBench() and writes its section into
// docs/performance.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../src/config/file';
import { Settings } from '../src/config/settings';
import { Gateway } from '../src/gateway/gateway';
import { editorContext } from '../src/vscode/editorCall';
import { median, runAlone, size } from './lib';

const root = join(__dirname, '..', '..');
const fixture = join(root, 'build', 'test', 'fixtures', 'upstream', 'server.js');
const STARTS = size(15, 1, 'BENCH_STARTS');
const CALLS = size(2000, 50, 'BENCH_CALLS');
const CLIENTS = 8;

function gateway(sandbox: boolean, dir: string): Gateway {
  const servers = {
    up: { command: process.execPath, args: [fixture, '--rev', '2025-11-25', '--name', 'up'], sandbox },
  };
  const config = parseConfig({ servers, roots: [dir] }, 'bench', { env: process.env });
  return new Gateway(config, new Settings(), { stateDir: dir });
}

const echo = (g: Gateway) =>
  g.callTool('mcpx_call', { server: 'up', tool: 'echo', arguments: { text: 'x' } }, editorContext());

interface Side {
  startMs: number;
  sequential: number;
  parallel: number;
}

async function side(sandbox: boolean): Promise<Side> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-sandbox-'));
  try {
    const starts: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      const g = gateway(sandbox, dir);
      const t = performance.now();
      const r = await echo(g);
      starts.push(performance.now() - t);
      if (r.isError) throw new Error(`the first call failed: ${JSON.stringify(r)}`);
      await g.close();
    }
    const g = gateway(sandbox, dir);
    try {
      await echo(g);
      let t = performance.now();
      for (let i = 0; i < CALLS; i++) await echo(g);
      const sequential = (CALLS / (performance.now() - t)) * 1000;
      t = performance.now();
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          for (let i = 0; i < CALLS / CLIENTS; i++) await echo(g);
        }),
      );
      const parallel = (CALLS / (performance.now() - t)) * 1000;
      return { startMs: median(starts), sequential, parallel };
    } finally {
      await g.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface SandboxFigures {
  off: Side;
  on: Side;
}

export async function sandboxBench(): Promise<SandboxFigures> {
  const off = await side(false);
  const on = await side(true);
  return { off, on };
}

export function sandboxReport(f: SandboxFigures): string[] {
  const row = (what: string, s: Side) =>
    `| ${what} | ${s.startMs.toFixed(1)} ms | ${s.sequential.toFixed(0)} | ${s.parallel.toFixed(0)} |`;
  return [
    '### The upstream sandbox (bench/sandbox.ts)',
    '',
    `One stdio fixture server behind an in-process gateway: spawn → first answer (median of ${STARTS} fresh gateways), and \`mcpx_call\` echo per second (${CALLS} calls: one at a time, then ${CLIENTS} at once).`,
    '',
    `| server | spawn → first answer | calls/s, sequential | calls/s, ×${CLIENTS} |`,
    '| --- | --- | --- | --- |',
    row('unsandboxed', f.off),
    row('sandboxed (bubblewrap, no network)', f.on),
  ];
}

// Run alone (`node build/bench/sandbox.js`); bundled into run.js it only exports.
runAlone('sandbox.js', sandboxBench, sandboxReport);
