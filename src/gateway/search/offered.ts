// What a request is offered, as tool search sees it: the servers whose tools are listed and which of
// their tools pass. Today every configured server and its `tools.allow`/`tools.deny` (the same set
// mcpx_tools lists); a profile's own set replaces this one function (docs/gateway.md "Tool search").
import type { ServerDef } from '../../config/servers';
import { toolAllowed } from '../names';

export interface Offer {
  /** The servers listed, in the config's order. */
  readonly servers: readonly string[];
  /** Whether the upstream tool `name` of `server` is offered. */
  allows(server: string, name: string): boolean;
}

/** Every configured server's allowed tools: what mcpx_tools lists and mcpx_call reaches. */
export function offeredTools(defs: ReadonlyMap<string, ServerDef>): Offer {
  return {
    servers: [...defs.keys()],
    allows: (server, name) => {
      const def = defs.get(server);
      return def !== undefined && toolAllowed(name, def.tools);
    },
  };
}
