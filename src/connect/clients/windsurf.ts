// Windsurf (Cascade): ~/.codeium/windsurf/mcp_config.json on every OS, servers under `mcpServers`; a remote
// one by `serverUrl` (or `url`), `disabled: true` switches one off, `${env:NAME}` is expanded. Source:
// https://docs.windsurf.com/windsurf/cascade/mcp ("mcp_config.json").
import { type Client, JSON_FILE } from '../client';
import { joinFor } from '../places';
import { plainEntry, readStandard } from './common';

export const windsurf: Client = {
  id: 'windsurf',
  name: 'Windsurf',
  docs: 'https://docs.windsurf.com/windsurf/cascade/mcp',
  format: JSON_FILE,
  file: (p) => joinFor(p, p.home, '.codeium', 'windsurf', 'mcp_config.json'),
  appDirs: (p) => [joinFor(p, p.home, '.codeium', 'windsurf')],
  serversPath: () => ['mcpServers'],
  entry: (shim) => plainEntry(shim),
  read: (raw) =>
    readStandard(raw, {
      refs: ['env-colon'],
      urls: { serverUrl: 'http', url: 'http' },
      known: ['disabled'],
      off: (r) => r.disabled === true,
    }),
};
