// Claude Code: the user scope is the top-level `mcpServers` of ~/.claude.json (`projects[PATH].mcpServers`
// are per-project and left alone); CLAUDE_CONFIG_DIR moves the file. Entries carry `type` (stdio, http,
// sse); `${VAR}` in values is expanded. Source: https://code.claude.com/docs/en/mcp ("MCP installation
// scopes", "Environment variable expansion in .mcp.json").
import { type Client, JSON_FILE } from '../client';
import { envOf, joinFor } from '../places';
import { plainEntry, readStandard } from './common';

export const claudeCode: Client = {
  id: 'claude-code',
  name: 'Claude Code',
  docs: 'https://code.claude.com/docs/en/mcp',
  format: JSON_FILE,
  file: (p) => joinFor(p, envOf(p, 'CLAUDE_CONFIG_DIR') ?? p.home, '.claude.json'),
  appDirs: (p) => [envOf(p, 'CLAUDE_CONFIG_DIR') ?? joinFor(p, p.home, '.claude')],
  serversPath: () => ['mcpServers'],
  entry: (shim) => plainEntry(shim, { type: 'stdio' }),
  read: (raw) =>
    readStandard(raw, {
      refs: ['dollar-brace'],
      urls: { url: 'http' },
      known: ['type'],
      typeOf: (r) => (r.type === 'sse' ? 'sse' : undefined),
    }),
};
