// How the exec child is started (docs/exec.md "The sandbox"): the runtime the gateway itself runs on —
// plain Node, or VS Code's (its executable with ELECTRON_RUN_AS_NODE=1, as the `mcpx` launcher of
// src/vscode/install.ts runs the CLI) — under Node's permission model with reads limited to the child's
// own bundle, no addons, no code generation from strings, a heap limit, and an environment that holds
// nothing of the gateway's.
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundleNear } from '../../kit/bundles';
import { type SpawnSpec, system } from '../../platform';

const CHILD = 'exec-child.js';

/** The child bundle: beside the bundle running this code (dist/), or in the nearest dist/ above it (the
 *  tests' bundles live in build/). */
export function childBundle(from: string = __dirname): string {
  try {
    return bundleNear(CHILD, from);
  } catch (e) {
    throw new Error(`mcpx_exec: ${(e as Error).message}`);
  }
}

/** The permission flag of this runtime: `--permission` from Node 22.13/23.5, `--experimental-permission`
 *  before (Node 20). */
function permissionFlag(): string {
  return process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
}

/** The Node flags of the sandbox, before the child's path. */
export function sandboxFlags(bundle: string, heapMb: number): string[] {
  return [
    permissionFlag(),
    `--allow-fs-read=${bundle}`,
    '--no-addons',
    '--disallow-code-generation-from-strings',
    `--max-old-space-size=${heapMb}`,
    '--no-warnings',
  ];
}

export function childSpec(bundle: string, heapMb: number): SpawnSpec {
  // Under VS Code's runtime the executable is Electron: it runs as plain Node only when told so.
  const env: NodeJS.ProcessEnv = process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {};
  // A script past its heap limit ends in V8's abort (SIGABRT): no core file of it, however the system
  // is set (a heap's worth of disk per run otherwise); the pid the child reports stays its own.
  const args = [...sandboxFlags(bundle, heapMb), bundle];
  return system.withoutCoreDumps({ command: process.execPath, args, env, cwd: dirname(bundle) });
}

/** What the script's process may hold beside its V8 heap — Node itself (some 40 MB), and the memory of
 *  its typed arrays, which exec.maxHeapMB does not bound: past the two together the run is stopped. */
export const BESIDE_HEAP_MB = 256;

/** Watches the anonymous memory the process holds (Linux: RssAnon of /proc/<pid>/status — touched
 *  pages only, so reserving is free and filling is not) and calls `over` once it passes `limitMb`.
 *  Where there is no /proc (macOS, Windows) it watches nothing (docs/exec.md "Bounds"). Returns the stop. */
export function watchMemory(pid: number, limitMb: number, over: () => void): () => void {
  const file = `/proc/${pid}/status`;
  if (!existsSync(file)) return () => undefined;
  const timer = setInterval(() => {
    let kb: number;
    try {
      kb = Number(/^RssAnon:\s+(\d+) kB/m.exec(readFileSync(file, 'utf8'))?.[1] ?? 0);
    } catch {
      return; // gone: its close ends the run
    }
    if (kb <= limitMb * 1024) return;
    clearInterval(timer);
    over();
  }, MEMORY_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** How often the memory is read: filling memory at some GB/s, a script passes the bound by a few
 *  hundred MB at most before it is seen. */
const MEMORY_POLL_MS = 20;
