// Processes the tests start: whether one still runs.
import { existsSync, readFileSync } from 'node:fs';

/** Running: signal 0 reaches it and it is not a zombie (exited, not yet reaped). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    // Gone between the signal and the read: not running. Without /proc at all, the signal is the answer.
    return !existsSync('/proc/self/stat');
  }
  return !/^\d+ \(.*\) Z/.test(stat);
}
