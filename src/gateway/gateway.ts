// The gateway: the Provider the server serves. This first version carries the gateway's own discovery
// of configured servers; upstream connections are added by the gateway issue.
import type { Config } from '../config/file';
import type { Settings } from '../config/settings';
import { invalidParams } from '../protocol/errors';
import type { JsonObject } from '../protocol/jsonrpc';
import type { CallContext, Provider, ProviderCapabilities } from '../server/provider';
import type { Route } from '../transport/http';

export interface GatewayOptions {
  log?: (line: string) => void;
}

export class Gateway implements Provider {
  constructor(
    readonly config: Config,
    readonly settings: Settings,
    readonly opts: GatewayOptions = {},
  ) {}

  capabilities(): ProviderCapabilities {
    return { tools: true };
  }

  async listTools(): Promise<JsonObject[]> {
    return [
      {
        name: 'mcpx_servers',
        title: 'Configured MCP servers',
        description: 'Every configured upstream server with its transport.',
        inputSchema: { type: 'object', properties: {} },
        annotations: { readOnlyHint: true },
      },
    ];
  }

  async callTool(name: string, _args: JsonObject, _ctx: CallContext): Promise<JsonObject> {
    if (name !== 'mcpx_servers') throw invalidParams(`no tool named ${JSON.stringify(name)}`);
    const servers = this.config.servers.map((s) => ({ name: s.name, transport: s.type }));
    return { content: [{ type: 'text', text: JSON.stringify({ servers }, null, 2) }], structuredContent: { servers } };
  }

  routes(): Route[] {
    return [];
  }

  async close(): Promise<void> {}
}
