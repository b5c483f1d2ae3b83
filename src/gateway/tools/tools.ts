// mcpx_tools: every server's allowed tools (surface/passthroughTools.ts findTools); with `query`, those the tool search
// finds with every word of it, best first (search/find.ts, docs/gateway.md "Tool search").
import { offeredServer } from '../profiles/view';
import { findByQuery } from '../search/find';
import { findTools, toolEntry } from '../surface/passthroughTools';
import { type GatewayTool, jsonResult, obj } from './tool';

/** What mcpx_tools and mcpx_search return: the tools found, and the servers that could not list. */
export const FOUND_TOOLS = obj(
  { tools: { type: 'array', items: { type: 'object' } }, errors: { type: 'array', items: { type: 'object' } } },
  ['tools'],
);

export const mcpxTools: GatewayTool = {
  definition: {
    name: 'mcpx_tools',
    title: 'Find tools across servers',
    description:
      'List the tools of every server (or one); with `query`, only those matching every word of it (names, titles, descriptions, argument names; a word may start a longer one or be misspelt slightly), best first. mcpx_search ranks by any word.',
    inputSchema: obj({ query: { type: 'string', maxLength: 1000 }, server: { type: 'string' } }),
    outputSchema: FOUND_TOOLS,
    annotations: { readOnlyHint: true },
  },
  run: async (args, ctx, d) => {
    const o = d.profiles.of(ctx);
    const server = typeof args.server === 'string' ? offeredServer(o.view, args.server) : undefined;
    if (typeof args.query !== 'string' || args.query.trim() === '') {
      const servers = server === undefined ? o.view.servers() : [server];
      return jsonResult(await findTools({ view: o.view, catalogue: d.catalogue }, servers, ctx.identity));
    }
    const { hits, errors } = await findByQuery(d, o, ctx.identity, args.query, {
      server,
      limit: Number.POSITIVE_INFINITY,
      all: true,
    });
    const tools = hits.map((h) => toolEntry(o.view, h.server, h.tool));
    return jsonResult(errors.length ? { tools, errors } : { tools });
  },
};
