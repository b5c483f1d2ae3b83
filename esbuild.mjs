// Builds the extension and the CLI into dist/ (dependencies bundled, `vscode` external), and with
// --tests every test, fixture and benchmark into build/ (packages left external).
import { build } from 'esbuild';
import { readdirSync, statSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = new Set(process.argv.slice(2));
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
  // jsonc-parser's `main` is a UMD build whose requires esbuild cannot follow: its ES module build instead.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
};

function files(dir, pred) {
  let out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(files(p, pred));
    else if (pred(p)) out.push(p);
  }
  return out;
}

await Promise.all([
  // The banner notes when the bundle starts loading (bench/activation.ts reports load + activate time).
  build({
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    external: ['vscode'],
    minify: true,
    keepNames: true,
    banner: { js: 'globalThis.__mcpxLoadStart = performance.now();' },
    footer: { js: 'globalThis.__mcpxLoadEnd = performance.now();' },
  }),
  // `mcpx` is a small loader (src/bin.ts) that compiles the CLI bundle through V8's code cache.
  build({ ...common, entryPoints: ['src/bin.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } }),
  // Whitespace and syntax minified, identifiers kept: keepNames would wrap every closure created at run
  // time in __name() (Object.defineProperty and a map transition: ~0.5 us per closure, dozens per
  // tools/call on the request path); identifiers kept keep the names without it (+100 KB, same start-up).
  build({
    ...common,
    entryPoints: ['src/cli.ts'],
    outfile: 'dist/mcpx.js',
    minifyWhitespace: true,
    minifySyntax: true,
  }),
  // The stdio shim's own bundle (src/cli/serveShim.ts): what `mcpx serve` without --standalone starts
  // (src/bin.ts), with no zod and no gateway module in it (test/shim/shim-bundle.test.ts reads its metafile).
  build({
    ...common,
    entryPoints: ['src/cli/serveShim.ts'],
    outfile: 'dist/shim.js',
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: true,
  }).then((r) => writeFileSync('dist/shim.meta.json', JSON.stringify(r.metafile))),
  // The process an mcpx_exec script runs in (src/gateway/exec/child.ts; docs/exec.md): its own bundle,
  // started by path under the sandbox's flags, shipped in the .vsix beside dist/cli.js.
  build({ ...common, entryPoints: ['src/gateway/exec/child.ts'], outfile: 'dist/exec-child.js', sourcemap: false }),
  // The relay inside an upstream's sandbox (src/upstream/sandbox/relay.ts; docs/security.md "The upstream
  // sandbox"): its own bundle, started by path inside bubblewrap, shipped in the .vsix beside dist/cli.js.
  build({
    ...common,
    entryPoints: ['src/upstream/sandbox/relay.ts'],
    outfile: 'dist/sandbox-relay.js',
    sourcemap: false,
  }),
  // The watchdog each process mcpx starts runs under on Windows (src/platform/watchdog.ts; docs/platforms.md
  // "No orphans on Windows"): its own bundle, with cross-spawn, shipped in the .vsix beside dist/cli.js.
  build({ ...common, entryPoints: ['src/platform/watchdog.ts'], outfile: 'dist/watchdog.js', sourcemap: false }),
  // OpenTelemetry (src/telemetry/otel.ts; docs/gateway.md "Telemetry"): its own bundle, required at run time by
  // src/telemetry/trace.ts only while telemetry.otlpEndpoint is set, so dist/mcpx.js and dist/extension.js
  // hold none of it (test/gateway/otel.test.ts); shipped in the .vsix beside them.
  build({
    ...common,
    entryPoints: ['src/telemetry/otel.ts'],
    outfile: 'dist/otel.js',
    minify: true,
    sourcemap: false,
  }),
  // The Redis store (src/redis/store.ts; docs/team.md "The store"): its own bundle, required at run time by
  // src/store/open.ts only when store.url names Redis, so dist/mcpx.js and dist/extension.js hold no Redis
  // client; shipped beside them.
  build({
    ...common,
    entryPoints: ['src/redis/store.ts'],
    outfile: 'dist/store-redis.js',
    minify: true,
    sourcemap: false,
  }),
  // The webview form's page (webview/form.js, @vscode-elements/elements bundled in) and its stylesheet:
  // what src/vscode/webviewForm.ts loads, from dist/webview/ only.
  build({
    entryPoints: ['webview/form.js', 'webview/form.css'],
    outdir: 'dist/webview',
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    minify: true,
    logLevel: 'warning',
  }),
  // The page an MCP App runs in (webview/app.js: the app in a sandboxed frame and ext-apps' AppBridge, with
  // the SDK modules it needs bundled in; src/vscode/apps/appPanel.ts loads it), from dist/webview/ only.
  // ext-apps' peer zod (^4) is the project's own zod by package.json "overrides": app-bridge imports only
  // `zod/v4`, which zod 3.25 carries; the SDK's client and core keep their own zod 4.
  build({
    entryPoints: ['webview/app.js'],
    outdir: 'dist/webview',
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    minify: true,
    logLevel: 'warning',
  }),
  // The client leg of `npm run conformance` (scripts/conformance.ts): mcpx's upstream client.
  build({ ...common, entryPoints: ['src/conformance/client.ts'], outfile: 'dist/conformance-client.js' }),
]);

if (args.has('--tests')) {
  rmSync('build', { recursive: true, force: true });
  const entries = [
    ...files('test', (p) => p.endsWith('.test.ts') || (p.startsWith(join('test', 'fixtures')) && p.endsWith('.ts'))),
    ...files('bench', (p) => p.endsWith('.ts') && !p.endsWith('.d.ts') && !p.startsWith(join('bench', 'vscode'))),
    ...files('scripts', (p) => p.endsWith('.ts')),
  ];
  // Packages stay external here, loaded by Node as they are (jsonc-parser's UMD build included).
  await build({ ...common, alias: {}, entryPoints: entries, outdir: 'build', outbase: '.', packages: 'external' });
  // The tests module run inside a real VS Code extension host (test/vscode.test.ts loads it there).
  await build({
    ...common,
    target: 'node22',
    entryPoints: { suite: 'test/vscode/suite.ts', activation: 'bench/vscode/activation.ts' },
    outdir: 'build/vscode',
    external: ['vscode'],
  });
}
