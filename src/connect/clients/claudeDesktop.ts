// Claude Desktop: claude_desktop_config.json in its settings folder — ~/Library/Application Support/Claude
// on macOS, %APPDATA%\Claude on Windows, ~/.config/Claude on Linux (community builds) — servers under
// `mcpServers` as `{command, args, env}`, no variable expansion. Source:
// https://modelcontextprotocol.io/quickstart/user ("Claude Desktop"), https://support.claude.com (MCP on
// Claude Desktop).
import { type Client, JSON_FILE } from '../client';
import { appSettings, joinFor } from '../places';
import { plainEntry, readStandard } from './common';

export const claudeDesktop: Client = {
  id: 'claude-desktop',
  name: 'Claude Desktop',
  docs: 'https://modelcontextprotocol.io/quickstart/user',
  format: JSON_FILE,
  file: (p) => joinFor(p, appSettings(p), 'Claude', 'claude_desktop_config.json'),
  appDirs: (p) => [joinFor(p, appSettings(p), 'Claude')],
  serversPath: () => ['mcpServers'],
  entry: (shim) => plainEntry(shim),
  read: (raw) => readStandard(raw, { refs: [], urls: { url: 'http' }, known: [] }),
};
