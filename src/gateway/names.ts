// Names clients see: tool names within the 2025-11-25 rules (at most 128 characters of [A-Za-z0-9_.-]),
// and the allow/deny globs of a server's `tools` filter.
import { createHash } from 'node:crypto';

const MAX = 128;
const ALLOWED = /^[A-Za-z0-9_.-]{1,128}$/;

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

/** Whether a tool passes a server's allow/deny lists (exact names or `*` globs; deny wins). */
export function toolAllowed(name: string, filter?: { allow?: string[]; deny?: string[] }): boolean {
  if (!filter) return true;
  if (filter.deny?.some((g) => globToRegExp(g).test(name))) return false;
  if (filter.allow && !filter.allow.some((g) => globToRegExp(g).test(name))) return false;
  return true;
}
