// GitHub Copilot CLI: ~/.copilot/mcp-config.json (COPILOT_HOME moves the folder), servers under
// `mcpServers`, each with a `type` (local/stdio, http, sse) and the `tools` it may call (`["*"]`: all);
// `${VAR}` is expanded. Source: https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers.
import { type Client, JSON_FILE } from '../client';
import { envOf, joinFor } from '../places';
import { plainEntry, readStandard } from './common';

const home = (p: Parameters<Client['file']>[0]) => envOf(p, 'COPILOT_HOME') ?? joinFor(p, p.home, '.copilot');

export const copilot: Client = {
  id: 'copilot',
  name: 'Copilot CLI',
  docs: 'https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers',
  format: JSON_FILE,
  file: (p) => joinFor(p, home(p), 'mcp-config.json'),
  appDirs: (p) => [home(p)],
  serversPath: () => ['mcpServers'],
  entry: (shim) => ({ type: 'local', ...plainEntry(shim), tools: ['*'] }),
  read: (raw) =>
    readStandard(raw, {
      refs: ['dollar-brace'],
      urls: { url: 'http' },
      known: ['type', 'tools'],
      typeOf: (r) => (r.type === 'sse' ? 'sse' : undefined),
    }),
};
