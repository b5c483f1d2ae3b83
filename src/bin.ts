// The `mcpx` command (dist/cli.js). It loads mcpx itself (dist/mcpx.js, one bundle: src/cli.ts, which
// loads a subcommand's module only when it runs) through V8's code cache, kept in the state directory: a
// start after the first skips compiling the bundle and the functions the previous start compiled, its first
// call's among them (docs/performance.md "Cold start"; in one measured run `mcpx settings` took 151 ms with
// the cache, 168 ms without, Node alone 117 ms). Node 22+ does this itself (module.enableCompileCache);
// Node 20 has vm.Script's cachedData. MCPX_CODE_CACHE=0 turns it off. The bundle is chosen per run
// (`bundleFor`), each with its own cache: `serve` without --standalone starts the stdio shim's own bundle
// (dist/shim.js: src/cli/serveShim.ts, no zod, no gateway), which hands any other arguments back here for
// dist/mcpx.js (help, a usage error), so what the command says and its exit status are the same.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { defaultStateDir } from './config/paths';

interface Cli {
  /** false: not this bundle's arguments (the shim's bundle, for help or a usage error): mcpx.js runs them. */
  main(argv: string[]): Promise<unknown>;
}

const KEEP_CACHES = 3;

const WHOLE = 'mcpx.js';

/** The bundle that runs these arguments first: the shim's for `serve` without --standalone, else
 *  dist/mcpx.js, which holds every subcommand. */
function bundleFor(argv: readonly string[]): string {
  return join(__dirname, argv[0] === 'serve' && !argv.includes('--standalone') ? 'shim.js' : WHOLE);
}

async function run(argv: string[]): Promise<void> {
  const first = bundleFor(argv);
  if ((await load(first).main(argv)) === false && basename(first) !== WHOLE)
    await load(join(__dirname, WHOLE)).main(argv);
}

function load(bundle: string): Cli {
  const requireBundle = createRequire(bundle);
  if (process.env.MCPX_CODE_CACHE === '0') return requireBundle(bundle) as Cli;
  const dir = join(defaultStateDir(process.env), 'code-cache');
  const builtin = (Module as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
  if (builtin) {
    builtin(dir);
    return requireBundle(bundle) as Cli;
  }
  return loadCached(bundle, dir);
}

/** The bundle compiled with the cache of this exact bundle on this exact runtime, if there is one; if
 *  not (or V8 refuses it), one is written once, a few seconds in or at exit, whichever comes first. */
function loadCached(bundle: string, dir: string): Cli {
  const source = readFileSync(bundle, 'utf8');
  // One cache file per bundle and build: <bundle's name>-<hash>.v8 (mcpx-….v8 for dist/mcpx.js).
  const prefix = `${basename(bundle, '.js')}-`;
  // The name holds the bundle's hash: V8 checks only the source's length and its own version and flags.
  const key = createHash('sha256')
    .update(source)
    .update(process.version)
    .update(process.arch)
    .digest('hex')
    .slice(0, 20);
  const file = join(dir, `${prefix}${key}.v8`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(file);
  } catch {
    // the first start of this bundle here
  }
  const script = new Script(Module.wrap(source), { filename: bundle, cachedData });
  const run = script.runInThisContext() as (
    exports: object,
    require: NodeJS.Require,
    module: { exports: object },
    filename: string,
    dirname: string,
  ) => void;
  const mod = { exports: {} };
  run.call(mod.exports, mod.exports, createRequire(bundle), mod, bundle, dirname(bundle));
  if (!cachedData || script.cachedDataRejected) {
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const tmp = `${file}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, file); // two starts writing at once: each renames a whole file
        // The newest few are kept (two installs used in turn must not keep replacing each other's).
        const caches = readdirSync(dir)
          .filter((f) => f.startsWith(prefix) && f.endsWith('.v8'))
          .map((f) => ({ path: join(dir, f), mtime: statSync(join(dir, f)).mtimeMs }))
          .sort((a, b) => b.mtime - a.mtime);
        for (const old of caches.slice(KEEP_CACHES)) rmSync(old.path, { force: true });
      } catch {
        // A read-only or full state directory costs the next start its compile time, nothing else.
      }
    };
    setTimeout(write, 3000).unref();
    process.once('exit', write);
  }
  return mod.exports as Cli;
}

const argv = process.argv.slice(2);
run(argv).catch((e: Error) => {
  process.stderr.write(`mcpx: ${e.message}\n`);
  process.exit(2);
});
