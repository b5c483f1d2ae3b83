// The tools as the gateway finds them: the pass-through servers' tools under the names a view shows
// them by (profiles/view.ts), and mcpx_tools' list across the view's servers.
import { CODES, ProtocolError } from '../../protocol/errors';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { ExtensionSet } from '../../upstream/instances';
import type { Catalogue } from '../catalogue/catalogue';
import type { ToolView } from '../profiles/view';

export interface ToolIndexDeps {
  /** What the endpoint offers and under which names. */
  view: ToolView;
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
    const { view, catalogue } = this.d;
    const passthrough = view.listed();
    const sources = passthrough.map((server) => catalogue.list(server, 'tools', identity, ext));
    const last = this.last;
    if (last && last.sources.length === sources.length && last.sources.every((p, i) => p === sources[i]))
      return last.index;
    const index = this.build(passthrough, sources);
    this.last = { sources, index };
    return index;
  }

  private async build(
    passthrough: readonly string[],
    sources: Promise<JsonObject[]>[],
  ): Promise<Map<string, PassthroughTool>> {
    const { view, log } = this.d;
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
      for (const listed of lists[i]!) {
        const name = String(listed.name);
        if (!view.allows(server, name) || !view.lists(server, name)) continue;
        const shown = view.shown(server, name);
        const tool = view.present(server, listed);
        const other = out.get(shown);
        if (other)
          throw new ProtocolError(
            CODES.InternalError,
            `tool ${JSON.stringify(shown)} is offered by both ${other.server} and ${server}; rename or filter one (tools.deny${view.profile ? `, or the profile's rename or exclude` : ''})`,
          );
        out.set(shown, { server, name, tool });
      }
    }
    this.cached = { lists, index: out };
    return out;
  }
}

/** One tool as mcpx_tools shows it: its server, its upstream name, the name a client calls it under. */
export function toolEntry(view: ToolView, s: string, t: JsonObject): JsonObject {
  const name = String(t.name);
  const shown = view.present(s, t);
  return {
    server: s,
    tool: name,
    name: view.shown(s, name),
    ...(shown.title ? { title: shown.title } : {}),
    ...(shown.description ? { description: shown.description } : {}),
  };
}

/** mcpx_tools without a query: the offered tools of `servers` by the name a client calls them under; a
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
          if (d.view.allows(s, String(t.name))) tools.push(toolEntry(d.view, s, t));
      } catch (e) {
        errors.push({ server: s, error: (e as Error).message });
      }
    }),
  );
  tools.sort((a, b) => String(a.name).localeCompare(String(b.name)));
  return errors.length ? { tools, errors } : { tools };
}
