// The command a client runs to reach the gateway: the stdio shim (`mcpx serve --transport stdio`, with
// `--profile NAME` for a profile's tool set), started by an absolute path with no shell in between.
import { bundleNear } from '../kit/bundles';
import type { ShimCommand } from './client';
import type { Os } from './places';

/** What is known of the mcpx that runs now. */
export interface ShimFacts {
  /** The `mcpx` launcher the editor installed (src/vscode/install.ts), when there is one. */
  readonly launcher?: string;
  /** The runtime running mcpx now, and mcpx's command-line script (dist/cli.js). */
  readonly runtime: string;
  readonly script: string;
  /** The runtime is an Electron binary (VS Code's): it runs as Node with ELECTRON_RUN_AS_NODE=1. */
  readonly electron: boolean;
}

export function shimCommand(os: Os, f: ShimFacts, profile?: string): ShimCommand {
  const args = ['serve', '--transport', 'stdio', ...(profile ? ['--profile', profile] : [])];
  // The launcher is a shell script on Linux and macOS, which the OS runs by its #! line; on Windows it is
  // a .cmd file, which only cmd.exe runs, so there the runtime and the script are named instead.
  if (f.launcher && os !== 'win32') return { command: f.launcher, args };
  return {
    command: f.runtime,
    args: [f.script, ...args],
    ...(f.electron ? { env: { ELECTRON_RUN_AS_NODE: '1' } } : {}),
  };
}

/** This process's facts: its runtime, the dist/cli.js beside the running bundle, and the launcher found
 *  (src/vscode/install.ts, asked by the caller). */
export function runningShim(launcher: string | undefined): ShimFacts {
  return {
    ...(launcher ? { launcher } : {}),
    runtime: process.execPath,
    script: bundleNear('cli.js'),
    electron: process.versions.electron !== undefined,
  };
}
