// Codex CLI: $CODEX_HOME/config.toml (~/.codex/config.toml), TOML, one `[mcp_servers.NAME]` table per
// server: `command`, `args`, `env`, `env_vars` (variables passed on), `cwd`; a remote one `url` with
// `bearer_token_env_var`, `http_headers`, `env_http_headers`; `enabled = false` switches one off. Sources:
// https://developers.openai.com/codex/mcp/, https://developers.openai.com/codex/config-reference.
import { type Client, TOML_FILE } from '../client';
import { envOf, joinFor } from '../places';
import { fromLocal, fromRemote, isObject, plainEntry, unknownKeys } from './common';

const home = (p: Parameters<Client['file']>[0]) => envOf(p, 'CODEX_HOME') ?? joinFor(p, p.home, '.codex');
const KNOWN = ['command', 'args', 'env', 'env_vars', 'cwd', 'enabled'];
const KNOWN_REMOTE = ['url', 'bearer_token_env_var', 'http_headers', 'env_http_headers', 'enabled'];

export const codex: Client = {
  id: 'codex',
  name: 'Codex CLI',
  docs: 'https://developers.openai.com/codex/mcp/',
  format: TOML_FILE,
  file: (p) => joinFor(p, home(p), 'config.toml'),
  appDirs: (p) => [home(p)],
  serversPath: () => ['mcp_servers'],
  entry: (shim) => plainEntry(shim),
  read(raw) {
    if (!isObject(raw)) return 'it is not a table';
    const extra = raw.enabled === false ? { disabled: true } : {};
    if (raw.url !== undefined) {
      // Every header as an mcpx reference where Codex takes it from a variable; literal ones stay literal.
      const headers: Record<string, unknown> = isObject(raw.http_headers) ? { ...raw.http_headers } : {};
      if (isObject(raw.env_http_headers))
        for (const [h, v] of Object.entries(raw.env_http_headers)) headers[h] = `\${env:${String(v)}}`;
      if (typeof raw.bearer_token_env_var === 'string')
        headers.Authorization = `Bearer \${env:${raw.bearer_token_env_var}}`;
      const dropped = unknownKeys(raw, KNOWN_REMOTE);
      return fromRemote({ url: raw.url, type: 'http', headers }, ['env-colon'], extra, dropped);
    }
    const r = fromLocal(
      { command: raw.command, args: raw.args, env: raw.env, cwd: raw.cwd },
      [],
      extra,
      unknownKeys(raw, KNOWN),
    );
    if (typeof r === 'string' || !Array.isArray(raw.env_vars)) return r;
    // Variables Codex passes on from its own environment: mcpx takes them from the gateway's.
    const passed = Object.fromEntries(raw.env_vars.map((v) => [String(v), `\${env:${String(v)}}`]));
    return { ...r, def: { ...r.def, env: { ...(r.def.env as object | undefined), ...passed } } };
  },
};
