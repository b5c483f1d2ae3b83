// Globs: `*` is any run of characters, every other character stands for itself. `wildcard` and
// `globMatches` run in time linear in the text, for names and templates an upstream chooses (a server's
// `tools` filter, URI templates: docs/security.md "Hostile shapes"); `globToRegExp` is for patterns and
// names the person wrote (the editor's sampling allow-list).

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
