// mcpx_search: ranked full-text search over every tool offered (docs/gateway.md "Tool search"); each
// hit carries what mcpx_call needs, so the model calls it at once.
import { offeredServer } from '../profiles/view';
import { findByQuery } from '../search/find';
import { oneLine } from '../search/index';
import { type GatewayTool, jsonResult, obj } from './tool';
import { FOUND_TOOLS } from './tools';

/** Hits of one search, at most; the default when `limit` is not given. */
const LIMIT_MAX = 50;
const LIMIT_DEFAULT = 10;

export const mcpxSearch: GatewayTool = {
  definition: {
    name: 'mcpx_search',
    title: 'Search tools across servers',
    description:
      'Find the tools that fit a task, best first: ranked full-text search over the names, titles, descriptions and argument names of every tool of every server (or one). Each hit has `server`, `name`, a one-line `description` and its `inputSchema`: call it with mcpx_call {server, tool: name, arguments}.',
    inputSchema: obj(
      {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: 1000,
          description: 'What the tool should do, in words ("create a github issue", "read a file").',
        },
        server: { type: 'string', description: 'Only tools of this configured server.' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: LIMIT_MAX,
          description: `Most hits returned (default ${LIMIT_DEFAULT}).`,
        },
      },
      ['query'],
    ),
    outputSchema: FOUND_TOOLS,
    annotations: { readOnlyHint: true },
  },
  run: async (args, ctx, d) => {
    const o = d.profiles.of(ctx);
    const server = typeof args.server === 'string' ? offeredServer(o.view, args.server) : undefined;
    const { hits, errors } = await findByQuery(d, o, ctx.identity, String(args.query), {
      server,
      limit: typeof args.limit === 'number' ? args.limit : LIMIT_DEFAULT,
    });
    const tools = hits.map((h) => ({
      server: h.server,
      name: h.name,
      description: oneLine(h.tool.description ?? h.tool.title),
      inputSchema: h.tool.inputSchema ?? { type: 'object' },
      score: Math.round(h.score * 1000) / 1000,
    }));
    return jsonResult(errors.length ? { tools, errors } : { tools });
  },
};
