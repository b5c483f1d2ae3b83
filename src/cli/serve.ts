// `mcpx serve --transport stdio`: for hosts that spawn their servers. A thin shim onto a running gateway
// (docs/gateway.md "The stdio shim"; ./serveShim.ts, also its own bundle, dist/shim.js, which the `mcpx`
// loader runs first for `serve` without --standalone), or with --standalone a whole gateway in this
// process (src/cli/standalone.ts, loaded only then: the shim's path reaches no gateway, server or app module).
import { UsageError } from './args';
import type { Args } from './args';
import type { Command } from './command';
import { SERVE, profileFlag } from './serveUsage';
import { shim } from './serveShim';

export const serve: Command = { ...SERVE, run };

async function run(a: Args): Promise<void> {
  if (a.transport === 'http')
    throw new Error(
      'serve --transport http is removed: run `mcpx daemon` and use the endpoint it prints (http://127.0.0.1:8899/mcp/<secret> by default)',
    );
  if (a.transport !== 'stdio') throw new UsageError('serve needs --transport stdio');
  profileFlag(a.profile);
  if (a.standalone) return (await import('./standalone')).standalone(a);
  return shim(a);
}
