// Generated docs and manifest cannot drift from the code, and the layering invariants hold.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
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
    assert.equal(fill(doc, 'commands', commandsTable(JSON.parse(read('package.json')) as { contributes: Record<string, unknown> })), doc);
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
        assert.ok(m[1]!.startsWith('./'), `${f} imports ${m[1]}`);
      }
    }
  });
  test('no inline revision-date comparison outside the table', () => {
    for (const f of sources('src')) {
      if (f === join('src', 'protocol', 'revisions.ts')) continue;
      assert.doesNotMatch(read(f), /[<>]=?\s*'20\d\d-\d\d-\d\d'/, `${relative(root, f)} compares a revision inline`);
    }
  });
});
