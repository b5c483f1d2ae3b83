// mcpx_servers: every configured server with its state, and the configuration issues that name it.
import type { JsonObject } from '../../protocol/jsonrpc';
import type { ToolView } from '../profiles/view';
import { type GatewayTool, type ToolDeps, jsonResult, obj } from './tool';

/** Each server the endpoint offers: its status, whether its tools are listed under their names, and the
 *  config issues that name it. */
function serverStatuses(d: Pick<ToolDeps, 'config' | 'pool'>, view: ToolView): JsonObject[] {
  const issues = d.config.issues;
  const listed = view.listed();
  return d.pool
    .statuses()
    .filter((s) => view.has(s.name))
    .map((s) => ({
      ...s,
      passthrough: listed.includes(s.name),
      ...(issues.some((i) => i.path.includes(`.${s.name}.`))
        ? { configIssues: issues.filter((i) => i.path.includes(`.${s.name}.`)) }
        : {}),
    })) as unknown as JsonObject[]; // UpstreamStatus is plain JSON
}

export const mcpxServers: GatewayTool = {
  definition: {
    name: 'mcpx_servers',
    title: 'Configured MCP servers',
    description: 'Every configured server with its state, era, protocol revision, transport and last error.',
    inputSchema: obj({}),
    outputSchema: obj({ servers: { type: 'array', items: { type: 'object' } } }, ['servers']),
    annotations: { readOnlyHint: true },
  },
  run: async (_args, ctx, d) => jsonResult({ servers: serverStatuses(d, d.profiles.of(ctx).view) }),
};
