// The era check (`npm run lint`): no module outside src/protocol/eras/ compares eras. What differs between
// the eras is a member of the codec (src/protocol/eras/codec.ts), chosen once per request; code asks it.
// Flagged, in code (comments are not read): a comparison with 'modern' / 'legacy' or with MODERN
// (`=== 'legacy'`, `MODERN !==`, `case 'modern':`), and any call of eraOf() outside src/protocol/.
//
// Run: node scripts/eras.mjs [dir]   (dir defaults to src; paths are reported relative to the cwd)
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const ERA = String.raw`(?:'modern'|'legacy'|"modern"|"legacy"|MODERN\b)`;
const RULES = [
  { re: new RegExp(String.raw`[!=]==?\s*${ERA}|${ERA}\s*[!=]==?`), what: 'compares an era' },
  { re: /\bcase\s+['"](?:modern|legacy)['"]/, what: 'switches on an era' },
  { re: /\beraOf\s*\(/, what: 'asks eraOf()', outsideOf: `src${sep}protocol${sep}` },
];

function sources(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The source with comments blanked (line numbers kept); strings and template literals are kept. */
function withoutComments(src) {
  let out = '';
  let state = 'code';
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    const two = src.slice(i, i + 2);
    if (state === 'code') {
      if (two === '//' || two === '/*') {
        state = two === '//' ? 'line' : 'block';
        out += '  ';
        i++;
        continue;
      }
      if (c === "'" || c === '"' || c === '`') state = c;
      out += c;
    } else if (state === 'line' || state === 'block') {
      if (state === 'block' && two === '*/') {
        state = 'code';
        out += '  ';
        i++;
        continue;
      }
      if (c === '\n' && state === 'line') state = 'code';
      out += c === '\n' ? c : ' ';
    } else {
      if (c === '\\') {
        out += two;
        i++;
        continue;
      }
      if (c === state) state = 'code';
      out += c;
    }
  }
  return out;
}

const dir = process.argv[2] ?? 'src';
const eras = join('src', 'protocol', 'eras') + sep;
const found = [];
for (const file of sources(dir)) {
  const rel = relative(process.cwd(), file);
  if (rel.startsWith(eras)) continue;
  withoutComments(readFileSync(file, 'utf8'))
    .split('\n')
    .forEach((line, i) => {
      for (const rule of RULES) {
        if (!rule.re.test(line) || (rule.outsideOf && rel.startsWith(rule.outsideOf))) continue;
        found.push(`${rel}:${i + 1}: ${rule.what}: ${line.trim()}`);
        break;
      }
    });
}
for (const f of found) console.error(f);
if (found.length) console.error("Ask the request's codec instead (src/protocol/eras/codec.ts).");
process.exit(found.length ? 1 : 0);
