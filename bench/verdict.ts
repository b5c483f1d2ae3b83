// A figure on a noisy machine: each ratio is taken within one alternation (the paths it compares ran
// back to back, under the same load), at least ALTERNATIONS times; the figure is their median, shown with
// its spread. A target is met only when every alternation meets it, missed only when none does: a spread
// that crosses the target is "not settled", never a verdict.
import type { Figures } from './lib';

/** Alternations each figure is the median of. */
export const ALTERNATIONS = 3;

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(xs: number[]): Spread {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, min: s[0]!, max: s[s.length - 1]! };
}

/** `of` over each alternation's figures, as a spread. */
export const ratioSpread = <K>(alts: Array<Map<K, Figures>>, of: (f: (k: K) => Figures) => number): Spread =>
  spread(alts.map((m) => of((k) => m.get(k)!)));

/** "1.23x (1.10–1.31)": the median and the spread of the alternations. */
export const shown = (s: Spread, digits = 2): string =>
  `${s.median.toFixed(digits)}x (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;

/** Met when the whole spread is on the target's side, not met when none of it is, else not settled. */
export function verdict(s: Spread, target: number, side: 'atMost' | 'atLeast'): string {
  const within = (x: number) => (side === 'atMost' ? x <= target : x >= target);
  if (within(s.min) && within(s.max)) return '**met**';
  if (!within(s.min) && !within(s.max)) return '**not met**';
  return '**not settled**';
}

/** Verdict of several spreads against one target: met when all are, not met when any is, else not settled. */
export function verdictAll(ss: Spread[], target: number, side: 'atMost' | 'atLeast'): string {
  const vs = ss.map((s) => verdict(s, target, side));
  if (vs.every((v) => v === '**met**')) return '**met**';
  if (vs.some((v) => v === '**not met**')) return '**not met**';
  return '**not settled**';
}
