// mcpx_search: ranked full-text search over every tool offered (docs/gateway.md "Tool search"); each
// hit carries what mcpx_call needs, so the model calls it at once. A query nothing matches well is told
// so, with where to look instead, rather than given the best of poor matches.
import { offeredServer } from '../profiles/view';
import { findByQuery } from '../search/find';
import { oneLine } from '../search/index';
import type { ToolView } from '../profiles/view';
import { type GatewayTool, jsonResult, obj } from './tool';
import { FOUND_TOOLS } from './tools';

/** What a search whose query matches no tool well answers, besides no tools: mcpx_tools where this
 *  endpoint offers it (a profile in search mode does not). */
function nothingWell(view: ToolView): string {
  const tools = !view.gatewayTools || view.gatewayTools.has('mcpx_tools');
  return `No tool matches this query well. Try other words${tools ? ', or mcpx_tools to list every tool (its `query` keeps those matching every word)' : ''}.`;
}

/** Hits of one search, at most; the default when `limit` is not given. */
const LIMIT_MAX = 50;
const LIMIT_DEFAULT = 10;

export const mcpxSearch: GatewayTool = {
  definition: {
    name: 'mcpx_search',
    title: 'Search tools across servers',
    description:
      'Find the tools that fit a task, best first: ranked search over the names, titles, descriptions and argument names of every tool of every server (or one), words people say for them included ("remove" finds "delete"). Each hit has `server`, `name`, a one-line `description` and its `inputSchema`: call it with mcpx_call {server, tool: name, arguments}. A query no tool matches well gets no tools and a `note` saying so.',
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
    outputSchema: {
      ...FOUND_TOOLS,
      properties: {
        ...(FOUND_TOOLS.properties as object),
        note: { type: 'string', description: 'Why no tools are given: none matches the query well.' },
      },
    },
    annotations: { readOnlyHint: true },
  },
  run: async (args, ctx, d) => {
    const o = d.profiles.of(ctx);
    const server = typeof args.server === 'string' ? offeredServer(o.view, args.server) : undefined;
    const { hits, errors, weak } = await findByQuery(d, o, ctx.identity, String(args.query), {
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
    return jsonResult({
      tools,
      ...(errors.length ? { errors } : {}),
      ...(tools.length === 0 || weak ? { note: nothingWell(o.view) } : {}),
    });
  },
};
