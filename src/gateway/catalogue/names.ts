// Names clients see: tool names within the 2025-11-25 rules (characters of [A-Za-z0-9_.-]) and within
// the hosts' limit of 64 characters (the spec allows 128, but hosts hand tool names to model APIs that
// refuse a longer function name and with it the whole request: docs/protocol.md "Tool names"), and a
// server's `tools` filter (its allow/deny globs: kit/globs.ts).
import { createHash } from 'node:crypto';
import { globMatches } from '../../kit/globs';

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

/** Whether a tool passes a server's allow/deny lists (exact names or `*` globs; deny wins). */
export function toolAllowed(name: string, filter?: { allow?: string[]; deny?: string[] }): boolean {
  if (!filter) return true;
  if (filter.deny?.some((g) => globMatches(g, name))) return false;
  if (filter.allow && !filter.allow.some((g) => globMatches(g, name))) return false;
  return true;
}
