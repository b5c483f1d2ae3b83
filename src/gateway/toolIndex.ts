// The tools as the gateway finds them: the pass-through servers' tools under their own (safe) names,
// and the search behind mcpx_tools across every server.
import type { ServerDef } from '../config/servers';
import { CODES, ProtocolError } from '../protocol/errors';
import type { JsonObject } from '../protocol/jsonrpc';
import type { ExtensionSet } from '../upstream/instances';
import type { Catalogue } from './catalogue';
import { safeName, toolAllowed } from './names';

export interface ToolIndexDeps {
  defs: ReadonlyMap<string, ServerDef>;
  passthrough: readonly string[];
  catalogue: Catalogue;
  log(line: string): void;
}

/** One pass-through tool: the name it is shown under, at its server under its own name. */
export interface PassthroughTool {
  server: string;
  name: string;
  tool: JsonObject;
}

export class PassthroughTools {
  private cached?: { lists: JsonObject[][]; index: Map<string, PassthroughTool> };
  /** The catalogue's promises the last index came from: the same promises (nothing refetched or
   *  dropped since) give the same index, without awaiting them again on every call. */
  private last?: { sources: Promise<JsonObject[]>[]; index: Promise<Map<string, PassthroughTool>> };

  constructor(private readonly d: ToolIndexDeps) {}

  /** Name shown -> (server, upstream name, tool). Two servers offering one name fail the list with an
   *  error naming both (docs/gateway.md "Pass-through"). `ext`: the calling client's extensions, which
   *  the servers see it declare (docs/protocol.md "Extensions across the gateway"). */
  index(identity: string, ext?: ExtensionSet): Promise<Map<string, PassthroughTool>> {
    const { passthrough, catalogue } = this.d;
    const sources = passthrough.map((server) => catalogue.list(server, 'tools', identity, ext));
    const last = this.last;
    if (last && last.sources.length === sources.length && last.sources.every((p, i) => p === sources[i]))
      return last.index;
    const index = this.build(sources);
    this.last = { sources, index };
    return index;
  }

  private async build(sources: Promise<JsonObject[]>[]): Promise<Map<string, PassthroughTool>> {
    const { defs, passthrough, log } = this.d;
    // An upstream that cannot start is left out of the list (and logged); its names still forward,
    // and the call says why it failed. The rest of the surface stays usable.
    const lists = await Promise.all(
      sources.map((p, i) =>
        p.catch((e: Error) => {
          log(`[${passthrough[i]}] tools unavailable: ${e.message}`);
          return [] as JsonObject[];
        }),
      ),
    );
    // The index is rebuilt only when one of the lists it was built from changed.
    const cached = this.cached;
    if (cached && cached.lists.length === lists.length && cached.lists.every((l, i) => l === lists[i]))
      return cached.index;
    const out = new Map<string, PassthroughTool>();
    for (const [i, server] of passthrough.entries()) {
      const def = defs.get(server)!;
      for (const tool of lists[i]!) {
        const name = String(tool.name);
        if (!toolAllowed(name, def.tools)) continue;
        const shown = safeName(name);
        const other = out.get(shown);
        if (other)
          throw new ProtocolError(
            CODES.InternalError,
            `tool ${JSON.stringify(shown)} is offered by both ${other.server} and ${server}; rename or filter one (tools.deny)`,
          );
        out.set(shown, { server, name, tool });
      }
    }
    this.cached = { lists, index: out };
    return out;
  }
}

/** One tool as mcpx_tools shows it: its server, its upstream name, the name a client calls it under. */
export function toolEntry(passthrough: readonly string[], s: string, t: JsonObject): JsonObject {
  const name = String(t.name);
  return {
    server: s,
    tool: name,
    name: passthrough.includes(s) ? safeName(name) : safeName(`${s}_${name}`),
    ...(t.title ? { title: t.title } : {}),
    ...(t.description ? { description: t.description } : {}),
  };
}

/** mcpx_tools without a query: the allowed tools of `servers` by the name a client calls them under; a
 *  server that cannot list them is named with its error. (A query is the tool search's: search/find.ts.) */
export async function findTools(
  d: Omit<ToolIndexDeps, 'log'>,
  servers: string[],
  identity: string,
): Promise<JsonObject> {
  const tools: JsonObject[] = [];
  const errors: JsonObject[] = [];
  await Promise.all(
    servers.map(async (s) => {
      try {
        for (const t of await d.catalogue.list(s, 'tools', identity))
          if (toolAllowed(String(t.name), d.defs.get(s)!.tools)) tools.push(toolEntry(d.passthrough, s, t));
      } catch (e) {
        errors.push({ server: s, error: (e as Error).message });
      }
    }),
  );
  tools.sort((a, b) => String(a.name).localeCompare(String(b.name)));
  return errors.length ? { tools, errors } : { tools };
}
