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

test('biome: in src/, a function over 100 lines, 6 positional parameters or a file over 400 lines is an error', () => {
  const biome = (dir: string) => run(dir, 'biome', ['ci', '--colors=off', '--vcs-enabled=false', '.']);
  const fn = (lines: number) =>
    `export function probe(): number {\n  let n = 0;\n${'  n++;\n'.repeat(lines)}  return n;\n}\n`;
  const ok = biome(
    project(
      {
        'src/gateway/probe.ts': `${fn(90)}export const five = (a: number, b: number, c: number, d: number, e: number) => a + b + c + d + e;\n`,
      },
      ['biome.jsonc'],
    ),
  );
  assert.equal(ok.status, 0, ok.out);
  for (const [text, rule] of [
    [fn(101), 'complexity/noExcessiveLinesPerFunction'],
    [
      'export const six = (a: number, b: number, c: number, d: number, e: number, f: number) => a + b + c + d + e + f;\n',
      'complexity/useMaxParams',
    ],
    [
      `${'export const x0 = 0;\n'.repeat(1)}${Array.from({ length: 400 }, (_, i) => `export const x${i + 1} = ${i};`).join('\n')}\n`,
      'style/noExcessiveLinesPerFile',
    ],
  ] as const) {
    const bad = biome(project({ 'src/gateway/probe.ts': text }, ['biome.jsonc']));
    assert.notEqual(bad.status, 0, rule);
    assert.match(bad.out, new RegExp(`src/gateway/probe\\.ts:\\d+:\\d+ lint/${rule}`), rule);
  }
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
  const probe = (body: string) => ({
    'src/server/probe.ts': `import { codecFor } from '../protocol/eras';\nimport { eraOf } from '../protocol/revisions';\n${body}`,
    // The codecs themselves may say what their era is.
    'src/protocol/eras/modern.ts': "export const era = (e: string) => e === 'modern';\n",
  });

  // A codec member called, not tested.
  const ok = eras(project(probe('export const first = (call: C) => call.codec.strategy(true, () => false);\n')));
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

/** scripts/eras.mjs run on a project folder. */
const eras = (dir: string) =>
  spawnSync(process.execPath, [join(root, 'scripts', 'eras.mjs')], { cwd: dir, encoding: 'utf8' });

/** Each line alone in `file` of a fresh project: eras.mjs fails naming it with `why`. */
function failsWith(file: string, cases: Array<[string, string]>): void {
  for (const [line, why] of cases) {
    const bad = eras(project({ [file]: `${line}\n` }));
    assert.notEqual(bad.status, 0, line);
    const at = file.replace(/[./]/g, '\\$&');
    assert.match(bad.stderr, new RegExp(`${at}:1: ${why.replace(/[()]/g, '\\$&')}`), line);
  }
}

test('eras: a codec member tested outside src/protocol/ fails; one called passes', () => {
  const file = 'src/server/probe.ts';
  const ok = eras(project({ [file]: 'export const f = (c: C) => [c.codec.identity(c.conn, fresh), c.codec.era];\n' }));
  assert.equal(ok.status, 0, `${ok.stdout}${ok.stderr}`);
  const within = eras(
    project({ 'src/protocol/eras/index.ts': "export const f = (c: C) => c.codec.handshake === 'discover';\n" }),
  );
  assert.equal(within.status, 0, `protocol/ may read its own codecs: ${within.stderr}`);
  const tests = 'tests a codec member (ask a member function)';
  failsWith(file, [
    ["export const f = (call: C) => call.codec.questions === 'input-required';", tests],
    ["export const f = (call: C) => 'client' !== call.codec.tasks.directedBy;", tests],
    ['export const f = (call: C) => (call.codec.listenAck ? 1 : 0);', tests],
    ['export const f = (c: C) => { if (c.codec.sessions) return 1; };', tests],
    ['export const f = (c: C) => c.codec?.client.paramHeaders && c.x;', tests],
    ['export const f = (c: C) => !c.codec.http.pushStream;', tests],
  ]);
});

test('eras: a codec chosen again outside the one place per layer fails; the choice points pass', () => {
  for (const chosen of ['src/server/call.ts', 'src/upstream/probe.ts', 'src/shim/modern.ts']) {
    const ok = eras(project({ [chosen]: 'export const f = (rev: R) => codecFor(rev);\n' }));
    assert.equal(ok.status, 0, `${chosen}: ${ok.stderr}`);
  }
  const again = 'chooses the codec again (carry the one chosen)';
  failsWith('src/transport/probe.ts', [
    ['export const f = (rev: R) => codecFor(rev).cursor(x);', again],
    ['export const f = (c: U) => codecOfEra(c.era).client.meta(o);', again],
    ['export const f = (p: P) => codecOfRequest(p)?.client.headers(m, p, e);', again],
  ]);
});

test('eras: a revision checked in src/gateway/ fails; a revision recorded, or a type, passes', () => {
  const file = 'src/gateway/probe.ts';
  const ok = eras(
    project({
      [file]:
        "import type { Revision } from '../protocol/revisions';\nexport const f = (ctx: C) => ({ revision: ctx.rev });\n",
    }),
  );
  assert.equal(ok.status, 0, `${ok.stdout}${ok.stderr}`);
  failsWith(file, [
    [
      "import { INPUT_ERROR_AS_RESULT, inSpan } from '../protocol/revisions';",
      'reads the revision table in the gateway',
    ],
    ["import { codecFor } from '../../protocol/eras';", 'reads the revision table in the gateway'],
    [
      "export const f = (ctx: C) => hasField('ElicitParams', 'elicitationId', ctx.rev);",
      'checks a revision in the gateway',
    ],
    [
      'export const f = (ctx: C) => declares(ctx.clientCapabilities, m, p, ctx.rev);',
      'checks a revision in the gateway',
    ],
    ["export const f = (ctx: C) => ctx.rev === '2025-11-25';", 'checks a revision in the gateway'],
  ]);
});
