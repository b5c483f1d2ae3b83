// A large message read without decoding its large strings (docs/performance.md). The
// structure is parsed as usual — every key, number and short string — but each string value of at least
// LAZY_STRING_BYTES is left as its bytes: the text handed to JSON.parse holds a placeholder there, and the
// object that held it gets a property that decodes the bytes the first time it is read. A result passed
// on unchanged is spliced from its bytes (wire/raw.ts), so the text of a 1 MB tool result is never built
// unless something reads it (a guardrail, an output schema, the activity feed's cut). Everything that
// walks a value without needing its strings asks `lazySpan` first (downgrade, the result check).
import { randomUUID } from 'node:crypto';
import { type Span, endOfString, skipSpace } from './spans';

/** Strings at least this long (in bytes, with their quotes) are left undecoded. */
const LAZY_STRING_BYTES = 4096;

const QUOTE = 0x22;
const COLON = 0x3a;
const BACKSLASH = 0x5c;
/** Placeholders carry this per-process prefix and their index; no message can guess it. */
const MARK = `\u0000mcpx-lazy-${randomUUID()}:`;

/** The getter of each lazy property, with where its string lies. */
const getters = new WeakMap<object, { bytes: Uint8Array; span: Span }>();
/** Messages read with undecoded strings, and their results. */
const roots = new WeakSet<object>();

/** Whether `value` is a message (or the result of one) read with strings left undecoded. */
export const holdsLazy = (value: unknown): boolean => typeof value === 'object' && value !== null && roots.has(value);

const decodeSpan = (bytes: Uint8Array, s: Span): string =>
  JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + s.start, s.end - s.start).toString('utf8')) as string;

const ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const isHex = (c: number | undefined): boolean =>
  c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));

/** Whether the string token at [start, end) is one JSON.parse accepts: no control character, every escape
 *  whole. (Its UTF-8 is checked where its bytes are passed on, wire/raw.ts; decoded, bad bytes read as
 *  U+FFFD, as JSON.parse of the decoded text would.) */
function validString(b: Uint8Array, start: number, end: number): boolean {
  if (hasControl(b, start + 1, end - 1)) return false;
  for (let i = b.indexOf(BACKSLASH, start + 1); i >= 0 && i < end - 1; i = b.indexOf(BACKSLASH, i + 1)) {
    const e = b[++i]!;
    if (e === 0x75) {
      if (!(isHex(b[i + 1]) && isHex(b[i + 2]) && isHex(b[i + 3]) && isHex(b[i + 4]))) return false;
      i += 4;
    } else if (!ESCAPES.has(e)) return false;
  }
  return true;
}

/** Whether a byte in [start, end) is below 0x20, four bytes at a time: a word has one exactly when
 *  (x - 0x20202020) & ~x & 0x80808080 is not zero (every byte of the bound is below 0x80). */
function hasControl(b: Uint8Array, start: number, end: number): boolean {
  let i = start;
  while (i < end && (b.byteOffset + i) % 4 !== 0) if (b[i++]! < 0x20) return true;
  const words = Math.floor((end - i) / 4);
  const w = new Uint32Array(b.buffer, b.byteOffset + i, words);
  for (let k = 0; k < words; k++) {
    const x = w[k]!;
    if (((x - 0x20202020) & ~x & 0x80808080) !== 0) return true;
  }
  for (i += words * 4; i < end; i++) if (b[i]! < 0x20) return true;
  return false;
}

/** The text of `b` with each long string value replaced by a placeholder, and those strings' spans;
 *  undefined when it has none. Keys are never replaced. */
function skeleton(b: Uint8Array): { text: string; spans: Span[] } | undefined {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.length);
  const spans: Span[] = [];
  let text = '';
  let copied = 0;
  for (let at = buf.indexOf(QUOTE); at >= 0; ) {
    const end = endOfString(buf, at);
    if (end - at >= LAZY_STRING_BYTES && buf[skipSpace(buf, end)] !== COLON) {
      // One JSON.parse would refuse is not left for later: the whole text is parsed, and refused, as usual.
      if (!validString(buf, at, end)) return undefined;
      text += `${buf.toString('utf8', copied, at)}${JSON.stringify(MARK + spans.length)}`;
      spans.push({ start: at, end });
      copied = end;
    }
    at = buf.indexOf(QUOTE, end);
  }
  if (spans.length === 0) return undefined;
  return { text: text + buf.toString('utf8', copied), spans };
}

