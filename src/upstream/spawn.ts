// Spawning a stdio upstream so that no child outlives the gateway, whatever way the gateway ends.
// The command runs under a tiny sh wrapper in its own process group. The wrapper holds a pipe (fd 3)
// from the gateway: when the gateway dies — even by SIGKILL — the pipe reaches EOF and the wrapper
// signals the whole group (TERM, then KILL after a grace). A normal close signals the group directly.
import { type ChildProcess, spawn } from 'node:child_process';

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

export interface SpawnSpec {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
}

export function spawnGuarded(spec: SpawnSpec): ChildProcess {
  return spawn('/bin/sh', ['-c', WRAPPER, 'mcpx-upstream', spec.command, ...spec.args], {
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    env: spec.env,
    cwd: spec.cwd,
    detached: true, // its own process group, so the group can be signalled as one
  });
}

/** Signal the child's whole process group; then KILL it if it has not exited after `graceMs`. */
export async function killGroup(child: ChildProcess, graceMs = 2000): Promise<void> {
  if (child.pid === undefined) return;
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      // the group is already gone
    }
  };
  if (child.exitCode !== null || child.signalCode !== null) return signal('SIGKILL'); // leftovers in its group
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  signal('SIGTERM');
  const t = setTimeout(() => signal('SIGKILL'), graceMs);
  await exited;
  clearTimeout(t);
  signal('SIGKILL'); // anything the command left behind in its group
}
