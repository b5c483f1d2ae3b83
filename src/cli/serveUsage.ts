// What `mcpx serve` takes and how the usage shows it: read by the dispatcher's command (./serve.ts) and by
// the shim's own bundle (./serveShim.ts), which parses the same flags the same way.
import { SETTING_FLAGS } from './args';
import type { Command } from './command';

export const SERVE = {
  usage: [
    [
      'serve --transport stdio [--connect auto|URL|ssh://host[:port]]',
      "a stdio shim onto a running gateway (auto: this folder's",
      'editor window, the running daemon, else one started)',
    ],
    [
      'serve --transport stdio --standalone [--config FILE] [--passthrough a,b] [--mcp-spec REV] [--set key=value]',
      'a whole gateway in this process',
    ],
  ],
  flags: ['transport', 'connect', 'standalone', 'config', ...SETTING_FLAGS],
} as const satisfies Omit<Command, 'run'>;
