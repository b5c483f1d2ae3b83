// mcpx_tools: the search across every server's allowed tools (toolIndex.ts findTools).
import { findTools } from '../toolIndex';
import { type GatewayTool, jsonResult, obj } from './tool';

export const mcpxTools: GatewayTool = {
  definition: {
    name: 'mcpx_tools',
    title: 'Find tools across servers',
    description:
      'List the tools of every server (or one), optionally filtered by a case-insensitive `query` on name, title and description.',
    inputSchema: obj({ query: { type: 'string' }, server: { type: 'string' } }),
    outputSchema: obj(
      { tools: { type: 'array', items: { type: 'object' } }, errors: { type: 'array', items: { type: 'object' } } },
      ['tools'],
    ),
    annotations: { readOnlyHint: true },
  },
  run: async (args, ctx, d) => {
    const servers = typeof args.server === 'string' ? [d.pool.def(args.server).name] : [...d.defs.keys()];
    return jsonResult(
      await findTools(
        { defs: d.defs, passthrough: d.passthrough, catalogue: d.catalogue },
        servers,
        ctx.identity,
        typeof args.query === 'string' ? args.query : undefined,
      ),
    );
  },
};
