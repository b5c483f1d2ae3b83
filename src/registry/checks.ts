// What is checked of a server before it is installed (docs/registry.md "What install checks"): its
// registry status (deleted refused, deprecated warned), and whether its name is a small edit away from an
// older server's in the same registry (a typosquat: warned).
import type { RegistryClient } from './client';
import type { RegistryEntry } from './types';

/** Edits (insert, delete, substitute, swap two neighbours) between a and b, counted up to `max` + 1. */
export function editDistance(a: string, b: string, max = 3): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur.push(d);
      best = Math.min(best, d);
    }
    if (best > max) return max + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[b.length]!;
}

/** At most this many edits make two names "a small edit away". */
const NEAR = 2;

const lastSegment = (name: string) => name.slice(name.indexOf('/') + 1);

/** Whether `candidate` is a small edit from `name`: the whole names, or the same namespace part with a
 *  near server part, or the same server part under a near namespace. Equal names are not. */
export function nearName(name: string, candidate: string): boolean {
  if (name === candidate) return false;
  const [ns, n] = [name.slice(0, name.indexOf('/')), lastSegment(name)];
  const [cns, cn] = [candidate.slice(0, candidate.indexOf('/')), lastSegment(candidate)];
  // A short server part is too often one edit from another by chance.
  if (n.length < 5) return false;
  if (editDistance(name.toLowerCase(), candidate.toLowerCase(), NEAR) <= NEAR) return true;
  return (ns === cns && editDistance(n, cn, NEAR) <= NEAR) || (n === cn && editDistance(ns, cns, NEAR) <= NEAR);
}

/** Older servers of the registry whose names are a small edit from this one's. "Better known" is read as
 *  published earlier: the registry gives no popularity, and a squat comes after what it imitates.
 *  Candidates come from three searches (the server part, and each half of it), one page each. */
export async function lookalikes(client: RegistryClient, entry: RegistryEntry): Promise<string[]> {
  const name = entry.server.name;
  const part = lastSegment(name);
  if (part.length < 5) return [];
  const half = Math.ceil(part.length / 2);
  const queries = [...new Set([part, part.slice(0, half), part.slice(-half)])];
  const published = Date.parse(entry.official.publishedAt ?? '') || Number.POSITIVE_INFINITY;
  const found = new Set<string>();
  for (const q of queries) {
    let page: Awaited<ReturnType<RegistryClient['search']>>;
    try {
      page = await client.search(q, { limit: 100 });
    } catch {
      continue; // a check that cannot be made is not a reason to refuse; the install says nothing of it
    }
    for (const e of page.value.entries) {
      const at = Date.parse(e.official.publishedAt ?? '');
      if (nearName(name, e.server.name) && (Number.isNaN(at) || at < published) && e.official.status !== 'deleted')
        found.add(e.server.name);
    }
  }
  return [...found].sort();
}
