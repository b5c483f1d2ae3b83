// mcpx_call: one tool of a configured server, through the call chain (call/).
import { isObject } from '../../protocol/jsonrpc';
import { type GatewayTool, obj } from './tool';

export const mcpxCall: GatewayTool = {
  definition: {
    name: 'mcpx_call',
    title: 'Call a tool of a configured server',
    description:
      "Call `tool` on the configured MCP server `server` with `arguments`. The result is the upstream's own, verbatim. `timeoutSec` may lower the gateway's call timeout for this call, never raise it.",
    inputSchema: obj(
      {
        server: { type: 'string', description: 'A configured server name (see mcpx_servers).' },
        tool: { type: 'string', description: 'The tool name as the server lists it (see mcpx_tools).' },
        arguments: { type: 'object', description: "The tool's arguments.", additionalProperties: true },
        timeoutSec: {
          type: 'number',
          exclusiveMinimum: 0,
          description: 'A shorter timeout for this call, in seconds.',
        },
      },
      ['server', 'tool'],
    ),
    annotations: { openWorldHint: true },
    // A long upstream call may run as a task (2025-11-25 server/tools "Tool-Level Negotiation"); spelled
    // only to 2025-11-25 (the revision table's Tool.execution).
    execution: { taskSupport: 'optional' },
  },
  run: (args, ctx, d) =>
    d.entries.tool(String(args.server), String(args.tool), isObject(args.arguments) ? args.arguments : {}, ctx, {
      timeoutMs: typeof args.timeoutSec === 'number' ? args.timeoutSec * 1000 : undefined,
    }),
};
