// The project's rules as tools (`npm run lint`) fail on a violation. Each check runs the real
// configuration on a small project in a temporary folder: once as it should be (the tool passes), once
// with one deliberate violation (the tool exits non-zero and names it). The temporary project holds
// only the probe files, so a pass or a failure there is the probe's alone, whatever the tree holds.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { repoRoot } from './harness/gateway';

const root = repoRoot();
const base = mkdtempSync(join(tmpdir(), 'mcpx-tooling-'));
after(() => rmSync(base, { recursive: true, force: true }));

let n = 0;
/** A fresh project folder with the given files (path → text); config files copied from the repo. */
function project(files: Record<string, string>, copy: string[] = []): string {
  const dir = join(base, String(n++));
  for (const rel of copy) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    copyFileSync(join(root, rel), join(dir, rel));
  }
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

/** Run a tool from node_modules/.bin in `cwd`; status and all it printed. */
function run(cwd: string, tool: string, args: string[]): { status: number | null; out: string } {
  const r = spawnSync(join(root, 'node_modules', '.bin', tool), args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    timeout: 60_000,
  });
  if (r.error) throw r.error;
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test('depcruise: a module in src/protocol importing src/server breaks the layer rule', () => {
  const depcruise = (dir: string) => run(dir, 'depcruise', ['src', '--config', join(root, '.dependency-cruiser.cjs')]);
  const server = { 'src/server/conn.ts': 'export interface Conn {\n  id: string;\n}\n' };

  const ok = depcruise(project({ ...server, 'src/protocol/probe.ts': 'export const probe = 1;\n' }));
  assert.equal(ok.status, 0, ok.out);

  // A type-only import counts too: a layer may not even import types from above.
  const bad = depcruise(
    project({
      ...server,
      'src/protocol/probe.ts': "import type { Conn } from '../server/conn';\nexport type Probe = Conn;\n",
    }),
  );
  assert.notEqual(bad.status, 0, bad.out);
  assert.match(bad.out, /layer-protocol: src\/protocol\/probe\.ts → src\/server\/conn\.ts/);
});

test('biome: a floating promise is an error', () => {
  const body = (call: string) =>
    [
      'async function work(): Promise<number> {',
      '  return 1;',
      '}',
      '',
      'export async function probe(): Promise<void> {',
      `  ${call}`,
      '}',
      '',
    ].join('\n');
  const biome = (dir: string) => run(dir, 'biome', ['ci', '--colors=off', '--vcs-enabled=false', '.']);

  const ok = biome(project({ 'src/gateway/probe.ts': body('await work();') }, ['biome.jsonc']));
  assert.equal(ok.status, 0, ok.out);

  const bad = biome(project({ 'src/gateway/probe.ts': body('work();') }, ['biome.jsonc']));
  assert.notEqual(bad.status, 0, bad.out);
  assert.match(bad.out, /src\/gateway\/probe\.ts:6:3 lint\/nursery\/noFloatingPromises/);
});

test('knip: an exported function nobody imports is reported', () => {
  const files = (extra: string) => ({
    'package.json': JSON.stringify({ name: 'probe', private: true }),
    'test/probe.test.ts': "import { used } from '../src/config/probe';\n\nused();\n",
    'src/config/probe.ts': `export function used(): void {}\n${extra}`,
  });
  const knip = (dir: string) => run(dir, 'knip', ['--no-config-hints']);

  const ok = knip(project(files(''), ['knip.jsonc']));
  assert.equal(ok.status, 0, ok.out);

  const bad = knip(project(files('export function probeUnused(): void {}\n'), ['knip.jsonc']));
  assert.notEqual(bad.status, 0, bad.out);
  assert.match(bad.out, /Unused exports[\s\S]*probeUnused\s+function\s+src\/config\/probe\.ts/);
});

test('tsc -p src/protocol: Node types (Buffer) are not there', () => {
  const tsc = (dir: string) => run(dir, 'tsc', ['-p', 'src/protocol']);
  const copy = ['tsconfig.json', 'src/protocol/tsconfig.json'];

  const ok = tsc(project({ 'src/protocol/probe.ts': "export const probe = new Map([['x', 1]]);\n" }, copy));
  assert.equal(ok.status, 0, ok.out);

  const bad = tsc(project({ 'src/protocol/probe.ts': "export const probe = Buffer.from('x');\n" }, copy));
  assert.notEqual(bad.status, 0, bad.out);
  assert.match(bad.out, /src\/protocol\/probe\.ts\(1,22\): error TS\d+: Cannot find name 'Buffer'/);
});

test('eras: an era compared outside src/protocol/eras/ fails; the codec asked instead passes', () => {
  const eras = (dir: string) =>
    spawnSync(process.execPath, [join(root, 'scripts', 'eras.mjs')], { cwd: dir, encoding: 'utf8' });
  const probe = (body: string) => ({
    'src/server/probe.ts': `import { codecFor } from '../protocol/eras';\nimport { eraOf } from '../protocol/revisions';\n${body}`,
    // The codecs themselves may say what their era is.
    'src/protocol/eras/modern.ts': "export const era = (e: string) => e === 'modern';\n",
  });

  const ok = eras(project(probe("export const first = (rev: R) => codecFor(rev).questions === 'input-required';\n")));
  assert.equal(ok.status, 0, `${ok.stdout}${ok.stderr}`);

  // In a comment it is prose, not a comparison.
  const prose = eras(project(probe("// was: eraOf(rev) === 'modern'\nexport const x = 1;\n")));
  assert.equal(prose.status, 0, `${prose.stdout}${prose.stderr}`);

  for (const [line, why] of [
    ["export const first = (rev: R) => eraOf(rev) === 'modern';", 'compares an era'],
    ["export const first = (c: { era: string }) => 'legacy' !== c.era;", 'compares an era'],
    ['export const first = (rev: R) => rev === MODERN;', 'compares an era'],
    ["export const first = (e: string) => { switch (e) { case 'legacy': return 1; } };", 'switches on an era'],
    ['export const first = (rev: R) => [eraOf(rev)];', 'asks eraOf()'],
  ]) {
    const bad = eras(project(probe(`${line}\n`)));
    assert.notEqual(bad.status, 0, line);
    assert.match(bad.stderr, new RegExp(`src/server/probe\\.ts:3: ${why.replace(/[()]/g, '\\$&')}`), line);
  }
});
