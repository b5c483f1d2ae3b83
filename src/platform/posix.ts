// What Linux and macOS share: processes under a reaper wrapper in their own process group, owner-only
// by mode bits, paths as POSIX writes them, the `mcpx` launcher as a sh script.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import type { Launcher, Platform, SpawnSpec } from './platform';

// The command runs under a tiny sh wrapper in its own process group. The wrapper holds a pipe (fd 3)
// from the gateway: when the gateway dies — even by SIGKILL — the pipe reaches EOF and the wrapper
// signals the whole group (TERM, then KILL after a grace). A normal close signals the group directly.
const WRAPPER = [
  'exec 4<&0',
  // "$@" gets the real stdin (fd 4 copy: an asynchronous list's stdin is /dev/null otherwise).
  '"$@" <&4 4<&- 3<&- & pid=$!',
  'exec 4<&-',
  // The watcher ignores TERM (the group TERM it sends must not stop it before the KILL), and holds
  // copies of stdout/stderr: the wrapper KILLs it when the command ends by itself.
  "(trap '' TERM; read _ <&3; kill -TERM 0; sleep 2; kill -KILL 0) >/dev/null 2>&1 & watcher=$!",
  'wait $pid; code=$?',
  'kill -KILL $watcher 2>/dev/null',
  'exit $code',
].join('; ');

function spawnGuarded(spec: SpawnSpec): ChildProcess {
  return spawn('/bin/sh', ['-c', WRAPPER, 'mcpx-upstream', spec.command, ...spec.args], {
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    env: spec.env,
    cwd: spec.cwd,
    detached: true, // its own process group, so the group can be signalled as one
  });
}

/** Signal the child's whole process group; then KILL it if it has not exited after `graceMs`. `signal`
 *  is process.kill but for the tests. */
export async function killGroup(
  child: ChildProcess,
  graceMs = 2000,
  signal: (pid: number, s: NodeJS.Signals) => void = process.kill,
): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const send = (s: NodeJS.Signals) => {
    try {
      signal(-pid, s);
    } catch {
      // the group is already gone
    }
  };
  if (child.exitCode !== null || child.signalCode !== null) return send('SIGKILL'); // leftovers in its group
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  send('SIGTERM');
  const t = setTimeout(() => send('SIGKILL'), graceMs);
  await exited;
  clearTimeout(t);
  send('SIGKILL'); // anything the command left behind in its group
}

/** A crash writes no core file (a heap's worth of disk per crash otherwise); `exec` keeps the pid. */
function withoutCoreDumps(spec: SpawnSpec): SpawnSpec {
  return {
    ...spec,
    command: '/bin/sh',
    args: ['-c', 'ulimit -c 0; exec "$@"', 'mcpx-exec', spec.command, ...spec.args],
  };
}

/** mkdirSync's mode applies only to a directory it creates: one that exists is narrowed too. */
function ownerOnlyDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

function ownerOnlyFile(file: string): void {
  chmodSync(file, 0o600);
}

function expandPath(p: string, _env: NodeJS.ProcessEnv, home: string, base: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return posix.join(home, p.slice(2));
  return posix.resolve(base, p);
}

/** file:// and the path, each segment percent-encoded. */
function fileUri(path: string): string {
  return `file://${posix.resolve(path).split('/').map(encodeURIComponent).join('/')}`;
}

/** A word for sh, whatever it holds: single-quoted, each ' spelled '\''. */
const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function launcher(runtime: string, cli: string, comments: readonly string[]): Launcher {
  const text = [
    '#!/bin/sh',
    ...comments.map((c) => `# ${c}`),
    `ELECTRON_RUN_AS_NODE=1 exec ${shQuote(runtime)} ${shQuote(cli)} "$@"`,
    '',
  ].join('\n');
  return { name: 'mcpx', text };
}

const removeHint = (file: string) => `rm ${shQuote(file)}`;

/** The stdio upstream's inherited environment (the official SDK's POSIX list, plus the locale, the time
 *  zone and the temporary and runtime directories). */
const SAFE_ENV = [
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'TERM',
  'USER',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
  'XDG_RUNTIME_DIR',
];

/** Everything Linux and macOS do alike; each adds its places, its sandbox and its browser. */
export const posixBase: Omit<Platform, 'os' | 'places' | 'sandbox' | 'openUrl'> = {
  envCaseless: false,
  pathCaseless: false,
  safeEnv: SAFE_ENV,
  signals: { reload: ['SIGHUP'], stop: ['SIGINT', 'SIGTERM'] },
  expandPath,
  fileUri,
  ownerOnlyDir,
  ownerOnlyFile,
  spawnGuarded,
  killTree: (child, graceMs) => killGroup(child, graceMs),
  withoutCoreDumps,
  launcher,
  commandNames: ['mcpx'],
  startable: (command, args) => ({ command, args: [...args] }),
  removeHint,
  pathAdvice: 'e.g. export PATH="$HOME/.local/bin:$PATH" in ~/.profile',
};
