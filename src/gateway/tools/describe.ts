// mcpx_describe: one tool (or every tool) of a server, with the TypeScript declarations an mcpx_exec
// script calls it by (docs/exec.md "Typed functions").
import { PREAMBLE, declarationsFor } from '../exec/declarations';
import { noSuchTool, offeredServer } from '../profiles/view';
import { type GatewayTool, jsonResult, obj } from './tool';

export const mcpxDescribe: GatewayTool = {
  definition: {
    name: 'mcpx_describe',
    title: 'Describe one tool',
    description:
      "One tool's title, description, input and output schemas and annotations, and `typescript`: the declarations of the function an mcpx_exec script calls it by. Without `tool`: the declarations of every tool of the server.",
    inputSchema: obj({ server: { type: 'string' }, tool: { type: 'string' } }, ['server']),
    outputSchema: obj(
      {
        server: { type: 'string' },
        tool: { type: 'object' },
        tools: { type: 'array', items: { type: 'string' } },
        typescript: { type: 'string' },
      },
      ['server', 'typescript'],
    ),
    annotations: { readOnlyHint: true },
  },
  run: async (args, ctx, d) => {
    const o = d.profiles.of(ctx);
    const server = offeredServer(o.view, String(args.server));
    // What the caller's endpoint offers, as it presents it; the upstream's own names (what mcpx_call and a
    // script take), with the name the endpoint shows as qualifiedName.
    const all = o
      .present(server, await d.catalogue.list(server, 'tools', ctx.identity))
      .filter((t) => o.view.allows(server, String(t.name)));
    // The whole server, for a script that will call several of its tools (docs/exec.md "Typed functions").
    if (args.tool === undefined)
      return jsonResult({
        server,
        tools: all.map((t) => String(t.name)),
        typescript: `${PREAMBLE}\n${declarationsFor(server, all)}`,
      });
    const tool = all.find((t) => t.name === args.tool);
    if (!tool) throw noSuchTool(server, String(args.tool));
    return jsonResult({
      server,
      tool: { ...tool, qualifiedName: o.view.shown(server, String(tool.name)) },
      // What an mcpx_exec script is given, typed (docs/exec.md "Typed functions").
      typescript: `${PREAMBLE}\n${declarationsFor(server, [tool])}`,
    });
  },
};
