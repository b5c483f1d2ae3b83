// A search as the gateway's tools ask it: the offered servers' lists fetched from the catalogue (each
// server started as mcpx_tools starts it: a search lists every offered server, and one that cannot list
// is named with its error), the index brought in step, the query run.
import type { JsonObject } from '../../protocol/jsonrpc';
import type { Catalogue } from '../catalogue/catalogue';
import type { Hit, ToolSearch } from './index';
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
}

/** The gateway tools' own names a profile in `search` mode lists besides its pinned tools
 *  (docs/gateway.md "Tool search"). */
export const SEARCH_MODE_TOOLS: readonly string[] = ['mcpx_search', 'mcpx_call'];

/** `query` over the offered tools of `server` (or of every offered server), best first, at most `limit`. */
export async function findByQuery(
  d: { readonly catalogue: Catalogue },
  o: Searched,
  identity: string,
  query: string,
  opts: { server?: string; limit: number; all?: boolean },
): Promise<Found> {
  // The one place that says what this request is offered (src/gateway/search/offered.ts).
  const offer: Offer = offeredTools(o.view);
  const servers = opts.server === undefined ? offer.servers : offer.servers.filter((s) => s === opts.server);
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
  const hits = o.search.search(query, new Set(lists.keys()), offer, opts.limit, opts.all);
  errors.sort((a, b) => String(a.server).localeCompare(String(b.server)));
  return { hits, errors };
}
