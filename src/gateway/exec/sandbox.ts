// How the exec child is started (docs/exec.md "The sandbox"): the runtime the gateway itself runs on —
// plain Node, or VS Code's (its executable with ELECTRON_RUN_AS_NODE=1, as the `mcpx` launcher of
// src/vscode/install.ts runs the CLI) — under Node's permission model with reads limited to the child's
// own bundle, no addons, no code generation from strings, a heap limit, and an environment that holds
// nothing of the gateway's.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SpawnSpec } from '../../upstream/spawn';

const CHILD = 'exec-child.js';

/** The child bundle: beside the bundle running this code (dist/), or in the nearest dist/ above it (the
 *  tests' bundles live in build/). */
export function childBundle(from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    for (const p of [join(dir, CHILD), join(dir, 'dist', CHILD)]) if (existsSync(p)) return p;
    if (dirname(dir) === dir) throw new Error(`mcpx_exec: ${CHILD} not found above ${from}`);
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
  // is set (a heap's worth of disk per run otherwise). `exec` keeps the pid the child reports.
  const args = ['-c', 'ulimit -c 0; exec "$@"', 'mcpx-exec', process.execPath, ...sandboxFlags(bundle, heapMb), bundle];
  return { command: '/bin/sh', args, env, cwd: dirname(bundle) };
}
