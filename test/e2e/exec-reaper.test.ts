// No mcpx_exec child outlives the gateway (ARCHITECTURE.md "Architecture Invariant: no child process
// outlives the gateway"; docs/exec.md "The sandbox"): a daemon (dist/cli.js) running a script that loops
// forever is killed with SIGKILL, and the script's process is gone soon after — through the reaper
// wrapper, since nothing in the script's process could notice.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import { repoRoot } from '../harness/gateway';
import { alive } from '../harness/process';
import { HttpClient } from '../harness/wire';
import { until } from '../harness/wait';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-exec-reaper-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The parent of a process (field 4 of /proc/<pid>/stat), or 0 when it is gone. */
function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

/** Node processes running the exec child bundle under a wrapper whose parent is `gateway`. */
function execChildrenOf(gateway: number): number[] {
  const out: number[] = [];
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      // The wrapper's own processes (sh and its watcher) carry the same arguments: not those.
      const node = cmd.split('\0')[0] !== '/bin/sh';
      if (node && cmd.includes('exec-child.js') && parentOf(parentOf(Number(p))) === gateway) out.push(Number(p));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

test('SIGKILL the daemon while a script loops forever: the script process is gone', async () => {
  const config = join(dir, 'mcp.json');
  writeFileSync(config, JSON.stringify({ servers: {} }));
  const daemon: ChildProcess = spawn(
    process.execPath,
    [join(repoRoot(), 'dist', 'cli.js'), 'daemon', '--port', '0', '--config', config],
    { env: { ...process.env, XDG_STATE_HOME: dir, MCPX_PORT: '' }, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const line = await new Promise<string>((r) => createInterface({ input: daemon.stdout! }).once('line', r));
  const url = /listening on (\S+)/.exec(line)![1]!;
  const c = new HttpClient(url, '2026-07-28');
  void c.request('tools/call', { name: 'mcpx_exec', arguments: { script: 'for (;;) {}' } }).catch(() => undefined);
  const mine = await until(
    () => {
      const now = execChildrenOf(daemon.pid!).filter(alive);
      return now.length ? now : undefined;
    },
    { what: 'the script process', every: 25 },
  );
  assert.equal(mine.length, 1, 'the script runs in its own process');
  daemon.kill('SIGKILL');
  await until(() => !mine.some(alive), { what: 'the script process gone', timeout: 5000, every: 50 });
  assert.deepEqual(mine.filter(alive), [], 'the script process did not survive the gateway');
});
