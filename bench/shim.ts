// The stdio shim's start: from spawning `mcpx serve --transport stdio` to the first answer (initialize),
// through the shim onto a running daemon against `--standalone` (a whole gateway in the process), in one
// run. run.ts calls shimBench() and writes its section into docs/performance.md; `node build/bench/shim.js`
// runs it alone.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { size } from './lib';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const RUNS = size(15, 2, 'SHIM_RUNS');

const INIT = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
})}\n`;

const CALL = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'mcpx_call', arguments: { server: 'up', tool: 'echo', arguments: { text: 'x' } } },
})}\n`;

/** Milliseconds from spawn to the initialize answer, and to the first tool result (an upstream's echo). */
async function firstAnswers(args: string[], env: NodeJS.ProcessEnv): Promise<{ init: number; call: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const lines = createInterface({ input: child.stdout });
  const next = () => new Promise<void>((resolve) => lines.once('line', () => resolve()));
  child.stdin.write(INIT);
  await next();
  const init = performance.now() - t0;
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${CALL}`);
  await next();
  const call = performance.now() - t0;
  child.stdin.end();
  await new Promise((r) => child.once('exit', r));
  return { init, call };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export interface ShimFigures {
  shim: { init: number; call: number };
  standalone: { init: number; call: number };
  runs: number;
}

export async function shimBench(): Promise<ShimFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-shim-'));
  const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, MCPX_PORT: '' };
  const config = join(dir, 'mcp.json');
  const fixture = join(root, 'build', 'test', 'fixtures', 'upstream', 'server.js');
  writeFileSync(
    config,
    JSON.stringify({ servers: { up: { command: process.execPath, args: [fixture, '--rev', '2025-11-25'] } } }),
  );
  const daemon: ChildProcess = spawn(process.execPath, [cli, 'daemon', '--port', '0', '--config', config], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    const line = await new Promise<string>((r) => createInterface({ input: daemon.stdout! }).once('line', r));
    const url = /mcpx listening on (\S+)/.exec(line)![1]!;
    const shim: Array<{ init: number; call: number }> = [];
    const standalone: Array<{ init: number; call: number }> = [];
    for (let i = 0; i < RUNS; i++) {
      shim.push(await firstAnswers(['serve', '--transport', 'stdio', '--connect', url], env));
      standalone.push(await firstAnswers(['serve', '--transport', 'stdio', '--standalone', '--config', config], env));
    }
    const of = (xs: Array<{ init: number; call: number }>) => ({
      init: median(xs.map((x) => x.init)),
      call: median(xs.map((x) => x.call)),
    });
    return { shim: of(shim), standalone: of(standalone), runs: RUNS };
  } finally {
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

export function shimReport(f: ShimFigures): string[] {
  return [
    '### The stdio shim (bench/shim.ts)',
    '',
    `Spawn to the first answers, median of ${f.runs} runs each, alternating, the shim onto a running daemon against \`--standalone\` (a whole gateway in the process, its upstream started cold):`,
    '',
    '| | shim | --standalone | standalone / shim |',
    '| --- | --- | --- | --- |',
    `| initialize answered | ${f.shim.init.toFixed(0)} ms | ${f.standalone.init.toFixed(0)} ms | ${(f.standalone.init / f.shim.init).toFixed(2)}x |`,
    `| first tool result (mcpx_call → an upstream's echo) | ${f.shim.call.toFixed(0)} ms | ${f.standalone.call.toFixed(0)} ms | ${(f.standalone.call / f.shim.call).toFixed(2)}x |`,
  ];
}

if (require.main === module) {
  void shimBench().then((f) => process.stdout.write(`${shimReport(f).join('\n')}\n`));
}
