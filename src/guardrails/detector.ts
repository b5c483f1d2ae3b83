// What a detector is to the engine (screen.ts): a name a rule names, and a function from a text to the
// places in it that it flags — each a range and a kind (`aws`, `email`, `unicode-tags`), never the text
// itself. Built-in ones answer at once; an external one (external.ts) over the network, and may fail.

/** One place a detector flags: [start, end) in the text it was given, and what it found there. */
export interface Hit {
  readonly start: number;
  readonly end: number;
  readonly kind: string;
}

export interface Detector {
  readonly name: string;
  /** The places flagged, in any order. Throws DetectorUnavailable when it cannot say. */
  find(text: string, signal?: AbortSignal): Hit[] | Promise<Hit[]>;
}

/** A detector that could not answer (a timeout, a refusal, a reply of the wrong shape, too busy): the
 *  rule's declared failure mode decides what the text is then (screen.ts). */
export class DetectorUnavailable extends Error {
  override readonly name = 'DetectorUnavailable';
}

/** Every match of a global expression as hits of one kind; `valid` keeps only those it accepts. */
export function hitsOf(text: string, re: RegExp, kind: string, valid?: (m: RegExpMatchArray) => boolean): Hit[] {
  const out: Hit[] = [];
  for (const m of text.matchAll(re)) {
    if (valid && !valid(m)) continue;
    out.push({ start: m.index!, end: m.index! + m[0].length, kind });
  }
  return out;
}
