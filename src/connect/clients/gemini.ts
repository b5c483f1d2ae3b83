// Gemini CLI: ~/.gemini/settings.json, servers under `mcpServers`; a remote one by `httpUrl` (Streamable
// HTTP) or `url` (SSE); `$VAR` and `${VAR}` in values are expanded. Source:
// https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md ("Configuration
// Structure"), https://geminicli.com/docs/tools/mcp-server/.
import { type Client, JSON_FILE } from '../client';
import { joinFor } from '../places';
import { plainEntry, readStandard } from './common';

export const gemini: Client = {
  id: 'gemini',
  name: 'Gemini CLI',
  docs: 'https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md',
  format: JSON_FILE,
  file: (p) => joinFor(p, p.home, '.gemini', 'settings.json'),
  appDirs: (p) => [joinFor(p, p.home, '.gemini')],
  serversPath: () => ['mcpServers'],
  entry: (shim) => plainEntry(shim),
  read: (raw) =>
    readStandard(raw, { refs: ['dollar-brace', 'dollar'], urls: { httpUrl: 'http', url: 'sse' }, known: [] }),
};
