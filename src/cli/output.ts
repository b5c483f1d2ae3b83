// What the command line prints: a line on stdout, and text from clients and upstreams made safe for a
// terminal (kit/printable.ts: every printer of text a client or an upstream chose goes through it).
import { printable } from '../kit/printable';

/** `s` on stdout, ending in one newline. */
export const out = (s: string): void => void process.stdout.write(s.endsWith('\n') ? s : `${s}\n`);

/** Rows as a table: one line each, every cell made printable, columns padded to their widest cell. */
export function table(rows: string[][]): string {
  const cells = rows.map((r) => r.map(printable));
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return cells.map((r) => `${line(r)}\n`).join('');
}
