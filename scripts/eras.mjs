// The era check (`npm run lint`): no module outside src/protocol/eras/ compares eras. What differs between
// the eras is a member of the codec (src/protocol/eras/codec.ts): behaviour the code calls without testing
// which era it has, chosen once per layer and carried. Flagged, in code (comments are not read):
// - a comparison with 'modern' / 'legacy' or with MODERN (`=== 'legacy'`, `MODERN !==`, `case 'modern':`),
//   and any call of eraOf() outside src/protocol/;
// - outside src/protocol/, a codec member compared or tested (`codec.x === 'a'`, `if (codec.y)`,
//   `codec.z && …`): its answer is asked of a member function instead;
// - a codec chosen again (`codecFor(`, `codecOfEra(`, `codecOfRequest(`) outside src/protocol/, but at the
//   one place each layer chooses it (CHOSEN) and the re-derivations named with their reason (REDERIVED);
// - in src/gateway/, a revision checked: a value imported from protocol/revisions or protocol/eras, a
//   revision passed as an argument (`f(x, ctx.rev)`) or compared: the edges spell revisions, the gateway
//   asks protocol/questions.ts about its caller.
//
// Run: node scripts/eras.mjs [dir]   (dir defaults to src; paths are reported relative to the cwd)
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const ERA = String.raw`(?:'modern'|'legacy'|"modern"|"legacy"|MODERN\b)`;
/** A codec member read as a value (not called): `call.codec.questions`, `codec?.client.paramHeaders`. */
const MEMBER = String.raw`\bcodec(?:\??\.\w+)+(?![\w(.]|\?\.)(?!\s*\()`;
const PROTOCOL = `src${sep}protocol${sep}`;
/** Where each layer chooses the codec, once: a request's (the server), an upstream's (the era probe), a
 *  stdio client's request (the shim). */
const CHOSEN = [
  join('src', 'server', 'call.ts'),
  join('src', 'upstream', 'probe.ts'),
  join('src', 'shim', 'modern.ts'),
];
/** A codec derived again from an era kept as data, where nothing could carry it: each with its reason. */
const REDERIVED = {
  // A task read back from the journal names its era; the codec that made it is gone with the process.
  [join('src', 'server', 'tasks.ts')]: 'a task restored from the journal',
};
const GATEWAY = `src${sep}gateway${sep}`;
const RULES = [
  { re: new RegExp(String.raw`[!=]==?\s*${ERA}|${ERA}\s*[!=]==?`), what: 'compares an era' },
  { re: /\bcase\s+['"](?:modern|legacy)['"]/, what: 'switches on an era' },
  { re: /\beraOf\s*\(/, what: 'asks eraOf()', outsideOf: PROTOCOL },
  {
    re: new RegExp(
      String.raw`${MEMBER}\s*(?:[!=]==?|&&|\|\||\?(?![.?]))|(?:[!=]==?|&&|\|\||\bif\s*\(|[?!])\s*(?:[\w$]+\??\.)*${MEMBER}`,
    ),
    what: 'tests a codec member (ask a member function)',
    outsideOf: PROTOCOL,
  },
  {
    re: /\bcodec(?:For|OfEra|OfRequest)\s*\(/,
    what: 'chooses the codec again (carry the one chosen)',
    outsideOf: PROTOCOL,
    allowedIn: [...CHOSEN, ...Object.keys(REDERIVED)],
  },
  {
    re: /from\s+'[./]*protocol\/(?:revisions|eras)(?:\/\w+)?'/,
    what: 'reads the revision table in the gateway (the edges spell revisions)',
    onlyIn: GATEWAY,
    unlessLine: /^\s*import\s+type\b/,
  },
  {
    re: /[(,]\s*[\w.]*\.rev\s*[,)]|\.rev\s*[!=]==?|[!=]==?\s*[\w.]*\.rev\b/,
    what: 'checks a revision in the gateway (ask protocol/questions.ts about the caller)',
    onlyIn: GATEWAY,
  },
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
        if (rule.onlyIn && !rel.startsWith(rule.onlyIn)) continue;
        if (rule.allowedIn?.includes(rel) || rule.unlessLine?.test(line)) continue;
        found.push(`${rel}:${i + 1}: ${rule.what}: ${line.trim()}`);
        break;
      }
    });
}
for (const f of found) console.error(f);
if (found.length) console.error("Ask the request's codec instead (src/protocol/eras/codec.ts).");
process.exit(found.length ? 1 : 0);
