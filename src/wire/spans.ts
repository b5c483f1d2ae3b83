// Where the members of a JSON object lie in its bytes. Used only on text JSON.parse has already
// accepted, so the scanner checks no grammar: it finds boundaries. Every structural byte of JSON is
// ASCII and never occurs inside a multi-byte UTF-8 sequence, so bytes can be scanned as they are; a
// string is skipped with one native indexOf per quote, so a megabyte of text costs almost nothing.

export interface Span {
  start: number;
  end: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

class Malformed extends Error {}

const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

export function skipSpace(b: Uint8Array, i: number): number {
  while (isSpace(b[i])) i++;
  return i;
}

/** Just past the string whose opening quote is at `i`. */
export function endOfString(b: Uint8Array, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = b.indexOf(QUOTE, from);
    if (q < 0) throw new Malformed('unterminated string');
    let slashes = 0;
    while (b[q - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** Just past the value that starts at `i`. */
function endOfValue(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c === QUOTE) return endOfString(b, i);
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
    let depth = 0;
    for (let j = i; j < b.length; ) {
      const d = b[j]!;
      if (d === QUOTE) {
        j = endOfString(b, j);
        continue;
      }
      if (d === OPEN_OBJECT || d === OPEN_ARRAY) depth++;
      else if ((d === CLOSE_OBJECT || d === CLOSE_ARRAY) && --depth === 0) return j + 1;
      j++;
    }
    throw new Malformed('unterminated value');
  }
  // A number, true, false or null runs to the next delimiter.
  let j = i;
  while (j < b.length && !isSpace(b[j]) && b[j] !== COMMA && b[j] !== CLOSE_OBJECT && b[j] !== CLOSE_ARRAY) j++;
  if (j === i) throw new Malformed('no value');
  return j;
}

const decoder = new TextDecoder();

/** The members of the object that starts at `at` (after any whitespace): each key with the span of its
 *  value. A key written twice keeps its last value, as JSON.parse does. Undefined when `at` holds no
 *  object or the text is not what the scanner expects. */
export function memberSpans(b: Uint8Array, at: number): Map<string, Span> | undefined {
  try {
    let i = skipSpace(b, at);
    if (b[i] !== OPEN_OBJECT) return undefined;
    const out = new Map<string, Span>();
    i = skipSpace(b, i + 1);
    if (b[i] === CLOSE_OBJECT) return out;
    for (;;) {
      if (b[i] !== QUOTE) return undefined;
      const keyEnd = endOfString(b, i);
      const raw = b.subarray(i + 1, keyEnd - 1);
      // Keys are short; one with escapes is read by JSON.parse to get it exactly.
      const key = raw.includes(BACKSLASH)
        ? (JSON.parse(decoder.decode(b.subarray(i, keyEnd))) as string)
        : decoder.decode(raw);
      i = skipSpace(b, keyEnd);
      if (b[i] !== COLON) return undefined;
      const start = skipSpace(b, i + 1);
      const end = endOfValue(b, start);
      out.set(key, { start, end });
      i = skipSpace(b, end);
      if (b[i] === CLOSE_OBJECT) return out;
      if (b[i] !== COMMA) return undefined;
      i = skipSpace(b, i + 1);
    }
  } catch (e) {
    if (e instanceof Malformed) return undefined;
    throw e;
  }
}
