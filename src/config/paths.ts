// Where headless mcpx keeps its files. A module of its own because the `mcpx` command's loader
// (src/bin.ts) needs the state directory before the rest of mcpx is loaded.
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Headless state (the era cache, stored questions, the code cache): $XDG_STATE_HOME/mcpx, else
 *  ~/.local/state/mcpx. */
export function defaultStateDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'mcpx');
}

export function defaultConfigPath(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'mcpx', 'mcp.json');
}
