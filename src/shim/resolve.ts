// Which gateway a stdio shim (and `mcpx tools`/`call`/`read`/`exec`) talks to: one gateway per person
// (README.md "The command line", docs/security.md "The endpoint secret"). `--connect auto`, in order:
// the editor window whose workspace folder holds the working directory (<state>/endpoints.json, the
// longest folder wins), the running headless daemon (<state>/daemon.json), else a daemon started in the
// background — one, even when several shims start at once (<state>/daemon.lock). Or `--connect URL`. A
// file naming a process that is gone is passed over. The URLs in both files carry the endpoint secret,
// so both are owner-only and a URL is never printed: `via` says where it came from without it.
import { closeSync, openSync, readFileSync, realpathSync, rmSync, statSync, writeSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { configSettings } from '../config/discovery';
import { defaultStateDir } from '../config/paths';
import { elicitSecret, endpointsFile, privateDir, readSecret, writePrivate } from '../config/secret';
import { Settings, envLayer } from '../config/settings';
import { system } from '../platform';

export interface ResolveOptions {
  /** `auto`, an `http(s)://…/mcp[/secret]` URL, or `ssh://…` (handled by `mcpx serve`, not here). */
  connect: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The path of dist/cli.js, to start a daemon with. */
  cli: string;
  log(line: string): void;
}

export interface ResolvedGateway {
  /** The URL that works, secret included (http://127.0.0.1:PORT/mcp/<secret>): never print it. */
  endpoint: string;
  /** Where it came from, said once on stderr by the caller; never holds the secret. */
  via: string;
}

/** How long a shim waits for a daemon it started (or another shim started) to listen. */
const START_TIMEOUT_MS = 10_000;
/** A lock older than this was left by a shim that died while starting a daemon. */
const LOCK_STALE_MS = 15_000;
const POLL_MS = 50;

/** <state>/daemon.json: the running headless daemon, `{url, pid, at}`, url with the secret (owner-only). */
function daemonFile(stateDir: string): string {
  return join(stateDir, 'daemon.json');
}

/** `mcpx daemon`, listening: names itself in <state>/daemon.json. */
export function publishDaemon(stateDir: string, url: string): void {
  privateDir(stateDir);
  writePrivate(daemonFile(stateDir), JSON.stringify({ url, pid: process.pid, at: new Date().toISOString() }, null, 2));
}

/** `mcpx daemon`, exiting: removes <state>/daemon.json if it still names this process (a daemon started
 *  later owns it otherwise). */
export function unpublishDaemon(stateDir: string): void {
  if (readJson(daemonFile(stateDir))?.pid === process.pid) rmSync(daemonFile(stateDir), { force: true });
}

export async function resolveGateway(o: ResolveOptions): Promise<ResolvedGateway> {
  const stateDir = defaultStateDir(o.env);
  if (o.connect === 'auto' || o.connect === '') {
    const window = editorWindow(stateDir, o.cwd);
    if (window) return window;
    const running = runningDaemon(stateDir);
    if (running) return running;
    return startDaemon(o, stateDir);
  }
  if (/^ssh:\/\//i.test(o.connect)) throw new Error('--connect ssh://… is handled by mcpx serve, not here');
  if (!/^https?:\/\//i.test(o.connect) || !URL.canParse(o.connect))
    throw new Error(
      `--connect: expected auto, an http(s)://HOST:PORT/mcp[/secret] URL or ssh://…, got ${JSON.stringify(o.connect)}`,
    );
  const url = new URL(o.connect);
  const via = `${url.origin}${url.pathname.replace(/^\/mcp\/[^/]+$/, '/mcp')}`;
  // A bare /mcp gets the install's secret, but only on a loopback host (as `mcpx elicit` sends it).
  if (url.pathname === '/mcp' || url.pathname === '/mcp/') {
    const secret = elicitSecret(new URL('/mcp', url), () => readSecret(stateDir));
    if (secret !== undefined) url.pathname = `/mcp/${secret}`;
  }
  return { endpoint: url.toString(), via };
}

/** A file's JSON object, or undefined (missing, unreadable, not an object). */
function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: unknown): boolean {
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, as another user's; not ours to use, but alive.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A path as compared: whatever its case where the system's paths are (Windows: VS Code writes c:\…,
 *  a terminal C:\…). */
const comparable = (p: string) => (system.pathCaseless ? p.toLowerCase() : p);

/** The editor window whose workspace folders hold `cwd`, the longest folder first. */
function editorWindow(stateDir: string, cwd: string): ResolvedGateway | undefined {
  const all = readJson(endpointsFile(stateDir));
  if (!all) return undefined;
  const here = new Set([comparable(resolve(cwd))]);
  try {
    here.add(comparable(realpathSync(cwd)));
  } catch {
    // a cwd that does not exist: matched as written
  }
  let best: { folder: string; url: string } | undefined;
  for (const [key, v] of Object.entries(all)) {
    if (typeof v !== 'object' || v === null) continue;
    const { url, pid } = v as { url?: unknown; pid?: unknown };
    if (typeof url !== 'string' || !alive(pid)) continue;
    for (const folder of key.split(',')) {
      if (!folder || folder === '(no folder)' || (best && best.folder.length >= folder.length)) continue;
      const f = resolve(folder);
      const k = comparable(f);
      const prefix = k.endsWith(sep) ? k : k + sep;
      if ([...here].some((c) => c === k || c.startsWith(prefix))) best = { folder: f, url };
    }
  }
  return best && { endpoint: best.url, via: `the editor window for ${best.folder}` };
}

export function runningDaemon(stateDir: string, pid?: number): ResolvedGateway | undefined {
  const d = readJson(daemonFile(stateDir));
  if (!d || typeof d.url !== 'string' || !alive(d.pid) || (pid !== undefined && d.pid !== pid)) return undefined;
  return { endpoint: d.url, via: `the running daemon (pid ${String(d.pid)})` };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** No gateway: start `mcpx daemon` in the background, under a lock so racing shims start one. */
async function startDaemon(o: ResolveOptions, stateDir: string): Promise<ResolvedGateway> {
  privateDir(stateDir);
  const lock = join(stateDir, 'daemon.lock');
  // The waiters wait longer than the starter, which may take START_TIMEOUT_MS itself.
  const deadline = Date.now() + START_TIMEOUT_MS + 5_000;
  for (;;) {
    let fd: number | undefined;
    try {
      fd = openSync(lock, 'wx', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    if (fd !== undefined) {
      try {
        writeSync(fd, String(process.pid));
        closeSync(fd);
        // Another shim may have started one between our look and the lock.
        return runningDaemon(stateDir) ?? (await spawnDaemon(o, stateDir));
      } finally {
        rmSync(lock, { force: true });
      }
    }
    // Another shim is starting one: wait for daemon.json, or for its lock to go (or go stale).
    const started = runningDaemon(stateDir);
    if (started) return started;
    if (lockIsStale(lock)) rmSync(lock, { force: true });
    if (Date.now() > deadline)
      throw new Error(`no gateway: another mcpx is starting a daemon and it has not listened (lock ${lock})`);
    await sleep(POLL_MS);
  }
}

/** A lock left by a shim that is gone (its pid, written just after the lock was taken), or older than
 *  LOCK_STALE_MS. */
function lockIsStale(lock: string): boolean {
  try {
    const pid = Number(readFileSync(lock, 'utf8'));
    if (pid > 0 && !alive(pid)) return true;
    return Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS;
  } catch {
    return false; // gone already: the next round takes it
  }
}

async function spawnDaemon(o: ResolveOptions, stateDir: string): Promise<ResolvedGateway> {
  const idle = daemonIdleExit(o);
  o.log(`no gateway running: starting a daemon (daemon.idleExit ${idle} ms)`);
  // node:child_process is loaded only here (a require: the bundle may run as a vm.Script, where import()
  // has no loader): a shim that finds its gateway starts without it.
  const { spawn } = require('node:child_process') as typeof import('node:child_process');
  const child = spawn(process.execPath, [o.cli, 'daemon', '--port', '0', '--set', `daemon.idleExit=${idle}`], {
    detached: true,
    windowsHide: true,
    stdio: 'ignore',
    env: o.env,
    cwd: o.cwd,
  });
  child.unref();
  let exited: string | undefined;
  let spawnError: Error | undefined;
  child.once('error', (e) => (spawnError = e));
  child.once('exit', (code, signal) => (exited = signal ?? `code ${code}`));
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const pid = child.pid;
    const d = pid === undefined ? undefined : runningDaemon(stateDir, pid);
    if (d) return { endpoint: d.endpoint, via: `a daemon started in the background (pid ${pid})` };
    if (spawnError) throw new Error(`could not start mcpx daemon: ${spawnError.message}`);
    if (exited)
      throw new Error(
        `the daemon started in the background exited (${exited}) before it listened: run \`mcpx daemon\` to see why`,
      );
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(
        `the daemon started in the background did not listen within ${START_TIMEOUT_MS / 1000} s: run \`mcpx daemon\` to see why`,
      );
    }
    await sleep(POLL_MS);
  }
}

/** shim.daemonIdleExit, from the config file and the environment, as a started daemon gets it. */
function daemonIdleExit(o: ResolveOptions): number {
  return new Settings([
    { source: 'config', values: configSettings({ env: o.env, workspaceFolder: o.cwd }) },
    { source: 'env', values: envLayer(o.env) },
  ]).duration('shim.daemonIdleExit');
}
