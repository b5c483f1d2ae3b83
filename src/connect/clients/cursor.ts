// Cursor: the global ~/.cursor/mcp.json (%USERPROFILE%\.cursor on Windows), servers under `mcpServers`:
// `{command, args, env}`, or `{url, headers}` (Cursor picks Streamable HTTP or SSE itself); `${env:NAME}`
// is expanded. Source: https://cursor.com/docs/mcp ("Configuration locations", "Config interpolation").
import { type Client, JSON_FILE } from '../client';
import { joinFor } from '../places';
import { plainEntry, readStandard } from './common';

export const cursor: Client = {
  id: 'cursor',
  name: 'Cursor',
  docs: 'https://cursor.com/docs/mcp',
  format: JSON_FILE,
  file: (p) => joinFor(p, p.home, '.cursor', 'mcp.json'),
  appDirs: (p) => [joinFor(p, p.home, '.cursor')],
  serversPath: () => ['mcpServers'],
  entry: (shim) => plainEntry(shim),
  read: (raw) =>
    readStandard(raw, {
      refs: ['env-colon'],
      urls: { url: 'http' },
      known: ['type'],
      typeOf: (r) => (r.type === 'sse' ? 'sse' : undefined),
    }),
};
