// One writer per file: a lock file beside it holding the writer's process id, created exclusively. A lock
// whose process is gone (a crash, a killed extension host) is stale and taken over; one whose process
// lives is refused, naming that process. The check is process-wide: a second claim from the same process
// is refused too, so a writer that forgot to release is seen, never doubled.
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

export interface OwnerLock {
  /** Gives the file up (only if this process still holds it). */
  release(): void;
}

/** Whether process `pid` runs (EPERM: it runs, as another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holder(lock: string): number | undefined {
  try {
    const pid = Number(readFileSync(lock, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Takes `lock` for this process: the lock, or the id of the live process that holds it. */
function takeLock(lock: string): OwnerLock | { heldBy: number } {
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      return {
        release: () => {
          if (holder(lock) === process.pid) rmSync(lock, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const pid = holder(lock);
    if (pid !== undefined && alive(pid)) return { heldBy: pid };
    // Another taker won the stale lock between our two tries.
    if (attempt > 0) return { heldBy: pid ?? 0 };
    // Stale (its process is gone, or the file is empty from a crash between create and write): moved
    // aside by rename. Should another taker have replaced it meanwhile, its lock is linked back (link
    // never overwrites), so only a stale lock is ever removed; the exclusive create then decides.
    const moved = `${lock}.stale-${process.pid}`;
    try {
      renameSync(lock, moved);
      if (holder(moved) !== pid) linkSync(moved, lock);
    } catch {
      // another taker moved it first: the create below says who won
    }
    rmSync(moved, { force: true });
  }
}

/** `takeLock`, waiting up to `waitMs` for a live holder to let go (a process still exiting). */
export async function waitForLock(lock: string, waitMs: number): Promise<OwnerLock | { heldBy: number }> {
  const until = Date.now() + waitMs;
  for (;;) {
    const got = takeLock(lock);
    if ('release' in got || Date.now() >= until) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
}
