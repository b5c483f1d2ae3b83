// A CPU profile of a process summarised: self time per function (V8's .cpuprofile, as `node --cpu-prof`
// writes it), so that docs/performance.md names where mcpx's time goes at one client and the next change
// starts from data.
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  startTime: number;
  endTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  what: string;
  ms: number;
  /** Share of the busy time (everything but idle). */
  share: number;
}

/** The top `n` functions by self time in the one profile written under `dir`, and the busy total: of the
 *  samples between `fromMs` and `toMs` before the profile's end, the process's exit (the measured window,
 *  without start-up's compilation and the shutdown; counted from the end, which the caller sees closely,
 *  unlike the profiler's start). */
export function selfTimes(
  dir: string,
  window: { fromMs: number; toMs: number },
  n = 10,
): { top: SelfTime[]; busyMs: number } {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile in ${dir}`);
  const p = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  const byNode = new Map(p.nodes.map((x) => [x.id, x.callFrame]));
  const self = new Map<string, number>();
  const lengthMs = (p.endTime - p.startTime) / 1000;
  let at = 0;
  for (let i = 0; i < p.samples.length; i++) {
    at += (p.timeDeltas[i] ?? 0) / 1000;
    const beforeEnd = lengthMs - at;
    if (beforeEnd > window.fromMs || beforeEnd < window.toMs) continue;
    const f = byNode.get(p.samples[i]!);
    if (!f) continue;
    const where = f.url ? ` ${basename(f.url)}:${f.lineNumber + 1}` : '';
    const key = `${f.functionName || '(anonymous)'}${where}`;
    self.set(key, (self.get(key) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  }
  self.delete('(idle)');
  const busyMs = [...self.values()].reduce((a, b) => a + b, 0);
  const top = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([what, ms]) => ({ what, ms, share: ms / busyMs }));
  return { top, busyMs };
}
