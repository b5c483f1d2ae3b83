// node:fs plus a minimal globSync (Node 22 has one; Node 20 does not). Enough for the conformance
// suite's one use, `globSync('**/checks.json', { cwd })`: patterns with `**`, `*` and `?`, matched
// against paths relative to `cwd` with `/` separators; returns those paths.
import fs from 'node:fs';
import { join, relative, sep } from 'node:path';

export * from 'node:fs';
export default fs;

function toRegExp(pattern) {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      // `**/` matches zero or more directories; a trailing `**` matches anything.
      if (pattern[i + 2] === '/') {
        re += '(?:.*/)?';
        i += 2;
      } else {
        re += '.*';
        i += 1;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

function walk(dir, out) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    out.push(p);
    if (e.isDirectory()) walk(p, out);
  }
}

export function globSync(pattern, options = {}) {
  const cwd = options.cwd ? String(options.cwd) : process.cwd();
  const patterns = (Array.isArray(pattern) ? pattern : [pattern]).map(toRegExp);
  const all = [];
  walk(cwd, all);
  return all.map((p) => relative(cwd, p).split(sep).join('/')).filter((r) => patterns.some((re) => re.test(r)));
}
