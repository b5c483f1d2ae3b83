// What a gateway of the command line's own starts from: the config file and the settings over it
// (docs/settings.md: the file's, the environment's, the flags'). `mcpx daemon`, `mcpx serve --standalone`,
// `mcpx settings` and `mcpx auth` read them; the stdio shim does not (the gateway it reaches has its own).
import { type Config, loadConfig } from '../config/file';
import { defaultStateDir } from '../config/paths';
import { Settings, envLayer } from '../config/settings';
import { FileSecretStore } from '../upstream/auth/store';
import type { Args } from './args';

/** --config FILE, else `$XDG_CONFIG_HOME/mcpx/mcp.json`, else the embedded default; ${secret:NAME} from
 *  mcpx's owner-only secret store (`<state>/secrets.json`, written by `mcpx install`). */
export function configOf(a: Args): Config {
  const secrets = FileSecretStore.serverSecrets(defaultStateDir(process.env)).read();
  return loadConfig(a.config, { env: process.env, workspaceFolder: process.cwd(), secrets });
}

/** Each problem of the config file on stderr (the servers it could read still run). */
export function reportIssues(config: Config): void {
  for (const i of config.issues)
    process.stderr.write(`mcpx: config ${config.source}: ${i.path || '(file)'}: ${i.message}\n`);
}

export function settingsOf(config: Config, a: Args): Settings {
  return new Settings([
    { source: 'config', values: config.settings },
    { source: 'env', values: envLayer(process.env) },
    { source: 'flag', values: a.flags },
  ]);
}
