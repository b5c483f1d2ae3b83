// Names clients see: tool names within the 2025-11-25 rules (characters of [A-Za-z0-9_.-]) and within
// the hosts' limit of 64 characters (the spec allows 128, but hosts hand tool names to model APIs that
// refuse a longer function name and with it the whole request: docs/protocol.md "Tool names"), and the
// allow/deny globs of a server's `tools` filter.
import { createHash } from 'node:crypto';

const MAX = 64;
const ALLOWED = /^[A-Za-z0-9_.-]{1,64}$/;

export const validToolName = (name: string): boolean => ALLOWED.test(name);

/** A stable, readable name within the rules: unsafe characters become `_`, the head is kept, and a short
 *  hash of the whole name is appended, so the same input always gives the same output and two names
 *  that clean up alike (`a/b`, `a:b`) still differ. */
export function safeName(name: string): string {
  if (validToolName(name)) return name;
  const h = createHash('sha256').update(name).digest('hex').slice(0, 6);
  return `${name.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, MAX - 7)}_${h}`;
}

/** `*` matches anything; every other character stands for itself. */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(
    '^' +
      glob
        .split('*')
        .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*') +
      '$',
  );
}

/** Whether `text` is `parts` joined by wildcards that each stand for at least `gap` characters, in time
 *  linear in the text: each literal at its earliest place after the last, which leaves the most room
 *  for the rest. A regular expression of `.*` (or `.+`) between literals backtracks polynomially — the
 *  glob `*a*a*b` took 6 s on a 2,000-character tool name, a template of eight variables 96 s on a
 *  60-character URI — and the names and templates are an upstream's to choose (docs/security.md
 *  "Hostile shapes"). */
export function wildcard(parts: readonly string[], text: string, gap: 0 | 1): boolean {
  const first = parts[0] ?? '';
  if (parts.length === 1) return text === first;
  const last = parts[parts.length - 1]!;
  if (!text.startsWith(first) || !text.endsWith(last)) return false;
  const end = text.length - last.length;
  let at = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const p = parts[i]!;
    const found = text.indexOf(p, at + gap);
    if (found < 0) return false;
    at = found + p.length;
  }
  return end - at >= gap;
}

/** Whether `name` matches a glob: `*` is any run of characters, every other character stands for itself. */
export const globMatches = (glob: string, name: string): boolean => wildcard(glob.split('*'), name, 0);

/** Whether a tool passes a server's allow/deny lists (exact names or `*` globs; deny wins). */
export function toolAllowed(name: string, filter?: { allow?: string[]; deny?: string[] }): boolean {
  if (!filter) return true;
  if (filter.deny?.some((g) => globMatches(g, name))) return false;
  if (filter.allow && !filter.allow.some((g) => globMatches(g, name))) return false;
  return true;
}
