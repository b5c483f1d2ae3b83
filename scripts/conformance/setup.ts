// `npm run conformance`'s set-up (scripts/conformance.ts): where things are, the suites it pins, and the
// processes it starts — every child tracked and stopped by its pid.
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = resolve(__dirname, '..', '..');
const HOOK = pathToFileURL(join(ROOT, 'test', 'conformance', 'node20.mjs')).href;
/** The three bundles a run needs (self-contained); copied into the run's own directory first, so a
 *  concurrent build (`npm test` empties build/) cannot pull them away mid-run. */
export const BUNDLES = {
  fixture: join(ROOT, 'build', 'test', 'fixtures', 'conformance', 'server.js'),
  client: join(ROOT, 'dist', 'conformance-client.js'),
  cli: join(ROOT, 'dist', 'cli.js'),
  // what cli.js loads, beside it
  mcpx: join(ROOT, 'dist', 'mcpx.js'),
};
/** The bundles a run starts: BUNDLES at first, their copies in the run's directory once main has made them. */
export const bundles = { fixture: BUNDLES.fixture, client: BUNDLES.client, cli: BUNDLES.cli };
export const EXPECTED_DIR = join(ROOT, 'test', 'conformance', 'expected-failures');
export const DOC = join(ROOT, 'docs', 'conformance.md');
export const RESULTS_DIR = join(ROOT, 'build', 'conformance');
/** How many suite runs go at once (most of their time is spent waiting). */
export const PARALLEL = 4;
export const OWNERS = ['questions', 'relay', 'auth', 'mcpx bug'] as const;
export type Owner = (typeof OWNERS)[number];

export interface Suite {
  key: 'stable' | 'alpha';
  version: string;
  pkg: string;
}
export const SUITES: Record<Suite['key'], Suite> = {
  stable: { key: 'stable', version: '0.1.16', pkg: 'conformance-stable' },
  alpha: { key: 'alpha', version: '0.2.0-alpha.12', pkg: 'conformance-alpha' },
};
// ---------------------------------------------------------------------------------------------
// Processes: every child is tracked and stopped by its pid
// ---------------------------------------------------------------------------------------------

const children = new Set<ChildProcess>();

function stopChild(c: ChildProcess, graceMs = 3000): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const t = setTimeout(() => {
      if (c.pid !== undefined) process.kill(c.pid, 'SIGKILL');
    }, graceMs);
    c.once('exit', () => {
      clearTimeout(t);
      done();
    });
    c.kill('SIGTERM');
  });
}

/** The run's own directory (config, state, logs, checks.json), copied to build/conformance/ at the end. */
let workDir: string | undefined;
export function setWorkDir(dir: string): void {
  workDir = dir;
}

export function cleanupAndExit(code: number): never {
  for (const c of children)
    if (c.pid !== undefined && c.exitCode === null && c.signalCode === null) process.kill(c.pid, 'SIGKILL');
  if (workDir && existsSync(workDir)) {
    try {
      rmSync(RESULTS_DIR, { recursive: true, force: true });
      cpSync(workDir, RESULTS_DIR, { recursive: true });
    } catch (e) {
      console.error(`conformance: could not keep the results in ${RESULTS_DIR}: ${(e as Error).message}`);
    }
    rmSync(workDir, { recursive: true, force: true });
  }
  process.exit(code);
}
process.on('SIGINT', () => cleanupAndExit(130));
process.on('SIGTERM', () => cleanupAndExit(143));

/** The environment of everything started here: no MCPX_* setting or conformance variable leaks in. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('MCPX_') && !k.startsWith('MCP_CONFORMANCE_')) env[k] = v;
  return { ...env, ...extra };
}

export interface Done {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export function run(args: string[], o: { timeoutMs: number; env?: NodeJS.ProcessEnv }): Promise<Done> {
  return new Promise((resolveRun) => {
    const c = spawn(process.execPath, args, { cwd: ROOT, env: o.env ?? cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(c);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    c.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
    c.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
    const t = setTimeout(() => {
      timedOut = true;
      void stopChild(c);
    }, o.timeoutMs);
    c.on('close', (code) => {
      clearTimeout(t);
      children.delete(c);
      resolveRun({ code, stdout, stderr, timedOut });
    });
  });
}

/** Starts a server process and waits for the line announcing its URL. */
/** Text with any /mcp/<secret> path spelled /mcp/<secret>: what goes to a log file. */
export function withoutSecret(text: string): string {
  return text.replace(/\/mcp\/[A-Za-z0-9_-]{43}/g, '/mcp/<secret>');
}

function startServer(
  args: string[],
  pattern: RegExp,
  env: NodeJS.ProcessEnv,
  log: string,
): Promise<{ url: string; stop(): Promise<void> }> {
  return new Promise((resolveStart, reject) => {
    // stdin stays a pipe: the fixture over HTTP ends when it closes, should this process die.
    const c = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    children.add(c);
    let out = '';
    let err = '';
    const stop = async (): Promise<void> => {
      await stopChild(c);
      children.delete(c);
      // mcpx daemon prints its URL with the endpoint secret on stdout; a log file never holds it
      // (docs/security.md "The endpoint secret").
      writeFileSync(log, withoutSecret(`${out}\n--- stderr ---\n${err}`));
    };
    const t = setTimeout(() => {
      void stop().then(() =>
        reject(new Error(`${args.join(' ')} did not announce its URL within 20 s:\n${err.slice(-2000)}`)),
      );
    }, 20_000);
    c.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(t);
        resolveStart({ url: m[1]!, stop });
      }
    });
    c.stderr!.on('data', (b: Buffer) => (err += b.toString()));
    c.on('exit', (code) => {
      if (!pattern.test(out)) {
        clearTimeout(t);
        reject(new Error(`${args.join(' ')} exited (${code}) before announcing its URL:\n${err.slice(-2000)}`));
      }
    });
  });
}

/** The gateway, headless, in pass-through mode, with the fixture as its one stdio upstream. */
export async function startGateway(dir: string): Promise<{ url: string; stop(): Promise<void> }> {
  mkdirSync(dir, { recursive: true });
  const config = join(dir, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify(
      { servers: { conformance: { type: 'stdio', command: process.execPath, args: [bundles.fixture] } } },
      null,
      2,
    ),
  );
  const env = cleanEnv({ XDG_STATE_HOME: join(dir, 'state'), XDG_CONFIG_HOME: join(dir, 'config') });
  return startServer(
    [bundles.cli, 'daemon', '--port', '0', '--config', config, '--passthrough', 'conformance'],
    /mcpx listening on (http:\/\/\S+)/,
    env,
    join(dir, 'gateway.log'),
  );
}

export function startFixture(dir: string): Promise<{ url: string; stop(): Promise<void> }> {
  mkdirSync(dir, { recursive: true });
  return startServer(
    [bundles.fixture, '--transport', 'http', '--port', '0'],
    /listening on (http:\/\/\S+)/,
    cleanEnv(),
    join(dir, 'fixture.log'),
  );
}

export function suiteArgs(s: Suite, args: string[]): string[] {
  return ['--import', HOOK, join(ROOT, 'node_modules', s.pkg, 'dist', 'index.js'), ...args];
}
