// The tool search behind mcpx_search, mcpx_tools' `query` and the editor's tool picker (docs/gateway.md
// "Tool search"): one MiniSearch index over every listed tool — its name split into words, title, the
// first sentence of its description, the description, argument names and their descriptions, what it
// does (actionOf), and the words people may say for the words of its name, first sentence and action
// (related.ts) — kept in step with the catalogue. A server's documents are replaced when the list it was
// built from is no longer the catalogue's (a list_changed, a reload, a pin accepted refetch it), on the
// next search: nothing is indexed before someone searches, and one list per server is held.
import MiniSearch, { type SearchOptions } from 'minisearch';
import type { JsonObject } from '../../protocol/jsonrpc';
import { isObject } from '../../protocol/jsonrpc';
import type { Offer } from './offered';
import { type Related, related as sharedRelated } from './related';
import { hints, term, words } from './terms';

export { words } from './terms';

/** Text kept of one field of one tool: an upstream's 1 MB description is not indexed whole. */
const FIELD_MAX = 2000;
/** Arguments of one tool whose names and descriptions are indexed. */
const ARGS_MAX = 64;

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

/** A description's first sentence: up to the first full stop followed by a space, or the first line. */
export function firstSentence(description: string): string {
  const line = description.trim().split(/\r?\n/)[0] ?? '';
  const stop = line.search(/[.!?](\s|$)/);
  return (stop < 0 ? line : line.slice(0, stop)).slice(0, 300);
}

interface Doc {
  id: string;
  server: string;
  name: string;
  title: string;
  lead: string;
  description: string;
  args: string;
  action: string;
  /** Stems of the words people may say for the words of the name; of the title and first sentence; of
   *  the action. */
  nameRelated: string;
  leadRelated: string;
  actionRelated: string;
}

/** The related field of a tool: what people may say for the words of `texts`, a hand-written variant
 *  twice (it counts more than a WordNet synonym). */
function relatedText(r: Related, ...texts: string[]): string {
  const counts = new Map<string, number>();
  for (const t of texts)
    for (const w of words(t)) {
      const said = r.of(w);
      for (const x of said.variants) counts.set(x, 2);
      for (const x of said.synonyms) counts.set(x, counts.get(x) ?? 1);
    }
  return [...counts].flatMap(([x, n]) => Array<string>(n).fill(x)).join(' ');
}

/** What a tool does, in the words it says it: the first word of its name that is not a word of its
 *  server's name (`slack_post_message` of slack: post), and the first word of its first sentence. */
function actionOf(server: string, name: string, lead: string): string {
  const own = new Set(words(server).map((w) => w.toLowerCase()));
  const first = words(name).find((w) => !own.has(w.toLowerCase()));
  return [first ?? '', words(lead)[0] ?? ''].join(' ');
}

/** One tool found: its server, its upstream name (what mcpx_call takes), the listed tool, its score,
 *  and how well it matches (`strength`, WELL). */
export interface Hit {
  server: string;
  name: string;
  tool: JsonObject;
  score: number;
  strength: number;
}

/** The strength from which a first hit "matches well" (docs/gateway.md "Tool search"). A hit's strength
 *  is its score per word of the query, over ln(1 + the tools indexed) (a word only one tool has weighs
 *  about that much: so an index ten times larger does not raise every strength). Chosen on the tuning
 *  half of the evaluation (test/gateway/search-terms.test.ts holds it): the highest multiple of 0.05 at which
 *  none of its tasks loses its answer from the first five (the weakest such first hit: 0.89); what
 *  nothing offered fits and matches next to nothing is told so. Higher (2) also told tasks that match a
 *  wrong tool's words, but withheld right answers of weak strength, which held-out tasks have far more
 *  of. */
export const WELL = 0.85;

/** Ranking (docs/gateway.md "Tool search"; the weights chosen on the tuning half of the evaluation,
 *  test/fixtures/search/real/queries.json): BM25 per field, a word of the name counting most, then what
 *  people say for it, the title, the first sentence, the description, the action, the arguments; a word
 *  may be the start of a longer one (from three letters) or one edit away (from five letters), each
 *  counted less than an exact word. */
const RANKING: SearchOptions = {
  boost: {
    name: 3,
    nameRelated: 2.5,
    title: 2,
    lead: 1.5,
    description: 1,
    action: 1,
    actionRelated: 1,
    leadRelated: 0.8,
    args: 0.3,
  },
  prefix: (t) => t.length >= 3,
  // One edit from five letters: a wider net cost a third more per search for no better ranking.
  fuzzy: (t) => (t.length >= 5 ? 1 : false),
  maxFuzzy: 1,
  weights: { prefix: 0.3, fuzzy: 0.05 },
};

export class ToolSearch {
  private readonly index = new MiniSearch<Doc>({
    fields: ['name', 'title', 'lead', 'description', 'args', 'nameRelated', 'leadRelated', 'action', 'actionRelated'],
    // The related fields hold stems already.
    tokenize: (text, field) => (field?.endsWith('Related') ? text.split(' ') : words(text)),
    processTerm: (t, field) => (field?.endsWith('Related') ? t : term(t)),
    searchOptions: RANKING,
  });
  /** Per server: the list its documents came from and their ids. */
  private readonly built = new Map<string, { list: readonly JsonObject[]; ids: string[] }>();
  private readonly tools = new Map<string, { server: string; name: string; tool: JsonObject }>();

  constructor(private readonly related: Related = sharedRelated()) {}

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
        docs.push(this.doc(id, server, name.slice(0, FIELD_MAX), tool));
      }
      this.index.addAll(docs);
      this.built.set(server, { list, ids: docs.map((d) => d.id) });
    }
  }

  private doc(id: string, server: string, name: string, tool: JsonObject): Doc {
    const title = cap(tool.title);
    const lead = firstSentence(cap(tool.description));
    const action = actionOf(server, name, lead);
    return {
      id,
      server,
      name,
      title,
      lead,
      description: cap(tool.description),
      args: argText(tool),
      nameRelated: relatedText(this.related, name),
      leadRelated: relatedText(this.related, title, lead),
      action,
      actionRelated: relatedText(this.related, action),
    };
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
    // Ranking takes what an address or a file name says too; a filter keeps to the words given.
    const said = all ? query : [query, ...hints(query)].join(' ');
    const terms = new Set(
      words(said)
        .map(term)
        .filter((t) => t !== null),
    ).size;
    const per = Math.max(1, terms) * Math.log(1 + this.tools.size);
    for (const r of this.index.search(said, {
      combineWith: all ? 'AND' : 'OR',
      filter: (r) => {
        const t = this.tools.get(String(r.id));
        return t !== undefined && servers.has(t.server) && offer.allows(t.server, t.name);
      },
    })) {
      if (hits.length >= limit) break;
      const t = this.tools.get(String(r.id))!;
      hits.push({ ...t, score: r.score, strength: r.score / per });
    }
    return hits;
  }
}
