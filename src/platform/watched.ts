// Processes on Windows (docs/platforms.md "No orphans on Windows"). Windows has no process groups and no
// SIGTERM, and Node puts each child it starts in a job that kills it when Node dies — but not what that
// child starts through cmd.exe (a .cmd server's node.exe). So each process is started under a watchdog
// (watchdog.ts, its own bundle dist/watchdog.js, on the gateway's own runtime) that is outside that job,
// holds a pipe from the gateway and starts the command through cross-spawn: when the pipe ends — the
// gateway gone, however — it ends the command's whole tree (taskkill /T /F) while the tree is still
// whole. Ending an instance ends the watchdog's tree the same way.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { win32 } from 'node:path';
import { bundleNear } from '../kit/bundles';
import type { SpawnSpec } from './platform';

/** The watchdog's command line and environment for `spec`: under VS Code's runtime (Electron) it runs
 *  as Node, and tells the watchdog to take that switch out of the command's environment. */
export function watchdogLaunch(
  spec: SpawnSpec,
  o: { runtime: string; watchdog: string; electron: boolean },
): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  const ours = o.electron && spec.env.ELECTRON_RUN_AS_NODE === undefined;
  return {
    command: o.runtime,
    args: [o.watchdog, ...(ours ? ['--electron'] : []), '--', spec.command, ...spec.args],
    env: ours ? { ...spec.env, ELECTRON_RUN_AS_NODE: '1' } : spec.env,
  };
}

export function spawnWatched(spec: SpawnSpec): ChildProcess {
  const l = watchdogLaunch(spec, {
    runtime: process.execPath,
    watchdog: bundleNear('watchdog.js', __dirname),
    electron: process.versions.electron !== undefined,
  });
  return spawn(l.command, l.args, {
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    env: l.env,
    cwd: spec.cwd,
    // Outside the gateway's job (so it outlives the gateway long enough to end the tree), no window.
    detached: true,
    windowsHide: true,
  });
}

/** taskkill's arguments that end `pid` and every process it started, without asking it. */
export const taskkillArgs = (pid: number): string[] => ['/T', '/F', '/PID', String(pid)];

/** taskkill by its full path where the system says where System32 is (a PATH may lack it). */
export function taskkillPath(env: NodeJS.ProcessEnv): string {
  const root = env.SystemRoot ?? env.SYSTEMROOT;
  return root ? win32.join(root, 'System32', 'taskkill.exe') : 'taskkill.exe';
}

function taskkill(pid: number): Promise<void> {
  return new Promise((resolve) =>
    execFile(taskkillPath(process.env), taskkillArgs(pid), { windowsHide: true, timeout: 10_000 }, () => resolve()),
  );
}

/** Ends `child` and its tree. Only while it runs: Node holds its process handle until 'exit', so its
 *  pid names no other process yet. */
export async function killWatched(
  child: ChildProcess,
  end: (pid: number) => Promise<void> = taskkill,
  waitMs = 2000,
): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await end(child.pid);
  // TerminateProcess as well, wherever taskkill could not (missing, or a taskkill without /T).
  try {
    child.kill();
  } catch {
    // gone
  }
  let t: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise((r) => (t = setTimeout(r, waitMs)))]);
  clearTimeout(t);
}
