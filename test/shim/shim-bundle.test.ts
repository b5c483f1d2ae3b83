// The stdio shim as a small program (docs/gateway.md "The stdio shim"): its own bundle, dist/shim.js (entry
// src/cli/serveShim.ts), whose import graph reaches no zod, no gateway/server/app module and no global
// fetch (node:http to the gateway); the `mcpx` loader (src/bin.ts) starts it for `serve` without
// --standalone, and hands help and bad usage on to the whole command line, which answers as before.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { build } from 'esbuild';
import { cliJs, repoRoot } from '../harness/gateway';

const root = repoRoot();
const dir = mkdtempSync(join(tmpdir(), 'mcpx-shim-bundle-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Code without its line and block comments (a comment may name fetch). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

describe("the stdio shim's own bundle", () => {
  test('its import graph (every import, dynamic ones too) reaches no zod, no gateway module and no global fetch', async () => {
    const { metafile } = await build({
      entryPoints: [join(root, 'src', 'cli', 'serveShim.ts')],
      absWorkingDir: root,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(metafile.inputs);
    assert.ok(
      inputs.includes('src/shim/relay.ts') &&
        inputs.includes('src/shim/nodeHttp.ts') &&
        inputs.includes('src/upstream/streamable.ts'),
      inputs.join('\n'),
    );
    const packages = new Set(inputs.flatMap((f) => f.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ?? []));
    assert.deepEqual([...packages], ['eventsource-parser'], 'the only package bundled');
    const heavy = inputs.filter((f) =>
      /^src\/(gateway|server|app|transport|vscode)\/|^src\/(upstream\/http|protocol\/methods|config\/file|config\/servers|cli\/standalone)\.ts$/.test(
        f,
      ),
    );
    assert.deepEqual(heavy, []);
    const fetching = inputs.filter(
      (f) => f.startsWith('src/') && /(?<![.\w])fetch\s*\(/.test(code(readFileSync(join(root, f), 'utf8'))),
    );
    assert.deepEqual(fetching, [], 'no module of the shim calls the global fetch');
    // The check sees a call of fetch where there is one: the HTTP upstream the shim used before.
    assert.match(code(readFileSync(join(root, 'src/upstream/http.ts'), 'utf8')), /(?<![.\w])fetch\s*\(/);
  });

  test('dist/shim.js as built: no zod in its inputs or its text, and a small part of dist/mcpx.js', () => {
    const meta = JSON.parse(readFileSync(join(root, 'dist', 'shim.meta.json'), 'utf8')) as {
      inputs: Record<string, unknown>;
    };
    assert.ok(Object.keys(meta.inputs).includes('src/cli/serveShim.ts'));
    assert.deepEqual(
      Object.keys(meta.inputs).filter((f) => f.includes('zod')),
      [],
    );
    const shim = readFileSync(join(root, 'dist', 'shim.js'), 'utf8');
    const whole = readFileSync(join(root, 'dist', 'mcpx.js'), 'utf8');
    // zod's error class is in every bundle that holds zod: the whole command line's does.
    assert.match(whole, /ZodError/);
    assert.doesNotMatch(shim, /ZodError|zod/i);
    const [s, w] = [statSync(join(root, 'dist', 'shim.js')).size, statSync(join(root, 'dist', 'mcpx.js')).size];
    assert.ok(s * 4 < w, `dist/shim.js ${s} bytes, dist/mcpx.js ${w} bytes`);
  });
});

describe('the mcpx loader picks the bundle', () => {
  // Records, at exit, which of mcpx's bundles this process loaded (MCPX_CODE_CACHE=0: loaded by require).
  const hook = join(dir, 'hook.js');
  writeFileSync(
    hook,
    `process.on('exit', () => require('node:fs').writeFileSync(process.env.LOADED_TO, JSON.stringify(Object.keys(require.cache).filter((f) => /[\\\\/]dist[\\\\/]\\w+\\.js$/.test(f)).map((f) => require('node:path').basename(f)).sort())));\n`,
  );
  const run = (args: string[], n: number) =>
    new Promise<{ code: number | null; stdout: string; stderr: string; loaded: string[] }>((resolve) => {
      const out = join(dir, `loaded-${n}.json`);
      const env = {
        ...process.env,
        XDG_CONFIG_HOME: dir,
        XDG_STATE_HOME: dir,
        MCPX_CODE_CACHE: '0',
        LOADED_TO: out,
      };
      const child = execFile(process.execPath, ['-r', hook, cliJs(), ...args], { env }, (e, stdout, stderr) =>
        resolve({
          code: child.exitCode ?? (e as { code?: number } | null)?.code ?? null,
          stdout,
          stderr,
          loaded: JSON.parse(readFileSync(out, 'utf8')) as string[],
        }),
      );
      child.stdin?.end();
    });

  test('serve without --standalone runs dist/shim.js alone; stdin closed: exit 0', async () => {
    const r = await run(['serve', '--transport', 'stdio', '--connect', 'http://127.0.0.1:9/mcp/x'], 1);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.loaded, ['cli.js', 'shim.js']);
    assert.match(r.stderr, /^mcpx: serving stdio through http:\/\/127\.0\.0\.1:9\/mcp\n/);
  });

  test('serve --help and bad usage: the shim hands them to dist/mcpx.js, which answers as before', async () => {
    const help = await run(['serve', '--help'], 2);
    assert.equal(help.code, 0, help.stderr);
    assert.deepEqual(help.loaded, ['cli.js', 'mcpx.js', 'shim.js']);
    assert.match(help.stdout, /^usage:\n {2}mcpx serve --transport stdio \[--connect/);
    const bad = await run(['serve', '--transport', 'stdio', '--endpoint', 'x'], 3);
    assert.equal(bad.code, 2);
    assert.match(
      bad.stderr,
      /^mcpx: --endpoint: only mcpx elicit, tasks, activity, auth, reload, restart, permissions, pins and profiles take it\nusage:\n/,
    );
    const http = await run(['serve', '--transport', 'http'], 4);
    assert.equal(http.code, 2);
    assert.match(http.stderr, /^mcpx: serve --transport http is removed/);
  });

  test('serve --standalone and every other subcommand load dist/mcpx.js only', async () => {
    const r = await run(['settings', '--help'], 5);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.loaded, ['cli.js', 'mcpx.js']);
    const s = await run(['serve', '--transport', 'stdio', '--standalone'], 6);
    assert.equal(s.code, 0, s.stderr);
    assert.deepEqual(s.loaded, ['cli.js', 'mcpx.js']);
  });
});
