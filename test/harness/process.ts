// Processes the tests start: whether one still runs.
import { existsSync, readFileSync } from 'node:fs';

/** Running: signal 0 reaches it and it is not a zombie (exited, not yet reaped). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return !/^\d+ \(.*\) Z/.test(stat);
}
