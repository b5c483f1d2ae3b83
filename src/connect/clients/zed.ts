// Zed: its settings.json (JSONC: comments, trailing commas) — ~/.config/zed on macOS, $XDG_CONFIG_HOME/zed
// (~/.config/zed) on Linux, %APPDATA%\Zed on Windows — servers under `context_servers`: `{command, args,
// env}` or `{url, headers}`; an older form nests `{command: {path, args, env}}`; an extension's own entry
// (`source: "extension"`) is the extension's. Sources: https://zed.dev/docs/ai/mcp ("As Custom Servers"),
// https://zed.dev/docs/configuring-zed ("Settings Files").
import { type Client, JSONC_FILE } from '../client';
import { joinFor, xdgConfig } from '../places';
import { fromLocal, isObject, plainEntry, readStandard, unknownKeys } from './common';

export const zed: Client = {
  id: 'zed',
  name: 'Zed',
  docs: 'https://zed.dev/docs/ai/mcp',
  format: JSONC_FILE,
  file: (p) => joinFor(p, zedDir(p), 'settings.json'),
  appDirs: (p) => [zedDir(p)],
  serversPath: () => ['context_servers'],
  entry: (shim) => plainEntry(shim),
  read(raw) {
    if (!isObject(raw)) return 'it is not an object';
    if (raw.source === 'extension') return 'it is provided by a Zed extension';
    const extra = raw.enabled === false ? { disabled: true } : {};
    if (isObject(raw.command)) {
      const c = raw.command;
      const dropped = unknownKeys(raw, ['command', 'source', 'enabled']);
      return fromLocal({ command: c.path, args: c.args, env: c.env }, [], extra, dropped);
    }
    return readStandard(raw, {
      refs: [],
      urls: { url: 'http' },
      known: ['source', 'enabled'],
      off: (r) => r.enabled === false,
    });
  },
};

function zedDir(p: Parameters<Client['file']>[0]): string {
  if (p.os === 'win32') return joinFor(p, p.appData ?? joinFor(p, p.home, 'AppData', 'Roaming'), 'Zed');
  return joinFor(p, p.os === 'darwin' ? joinFor(p, p.home, '.config') : xdgConfig(p), 'zed');
}
