// The gateway benchmark's processes (bench/gateway.ts): the bundles it runs, copied once at its start, each
// process launched with a tail of its output kept and stopped by its pid at the end, a config file
// written, the fixture upstream started on a stdio pipe.
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { stopTree } from './lib';
import { StdioRpc } from './clients';

export const root = join(__dirname, '..', '..');
/** The bundles this part runs, copied once at its start (see snapshot): paths set there. */
export const bundles = {
  cli: join(root, 'dist', 'cli.js'),
  floorJs: join(__dirname, 'floor.js'),
  forwarderJs: join(__dirname, 'forwarder.js'),
  fixture: join(root, 'build', 'test', 'fixtures', 'upstream', 'server.js'),
};
export const proxyBin = join(root, 'node_modules', 'mcp-proxy', 'dist', 'bin', 'mcp-proxy.mjs');
export const PROXY_VERSION = '6.7.19';
export const node = process.execPath;
export const REV = '2025-11-25'; // the upstream's revision

export interface Proc {
  name: string;
  child: ChildProcess;
  /** The first capture group of the ready line. */
  match: string;
  /** The last few kB of what it wrote, for the error report. */
  tail(): string;
}

export const running = new Set<Proc>();

/** Spawn a process, keep a tail of its output, resolve when a stdout line matches `ready`; with 'rpc'
 *  at once, stdout left to the caller; with 'none' at once, stdout read into the tail (so that a
 *  chatty process never blocks on a full pipe). Every process started here is stopped by its pid in
 *  `stopAll`. */
export function launch(
  name: string,
  args: string[],
  ready: RegExp | 'rpc' | 'none',
  env: NodeJS.ProcessEnv,
): Promise<Proc> {
  const child = spawn(node, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
  let tail = '';
  const keep = (s: string) => (tail = (tail + s).slice(-4000));
  child.stderr!.on('data', (c: Buffer) => keep(c.toString()));
  const p: Proc = { name, child, match: '', tail: () => tail };
  running.add(p);
  child.once('exit', () => running.delete(p));
  if (ready === 'none') child.stdout!.on('data', (c: Buffer) => keep(c.toString()));
  if (ready === 'rpc' || ready === 'none') return Promise.resolve(p);
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${name} printed no ready line within 20 s; output: ${tail}`)), 20_000);
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      keep(`${line}\n`);
      const m = ready.exec(line);
      if (m && !p.match) {
        clearTimeout(t);
        p.match = m[1] ?? line;
        resolve(p);
      }
    });
    child.once('exit', (code, sig) => {
      clearTimeout(t);
      reject(new Error(`${name} exited (${code ?? sig}) before it was ready; output: ${tail}`));
    });
  });
}

export async function stopProc(p: Proc): Promise<void> {
  await stopTree(p.child);
  running.delete(p);
}

export async function stopAll(): Promise<void> {
  await Promise.all([...running].map(stopProc));
}

export function writeConfig(
  dir: string,
  file: string,
  servers: Record<string, string[]>,
  settings: Record<string, unknown>,
): string {
  const path = join(dir, file);
  const defs = Object.fromEntries(
    Object.entries(servers).map(([n, args]) => [n, { command: node, args: [bundles.fixture, '--rev', REV, ...args] }]),
  );
  writeFileSync(path, JSON.stringify({ servers: defs, settings }, null, 2));
  return path;
}

/** Copies of dist/cli.js, the fixture and the floor (their packages external, found in node_modules) taken at the start, so
 *  that a rebuild elsewhere in the tree (which empties build/) cannot pull them away mid-run or mix
 *  versions. A file briefly missing is waited for. */
export async function snapshot(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const copy = async (from: string, name: string): Promise<string> => {
    for (let i = 0; ; i++) {
      try {
        copyFileSync(from, join(dir, name));
        return join(dir, name);
      } catch (e) {
        if (i >= 50 || (e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        await new Promise((res) => setTimeout(res, 100));
      }
    }
  };
  bundles.cli = await copy(bundles.cli, 'cli.js');
  await copy(join(root, 'dist', 'mcpx.js'), 'mcpx.js'); // what cli.js loads, beside it
  bundles.floorJs = await copy(bundles.floorJs, 'floor.js');
  bundles.forwarderJs = await copy(bundles.forwarderJs, 'forwarder.js');
  bundles.fixture = await copy(bundles.fixture, 'fixture-server.js');
}

export async function startStdioEcho(extra: string[] = []): Promise<{ proc: Proc; rpc: StdioRpc }> {
  const proc = await launch('fixture (stdio)', [bundles.fixture, '--rev', REV, ...extra], 'rpc', process.env);
  const rpc = new StdioRpc(proc.child);
  const init = await rpc.request('initialize', {
    protocolVersion: REV,
    capabilities: {},
    clientInfo: { name: 'mcpx-bench', version: '0' },
  });
  if (!init.includes('"result"')) throw new Error(`fixture initialize: ${init.slice(0, 300)}`);
  rpc.notify('notifications/initialized');
  return { proc, rpc };
}
