// opencode: $XDG_CONFIG_HOME/opencode/opencode.json (~/.config/opencode on every OS; opencode.jsonc when
// only that one exists), JSONC. Its own entry shape: a local server is `{type: "local", command: [cmd,
// ...args], environment}`, a remote one `{type: "remote", url, headers}`; `{env:NAME}` is expanded. V2
// keeps servers under `mcp.servers`, V1 under `mcp` (V2 reads V1's shape): the shape the file uses is
// written, V1's when it has none. Sources: https://opencode.ai/docs/mcp-servers/,
// https://opencode.ai/docs/config/, https://opencode.ai/docs/migrate-v1/.
import { existsSync } from 'node:fs';
import { type Client, JSONC_FILE, type Json } from '../client';
import { joinFor, xdgConfig } from '../places';
import { fromLocal, fromRemote, isObject, unknownKeys } from './common';

const KNOWN = ['type', 'command', 'environment', 'url', 'headers', 'enabled', 'disabled'];

export const opencode: Client = {
  id: 'opencode',
  name: 'opencode',
  docs: 'https://opencode.ai/docs/mcp-servers/',
  format: JSONC_FILE,
  file(p, exists = existsSync) {
    const dir = joinFor(p, xdgConfig(p), 'opencode');
    const json = joinFor(p, dir, 'opencode.json');
    const jsonc = joinFor(p, dir, 'opencode.jsonc');
    return !exists(json) && exists(jsonc) ? jsonc : json;
  },
  appDirs: (p) => [joinFor(p, xdgConfig(p), 'opencode')],
  serversPath: (doc: Json) => (isObject(doc.mcp) && isObject(doc.mcp.servers) ? ['mcp', 'servers'] : ['mcp']),
  entry: (shim) => ({
    type: 'local',
    command: [shim.command, ...shim.args],
    ...(shim.env ? { environment: { ...shim.env } } : {}),
  }),
  read(raw) {
    if (!isObject(raw)) return 'it is not an object';
    const extra = raw.enabled === false || raw.disabled === true ? { disabled: true } : {};
    const dropped = unknownKeys(raw, KNOWN);
    if (raw.type === 'remote')
      return fromRemote({ url: raw.url, type: 'http', headers: raw.headers }, ['brace-env'], extra, dropped);
    if (raw.type !== 'local') return `its type ${JSON.stringify(raw.type)} is neither local nor remote`;
    const cmd = raw.command;
    if (!Array.isArray(cmd) || !cmd.length) return 'its command is not a list';
    return fromLocal({ command: cmd[0], args: cmd.slice(1), env: raw.environment }, ['brace-env'], extra, dropped);
  },
};
