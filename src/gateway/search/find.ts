// A search as the gateway's tools and the editor's tool picker ask it: the offered servers' lists fetched
// from the catalogue (each server started as mcpx_tools starts it: a search lists every offered server,
// and one that cannot list is named with its error), the index brought in step, the query run.
import type { JsonObject } from '../../protocol/jsonrpc';
import type { Catalogue } from '../catalogue/catalogue';
import { type Hit, type ToolSearch, WELL } from './index';
import { type Offer, offeredTools } from './offered';

/** One endpoint as a search sees it: its view, its index, its lists as it presents them. */
export interface Searched {
  readonly view: { servers(): string[]; has(server: string): boolean; allows(server: string, name: string): boolean };
  readonly search: ToolSearch;
  present(server: string, list: readonly JsonObject[]): readonly JsonObject[];
}

export interface Found {
  hits: Hit[];
  errors: JsonObject[];
  /** A ranking whose first hit does not match well (index.ts WELL): its hits are left out. */
  weak?: boolean;
}

/** The gateway tools' own names a profile in `search` mode lists besides its pinned tools
 *  (docs/gateway.md "Tool search"). */
export const SEARCH_MODE_TOOLS: readonly string[] = ['mcpx_search', 'mcpx_call'];

/** The offered lists of `server` (or of every offered server), the index brought in step with them. */
async function offeredLists(
  d: { readonly catalogue: Catalogue },
  o: Searched,
  identity: string,
  server: string | undefined,
): Promise<{ offer: Offer; lists: Map<string, readonly JsonObject[]>; errors: JsonObject[] }> {
  // The one place that says what this request is offered (src/gateway/search/offered.ts).
  const offer: Offer = offeredTools(o.view);
  const servers = server === undefined ? offer.servers : offer.servers.filter((s) => s === server);
  const lists = new Map<string, readonly JsonObject[]>();
  const errors: JsonObject[] = [];
  await Promise.all(
    servers.map(async (s) => {
      try {
        lists.set(s, o.present(s, await d.catalogue.list(s, 'tools', identity)));
      } catch (e) {
        errors.push({ server: s, error: (e as Error).message });
      }
    }),
  );
  o.search.sync(lists, (s) => o.view.has(s));
  errors.sort((a, b) => String(a.server).localeCompare(String(b.server)));
  return { offer, lists, errors };
}

/** `query` over the offered tools of `server` (or of every offered server), best first, at most `limit`;
 *  a ranking (not `all`) whose first hit does not match well finds nothing, and says so (`weak`). */
export async function findByQuery(
  d: { readonly catalogue: Catalogue },
  o: Searched,
  identity: string,
  query: string,
  opts: { server?: string; limit: number; all?: boolean },
): Promise<Found> {
  const { offer, lists, errors } = await offeredLists(d, o, identity, opts.server);
  const hits = o.search.search(query, new Set(lists.keys()), offer, opts.limit, opts.all);
  if (!opts.all && hits.length > 0 && hits[0]!.strength < WELL) return { hits: [], errors, weak: true };
  return { hits, errors };
}

/** Every offered tool of `server` (or of every offered server), by server and name: what a picker shows
 *  before anything is typed. */
export async function offeredList(
  d: { readonly catalogue: Catalogue },
  o: Searched,
  identity: string,
  server?: string,
): Promise<Found> {
  const { offer, lists, errors } = await offeredLists(d, o, identity, server);
  const hits: Hit[] = [];
  for (const [s, list] of [...lists].sort(([a], [b]) => a.localeCompare(b))) {
    const seen = new Set<string>(); // a name listed twice is shown once
    for (const tool of list) {
      const name = String(tool.name);
      if (offer.allows(s, name) && !seen.has(name)) hits.push({ server: s, name, tool, score: 0, strength: 0 });
      seen.add(name);
    }
  }
  return { hits, errors };
}

/** The editor's tool picker (GatewayFacade.searchTools): every offered tool for an empty query, else
 *  mcpx_search's ranking. */
export function searchOffered(
  d: Parameters<typeof offeredList>[0],
  offered: Parameters<typeof offeredList>[1],
  identity: string,
  o: { query: string; server?: string; limit: number },
): Promise<Found> {
  return o.query.trim() === ''
    ? offeredList(d, offered, identity, o.server)
    : findByQuery(d, offered, identity, o.query, o);
}
