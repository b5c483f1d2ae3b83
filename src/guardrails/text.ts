// The text of a message as the detectors read it, and the message again with ranges of it redacted. Every
// string a model may read is a leaf — a tool result's text, its structuredContent, an embedded resource's
// text, a prompt's messages, a link's URI, an argument — joined into one text so each detector runs once;
// left out are what carries no text (an image's or audio's `data`, a resource's `blob`: base64), the
// protocol's own words (a content block's `type`, a message's `role`, a `mimeType`: redacting one would
// make the message invalid, and none is text an upstream chose freely) and `_meta`, where the protocol
// keeps what is the protocol's (ids, tokens of its own, extension fields). Object keys are not read: a
// message's text is in its values.

/** One string of the message: where it is, and where it sits in the joined text. */
interface Leaf {
  readonly path: readonly (string | number)[];
  readonly start: number;
  readonly end: number;
}

export interface Joined {
  readonly text: string;
  readonly leaves: readonly Leaf[];
}

/** Between two leaves: no expression of a detector matches across a blank line and back. */
const SEPARATOR = '\n\n';
const BINARY_TYPES = new Set(['image', 'audio']);
const SKIPPED = new Set(['_meta', 'blob', 'type', 'role', 'mimeType']);

export function joined(value: unknown): Joined {
  const parts: string[] = [];
  const leaves: Leaf[] = [];
  let at = 0;
  const walk = (v: unknown, path: (string | number)[]): void => {
    if (typeof v === 'string') {
      if (!v) return;
      if (parts.length) {
        parts.push(SEPARATOR);
        at += SEPARATOR.length;
      }
      parts.push(v);
      leaves.push({ path, start: at, end: at + v.length });
      at += v.length;
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) walk(v[i], [...path, i]);
    } else if (typeof v === 'object' && v !== null) {
      const o = v as Record<string, unknown>;
      for (const [k, x] of Object.entries(o)) {
        if (SKIPPED.has(k) || (k === 'data' && BINARY_TYPES.has(o.type as string))) continue;
        walk(x, [...path, k]);
      }
    }
  };
  walk(value, []);
  return { text: parts.join(''), leaves };
}

/** A leaf's path as a person reads it: `content[0].text`. */
export function pathText(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i ? `.${p}` : p)).join('');
}

/** The index of the leaf a position of the joined text is in (or the one before, in a separator). */
export function leafIndex(j: Joined, pos: number): number {
  let lo = 0;
  let hi = j.leaves.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (j.leaves[mid]!.start <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export interface Redaction {
  readonly start: number;
  readonly end: number;
  readonly marker: string;
}

/** `value` with each range of the joined text replaced by its marker, leaf by leaf (a range over two
 *  leaves redacts its part of each); overlapping ranges become one, under the first one's marker. A copy:
 *  the value given is never changed. */
export function redacted<T>(value: T, j: Joined, ranges: readonly Redaction[]): T {
  if (!ranges.length) return value;
  const perLeaf = new Map<Leaf, Redaction[]>();
  for (const r of ranges)
    for (let i = leafIndex(j, r.start); i < j.leaves.length; i++) {
      const leaf = j.leaves[i]!;
      if (leaf.start >= r.end) break;
      const local = {
        start: Math.max(r.start, leaf.start) - leaf.start,
        end: Math.min(r.end, leaf.end) - leaf.start,
        marker: r.marker,
      };
      if (local.end <= local.start) continue;
      const list = perLeaf.get(leaf);
      if (list) list.push(local);
      else perLeaf.set(leaf, [local]);
    }
  // A message that is one string (a description, a text checked on the command line) is its only leaf.
  if (typeof value === 'string') return (perLeaf.size ? replaced(value, [...perLeaf.values()][0]!) : value) as T;
  const copy = structuredClone(value);
  for (const [leaf, rs] of perLeaf) set(copy, leaf.path, replaced(j.text.slice(leaf.start, leaf.end), rs));
  return copy;
}

function replaced(text: string, ranges: Redaction[]): string {
  const sorted = [...ranges].sort((a, b) => a.start - b.start || b.end - a.end);
  let out = '';
  let at = 0;
  for (const r of sorted) {
    if (r.end <= at) continue;
    out += text.slice(at, Math.max(at, r.start));
    if (r.start >= at) out += r.marker;
    at = r.end;
  }
  return out + text.slice(at);
}

function set(root: unknown, path: readonly (string | number)[], v: string): void {
  if (!path.length) return;
  let o = root as Record<string | number, unknown>;
  for (const p of path.slice(0, -1)) o = o[p] as Record<string | number, unknown>;
  o[path[path.length - 1]!] = v;
}
