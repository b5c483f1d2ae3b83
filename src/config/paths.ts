// Where headless mcpx keeps its files, as the system places them (docs/platforms.md "Places"). A module
// of its own because the `mcpx` command's loader (src/bin.ts) needs the state directory before the rest
// of mcpx is loaded.
import { places } from '../platform';

/** Headless state (the era cache, stored questions, the code cache): $XDG_STATE_HOME/mcpx where set, else
 *  ~/.local/state/mcpx, ~/Library/Application Support/mcpx, %LOCALAPPDATA%\mcpx. */
export function defaultStateDir(env: NodeJS.ProcessEnv): string {
  return places(env).stateDir;
}

/** $XDG_CONFIG_HOME/mcpx/mcp.json where set, else ~/.config/mcpx/mcp.json, ~/Library/Application
 *  Support/mcpx/mcp.json, %APPDATA%\mcpx\mcp.json. */
export function defaultConfigPath(env: NodeJS.ProcessEnv): string {
  return places(env).configFile;
}
