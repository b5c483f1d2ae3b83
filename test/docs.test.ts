// Generated docs and manifest cannot drift from the code, and the layering invariants hold.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { describe, test } from 'node:test';
import { commandsTable, configurationContribution, fill, protocolTables, settingsTable } from '../scripts/generated';
import { repoRoot } from './harness/gateway';

const root = repoRoot();
const read = (p: string) => readFileSync(join(root, p), 'utf8');

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((n) => {
    const p = join(dir, n);
    return statSync(join(root, p)).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('generated files', () => {
  test('docs/protocol.md tables match the revision table (npm run gen)', () => {
    const doc = read('docs/protocol.md');
    assert.equal(fill(doc, 'tables', protocolTables()), doc);
  });
  test('docs/settings.md matches the settings registry', () => {
    const doc = read('docs/settings.md');
    assert.equal(fill(doc, 'settings', settingsTable()), doc);
  });
  test('docs/commands.md lists every command, view container and view of package.json', () => {
    const doc = read('docs/commands.md');
    assert.equal(
      fill(
        doc,
        'commands',
        commandsTable(JSON.parse(read('package.json')) as { contributes: Record<string, unknown> }),
      ),
      doc,
    );
  });
  test('package.json contributes every setting as mcpx.<key>', () => {
    const pkg = JSON.parse(read('package.json')) as { contributes: { configuration: unknown } };
    assert.deepEqual(pkg.contributes.configuration, configurationContribution());
  });
});

describe('architecture invariants', () => {
  test('only src/vscode/ and src/extension.ts import vscode', () => {
    for (const f of sources('src')) {
      const imports = /from 'vscode'|require\('vscode'\)/.test(read(f));
      const allowed = f.startsWith(join('src', 'vscode')) || f === join('src', 'extension.ts');
      assert.ok(!imports || allowed, `${f} imports vscode`);
    }
  });
  test('src/protocol/ imports nothing else of the project', () => {
    for (const f of sources(join('src', 'protocol'))) {
      for (const m of read(f).matchAll(/from '(\.[^']+)'/g)) {
        const to = join(dirname(f), m[1]!);
        assert.ok(to.startsWith(join('src', 'protocol') + sep), `${f} imports ${m[1]}`);
      }
    }
  });
  test('no revision literal outside src/protocol/ (ask the table instead)', () => {
    const found: string[] = [];
    for (const f of sources('src')) {
      if (f.startsWith(join('src', 'protocol'))) continue;
      const code = withoutComments(read(f)).split('\n');
      code.forEach((line, i) => {
        if (!REVISION_LITERAL.test(line) && !DATE_PREFIX.test(line)) return;
        const at = `${relative(root, f)}:${i + 1}`;
        const text = read(f).split('\n')[i]!.trim();
        if (!REVISION_LITERAL_ALLOWED.some((a) => a.file === relative(root, f) && text.includes(a.text)))
          found.push(`${at}: ${text}`);
      });
    }
    assert.deepEqual(
      found,
      [],
      'revision literals outside src/protocol/ (use revisions.ts: a span, MODERN, OLDEST, ...)',
    );
  });
});

/** Any of the five revisions, anywhere in code (comparisons, messages, template strings). */
const REVISION_LITERAL = /2024-11-05|2025-03-26|2025-06-18|2025-11-25|2026-07-28/;
/** A quoted year or year-month, the start of a revision compared by prefix (`startsWith('2026')`). */
const DATE_PREFIX = /['"`]20\d\d(-\d\d)?['"`]/;
/** Lines that may keep a revision literal, each with its reason. Literals in comments are not counted. */
const REVISION_LITERAL_ALLOWED: ReadonlyArray<{ file: string; text: string; reason: string }> = [];

/** The source with its comments blanked (line numbers kept); string and template literals are kept. */
function withoutComments(src: string): string {
  let out = '';
  let state: 'code' | 'line' | 'block' | "'" | '"' | '`' = 'code';
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
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
    } else if (state === 'line') {
      if (c === '\n') state = 'code';
      out += c === '\n' ? c : ' ';
    } else if (state === 'block') {
      if (two === '*/') {
        state = 'code';
        out += '  ';
        i++;
        continue;
      }
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