/** Each placeholder in `value` (parsed from a skeleton) made a property that decodes its span when read;
 *  one in an array is decoded now (arrays keep plain elements). */
function install(value: unknown, bytes: Uint8Array, spans: Span[]): void {
  const stack: unknown[] = [value];
  let left = spans.length;
  while (stack.length && left > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (typeof x === 'string' && x.startsWith(MARK)) {
          v[i] = decodeSpan(bytes, spans[Number(x.slice(MARK.length))]!);
          left--;
        } else stack.push(x);
      }
      continue;
    }
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const x = o[k];
      if (typeof x === 'string' && x.startsWith(MARK)) {
        lazyProperty(o, k, bytes, spans[Number(x.slice(MARK.length))]!);
        left--;
      } else stack.push(x);
    }
  }
}

function lazyProperty(o: object, key: string, bytes: Uint8Array, span: Span): void {
  // Read (or set) once, it is an ordinary property: `this`, so that a copy of the descriptor works too.
  const settle = (self: object, value: unknown) =>
    Object.defineProperty(self, key, { value, writable: true, enumerable: true, configurable: true });
  const get = function (this: object): string {
    const s = decodeSpan(bytes, span);
    settle(this, s);
    return s;
  };
  getters.set(get, { bytes, span });
  Object.defineProperty(o, key, {
    get,
    set(this: object, v: unknown) {
      settle(this, v);
    },
    enumerable: true,
    configurable: true,
  });
}

/** The text to parse for `bytes` and how to finish the value parsed from it: the whole text, or a
 *  skeleton whose placeholders `finish` turns into lazy properties. */
export function lazyText(bytes: Uint8Array): { text: string; finish(value: unknown): void } {
  let s: ReturnType<typeof skeleton>;
  try {
    s = bytes.length >= LAZY_STRING_BYTES ? skeleton(bytes) : undefined;
  } catch {
    s = undefined; // an unterminated string: not JSON, and the whole text's parse says so
  }
  if (!s) return { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8'), finish() {} };
  const finish = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    roots.add(value);
    const result = (value as { result?: unknown }).result;
    if (typeof result === 'object' && result !== null) roots.add(result);
    install(value, bytes, s.spans);
  };
  return { text: s.text, finish };
}

/** Where the string of `o[key]` lies, while it is still undecoded. */
export function lazySpan(o: object, key: string): { bytes: Uint8Array; span: Span } | undefined {
  const d = Object.getOwnPropertyDescriptor(o, key);
  return d?.get ? getters.get(d.get) : undefined;
}

/** Whether `o[key]` is a string not yet decoded. */
export const isLazy = (o: object, key: string): boolean => lazySpan(o, key) !== undefined;

/** `value` as a plain tree in which each undecoded string is `stand(bytes, span)` (the value itself when
 *  it holds none): for what checks a result's shape, or cuts its strings, without decoding them. */
export function withoutLazy(value: unknown, stand: (bytes: Uint8Array, span: Span) => string, depth = 64): unknown {
  if (typeof value !== 'object' || value === null || depth <= 0) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((x, i) => {
      const y = withoutLazy(x, stand, depth - 1);
      if (y !== x) out ??= value.slice();
      if (out) out[i] = y;
    });
    return out ?? value;
  }
  const o = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  let changed = false;
  for (const k of Object.keys(o)) {
    const lazy = lazySpan(o, k);
    if (lazy) {
      out[k] = stand(lazy.bytes, lazy.span);
      changed = true;
      continue;
    }
    const x = o[k];
    const y = withoutLazy(x, stand, depth - 1);
    if (y !== x) changed = true;
    out[k] = y;
  }
  return changed ? out : value;
}

/** The first `chars` characters of the undecoded string at `span` (its first bytes decoded only). */
export function lazyPrefix(bytes: Uint8Array, span: Span, chars: number): string {
  const end = Math.min(span.end - 1, span.start + 1 + chars * 6);
  const head = Buffer.from(bytes.buffer, bytes.byteOffset + span.start + 1, end - span.start - 1).toString('utf8');
  // Whatever escapes the prefix holds are read as JSON reads them; one cut in half is dropped.
  const safe = head.replace(/\\(u[0-9a-fA-F]{0,3})?$/, '');
  try {
    return (JSON.parse(`"${safe}"`) as string).slice(0, chars);
  } catch {
    return safe.slice(0, chars);
  }
}
