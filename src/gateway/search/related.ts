// Related words (docs/gateway.md "Tool search"): which words a person may say for a word tools use —
// "remove" for "delete", "folder" for "directory". Two sources, read once into stems as the index's terms
// are: the variants written by hand (variants.ts) and the synonyms drawn from WordNet at build time
// (relatedTable.ts, by scripts/related.ts), the looser of the two.
import { RELATED_TABLE } from './relatedTable';
import { stem, term } from './terms';
import { VARIANTS } from './variants';

/** The words people may say for one tool word: the hand-written variants, WordNet's synonyms. */
export interface Said {
  readonly variants: readonly string[];
  readonly synonyms: readonly string[];
}

const NONE: Said = { variants: [], synonyms: [] };

/** `word related…` -> the tool word's stem and the stems of the related words search keeps. */
function entries(lines: Iterable<[string, string]>): Map<string, Set<string>> {
  const map = new Map<string, Set<string>>();
  for (const [word, related] of lines) {
    // A tool word is looked up whatever it is ("get"); a word people say that search drops is not kept.
    const key = stem(word);
    const all = map.get(key) ?? new Set<string>();
    for (const r of related.split(' ')) {
      const s = term(r);
      if (s && s !== key) all.add(s);
    }
    map.set(key, all);
  }
  return map;
}

export class Related {
  private readonly map = new Map<string, Said>();

  /** `synonyms`: one line per tool word, `word related…`; `variants`: tool word -> `related…`. */
  constructor(synonyms: string, variants: Readonly<Record<string, string>>) {
    const v = entries(Object.entries(variants));
    const s = entries(
      synonyms
        .split('\n')
        .filter(Boolean)
        .map((line) => [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)]),
    );
    for (const key of new Set([...v.keys(), ...s.keys()])) {
      const variants = v.get(key) ?? new Set<string>();
      this.map.set(key, {
        variants: [...variants],
        synonyms: [...(s.get(key) ?? [])].filter((x) => !variants.has(x)),
      });
    }
  }

  /** What people may say for the tool word `word`. */
  of(word: string): Said {
    return this.map.get(stem(word)) ?? NONE;
  }
}

let shared: Related | undefined;

/** The tables shipped, read on the first search. */
export function related(): Related {
  shared ??= new Related(RELATED_TABLE, VARIANTS);
  return shared;
}
