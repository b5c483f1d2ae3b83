// A unified diff of two texts, line by line (a longest common subsequence of the lines that differ, after
// the lines they share at both ends; no dependency): the review of a held definition (gateway/pins/), the
// change `mcpx connect --dry-run` would make to a client's file and an update's server.json (registry/).

/** Lines past which the diff is not computed line by line: the whole of each side is shown instead. */
const MAX_LINES = 4000;

type Op = { op: ' ' | '-' | '+'; line: string };

/** The lines the two share at their start and end are kept as they are; the rest is compared. */
function ops(a: string[], b: string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const same = (lines: string[]) => lines.map((line) => ({ op: ' ' as const, line }));
  return [
    ...same(a.slice(0, head)),
    ...middle(a.slice(head, a.length - tail), b.slice(head, b.length - tail)),
    ...same(a.slice(a.length - tail)),
  ];
}

function middle(a: string[], b: string[]): Op[] {
  if (a.length > MAX_LINES || b.length > MAX_LINES)
    return [...a.map((line) => ({ op: '-' as const, line })), ...b.map((line) => ({ op: '+' as const, line }))];
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ op: ' ', line: a[i++]! });
      j++;
    } else if (i < a.length && (j === b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!))
      out.push({ op: '-', line: a[i++]! });
    else out.push({ op: '+', line: b[j++]! });
  }
  return out;
}

/** A unified diff (3 lines of context) of `before` and `after`; '' when they are the same. */
export function unifiedDiff(before: string, after: string, from: string, to: string): string {
  const split = (s: string) => (s === '' ? [] : s.replace(/\n$/, '').split('\n'));
  const all = ops(split(before), split(after));
  if (all.every((o) => o.op === ' ')) return '';
  const CONTEXT = 3;
  const out = [`--- ${from}`, `+++ ${to}`];
  let k = 0;
  while (k < all.length) {
    if (all[k]!.op === ' ') {
      k++;
      continue;
    }
    // A hunk: from CONTEXT lines before this change to CONTEXT after the last change it absorbs.
    const start = Math.max(0, k - CONTEXT);
    let end = k;
    while (end < all.length) {
      if (all[end]!.op !== ' ') {
        end++;
        continue;
      }
      let run = end;
      while (run < all.length && all[run]!.op === ' ') run++;
      if (run === all.length || run - end > 2 * CONTEXT) {
        end = Math.min(all.length, end + CONTEXT);
        break;
      }
      end = run;
    }
    // Line numbers at the hunk's start, counted over the ops before it.
    let aLine = 1;
    let bLine = 1;
    for (const o of all.slice(0, start)) {
      if (o.op !== '+') aLine++;
      if (o.op !== '-') bLine++;
    }
    const hunk = all.slice(start, end);
    const aLen = hunk.filter((o) => o.op !== '+').length;
    const bLen = hunk.filter((o) => o.op !== '-').length;
    out.push(`@@ -${aLen ? aLine : aLine - 1},${aLen} +${bLen ? bLine : bLine - 1},${bLen} @@`);
    for (const o of hunk) out.push(`${o.op}${o.line}`);
    k = end;
  }
  return `${out.join('\n')}\n`;
}
