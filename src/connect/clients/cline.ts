// Cline (the VS Code extension): cline_mcp_settings.json in its global storage under VS Code's user folder
// (~/.config/Code, ~/Library/Application Support/Code, %APPDATA%\Code), servers under `mcpServers`; a
// remote one by `url` with `type` streamableHttp or sse; `disabled: true` switches one off. Source:
// https://docs.cline.bot/mcp/configuring-mcp-servers.
import { type Client, JSON_FILE } from '../client';
import { type Places, appSettings, joinFor } from '../places';
import { plainEntry, readStandard } from './common';

const storage = (p: Places) => joinFor(p, appSettings(p), 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev');

export const cline: Client = {
  id: 'cline',
  name: 'Cline',
  docs: 'https://docs.cline.bot/mcp/configuring-mcp-servers',
  format: JSON_FILE,
  file: (p) => joinFor(p, storage(p), 'settings', 'cline_mcp_settings.json'),
  appDirs: (p) => [storage(p)],
  serversPath: () => ['mcpServers'],
  entry: (shim) => plainEntry(shim),
  read: (raw) =>
    readStandard(raw, {
      refs: [],
      urls: { url: 'http' },
      known: ['type', 'disabled'],
      off: (r) => r.disabled === true,
      typeOf: (r) => (r.type === 'sse' ? 'sse' : undefined),
    }),
};
