// The tool search behind mcpx_search and mcpx_tools' `query` (docs/gateway.md "Tool search"): one
// MiniSearch index over every listed tool — its name split into words, title, description, argument
// names and their descriptions — kept in step with the catalogue. A server's documents are replaced when
// the list it was built from is no longer the catalogue's (a list_changed, a reload, a pin accepted
// refetch it), on the next search: nothing is indexed before someone searches, and one list per server
// is held.
import MiniSearch, { type SearchOptions } from 'minisearch';
import type { JsonObject } from '../../protocol/jsonrpc';
import { isObject } from '../../protocol/jsonrpc';
import type { Offer } from './offered';

/** Text kept of one field of one tool: an upstream's 1 MB description is not indexed whole. */
const FIELD_MAX = 2000;
/** Arguments of one tool whose names and descriptions are indexed. */
const ARGS_MAX = 64;

/** Words that say nothing about which tool is meant ("which tool can I use to …"). */
const STOP = new Set(
  'a an and are as at be by can do does for from get how i in into is it its me my of on or please show some that the their them this to tool tools use want what when where which with would you your'.split(
    ' ',
  ),
);

/** Words of a text: split on anything not a letter or digit, and between camelCase humps. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/** One word as indexed and searched: lower case, a stop word dropped, and a light stem — plural,
 *  -ed, -ing and a final e taken off, so "changes", "changed" and "change" are one term. */
function term(word: string): string | null {
  let w = word.toLowerCase();
  if (STOP.has(w)) return null;
  if (w.length > 4 && /ie[sd]$/.test(w)) return `${w.slice(0, -3)}y`;
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

const cap = (s: unknown): string => (typeof s === 'string' ? s.slice(0, FIELD_MAX) : '');

/** The indexed text of a tool's arguments: each property's name and description. */
function argText(tool: JsonObject): string {
  const props = isObject(tool.inputSchema) && isObject(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
  return Object.entries(props)
    .slice(0, ARGS_MAX)
    .map(([k, v]) => `${k.slice(0, 200)} ${isObject(v) ? cap(v.description) : ''}`)
    .join(' ')
    .slice(0, FIELD_MAX * 4);
}

/** A description's first line, at most 200 characters: what a hit shows. */
export function oneLine(description: unknown): string {
  const line = (typeof description === 'string' ? description : '').trim().split(/\r?\n/)[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

interface Doc {
  id: string;
  server: string;
  name: string;
  title: string;
  description: string;
  args: string;
}

/** One tool found: its server, its upstream name (what mcpx_call takes), the listed tool, its score. */
export interface Hit {
  server: string;
  name: string;
  tool: JsonObject;
  score: number;
}

/** Ranking (docs/gateway.md "Tool search"): BM25 per field, a word of the name counting most, then
 *  the title, the description, the arguments; a word may be the start of a longer one (from three
 *  letters) or one edit away (from four letters; two from eight), each counted less than an exact word. */
const RANKING: SearchOptions = {
  boost: { name: 3, title: 2, description: 1.5, args: 0.3 },
  prefix: (t) => t.length >= 3,
  fuzzy: (t) => (t.length >= 8 ? 0.25 : t.length >= 4 ? 0.2 : false),
  maxFuzzy: 2,
  weights: { prefix: 0.3, fuzzy: 0.2 },
};

export class ToolSearch {
  private readonly index = new MiniSearch<Doc>({
    fields: ['name', 'title', 'description', 'args'],
    tokenize: words,
    processTerm: term,
    searchOptions: RANKING,
  });
  /** Per server: the list its documents came from and their ids. */
  private readonly built = new Map<string, { list: readonly JsonObject[]; ids: string[] }>();
  private readonly tools = new Map<string, { server: string; name: string; tool: JsonObject }>();

  /** Bring the index in step with `lists` (server -> the catalogue's current list); servers no longer
   *  `known` leave it. Nothing is redone for a list already indexed. */
  sync(lists: ReadonlyMap<string, readonly JsonObject[]>, known: (server: string) => boolean): void {
    for (const server of [...this.built.keys()]) if (!known(server)) this.drop(server);
    for (const [server, list] of lists) {
      if (this.built.get(server)?.list === list) continue;
      this.drop(server);
      const docs: Doc[] = [];
      for (const tool of list) {
        const name = String(tool.name);
        const id = `${server}\u0000${name}`;
        if (this.tools.has(id)) continue; // a name listed twice is indexed once
        this.tools.set(id, { server, name, tool });
        docs.push({
          id,
          server,
          name: name.slice(0, FIELD_MAX),
          title: cap(tool.title),
          description: cap(tool.description),
          args: argText(tool),
        });
      }
      this.index.addAll(docs);
      this.built.set(server, { list, ids: docs.map((d) => d.id) });
    }
  }

  private drop(server: string): void {
    const b = this.built.get(server);
    if (!b) return;
    this.index.discardAll(b.ids);
    for (const id of b.ids) this.tools.delete(id);
    this.built.delete(server);
  }

  /** The offered tools of `servers` matching `query`, best first; `all`: every word must match (for
   *  mcpx_tools, a filter), else any (for mcpx_search, a ranking). */
  search(query: string, servers: ReadonlySet<string>, offer: Offer, limit: number, all = false): Hit[] {
    const hits: Hit[] = [];
    for (const r of this.index.search(query, {
      combineWith: all ? 'AND' : 'OR',
      filter: (r) => {
        const t = this.tools.get(String(r.id));
        return t !== undefined && servers.has(t.server) && offer.allows(t.server, t.name);
      },
    })) {
      if (hits.length >= limit) break;
      const t = this.tools.get(String(r.id))!;
      hits.push({ ...t, score: r.score });
    }
    return hits;
  }
}
