// Results passed on as the bytes that arrived. A large response read from an upstream keeps its bytes
// beside the value parsed from them; when that result (or a member of it, such as a tool's `content`)
// reaches a client unchanged, the writer splices the bytes in instead of serializing the value again.
// The downgrade returns what it has nothing to remove as it is (protocol/downgrade.ts), so a result
// the client's revision can hold whole costs one parse and no stringify (docs/performance.md).
// This rests on one rule kept everywhere: a value read from an upstream is never edited in place, only
// copied (so its bytes stay true). `MCPX_CHECK_SPLICE=1` (set by `npm test`) re-checks every splice
// against a fresh serialization and fails the response on a difference.
import { isUtf8 } from 'node:buffer';
import { type Response, isObject } from '../protocol/jsonrpc';
import { lazySpan } from './lazy';
import { type Span, memberSpans } from './spans';

/** Below this a response is serialized as usual: splicing pays off only on large results. */
const SPLICE_MIN_BYTES = 16 * 1024;

/** The serialized JSON of a message: a string, or bytes where a result was spliced in. */
export type Json = string | Uint8Array;

interface Source {
  bytes: Uint8Array;
  /** The result's span and its members' (null: these bytes are not spliced), found on first use. */
  index?: { result: Span; members: Map<string, Span> } | null;
}

/** A value read from an upstream: its source, and which member of the result it is (none: the result). */
const sources = new WeakMap<object, { source: Source; member?: string }>();

/** Keep `bytes` (the text `message` was parsed from) for its result and the result's members. */
export function keepBytes(message: unknown, bytes: Uint8Array): void {
  if (bytes.length < SPLICE_MIN_BYTES || !isObject(message) || !isObject(message.result)) return;
  const source: Source = { bytes };
  sources.set(message.result, { source });
  // Values read by descriptor: a long string left undecoded (wire/lazy.ts) stays so.
  for (const member of Object.keys(message.result)) {
    const v = Object.getOwnPropertyDescriptor(message.result, member)?.value;
    if (typeof v === 'object' && v !== null) sources.set(v, { source, member });
  }
}

function indexOf(source: Source): Source['index'] {
  if (source.index !== undefined) return source.index;
  const b = source.bytes;
  source.index = null;
  const result = memberSpans(b, 0)?.get('result');
  if (!result) return null;
  // Bytes a fresh serialization would not give the client are not passed on: invalid UTF-8 (the parse
  // read U+FFFD there) and line breaks (an SSE data line, and a stdio message, ends at one).
  const r = b.subarray(result.start, result.end);
  if (!isUtf8(r) || r.includes(0x0a) || r.includes(0x0d)) return null;
  const members = memberSpans(b, result.start);
  if (members) source.index = { result, members };
  return source.index;
}

/** The bytes `value` arrived as, when it is a kept result or member of one. */
function bytesOf(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const s = sources.get(value);
  const index = s && indexOf(s.source);
  if (!s || !index) return undefined;
  const span = s.member === undefined ? index.result : index.members.get(s.member);
  return span && s.source.bytes.subarray(span.start, span.end);
}

/** The result as parts (strings and spliced bytes), or undefined when nothing of it can be spliced. */
function spliced(result: Record<string, unknown>): Array<string | Uint8Array> | undefined {
  const whole = bytesOf(result);
  if (whole) return [whole];
  // Members' bytes looked up first: a result with none kept (nearly every response) is left to one
  // JSON.stringify of the whole response, not serialized member by member as well. A long string left
  // undecoded (wire/lazy.ts) is its own bytes, and stays undecoded.
  const members: Array<[string, unknown]> = [];
  const kept: Array<Uint8Array | undefined> = [];
  for (const k of Object.keys(result)) {
    const lazy = lazySpan(result, k);
    const b = lazy?.bytes.subarray(lazy.span.start, lazy.span.end);
    if (b && isUtf8(b)) {
      members.push([k, undefined]);
      kept.push(b);
      continue;
    }
    const v = result[k];
    if (v === undefined || typeof v === 'function') continue; // as JSON.stringify leaves them out
    members.push([k, v]);
    kept.push(bytesOf(v));
  }
  if (!kept.some((b) => b !== undefined)) return undefined;
  const parts: Array<string | Uint8Array> = [];
  let text = '{';
  for (const [i, [k, v]] of members.entries()) {
    text += `${i === 0 ? '' : ','}${JSON.stringify(k)}:`;
    const b = kept[i];
    if (b) {
      parts.push(text, b);
      text = '';
    } else text += JSON.stringify(v);
  }
  parts.push(`${text}}`);
  return parts;
}

/** A response as JSON: its result spliced from the bytes it arrived as where it can be, else
 *  JSON.stringify. Throws what JSON.stringify throws. */
export function encodeResponse(response: Response): Json {
  const keys = Object.keys(response);
  const result = 'result' in response ? response.result : undefined;
  const parts = isObject(result) && keys.length === 3 && keys[2] === 'result' ? spliced(result) : undefined;
  if (!parts) return JSON.stringify(response);
  const bytes = Buffer.concat(
    [`{"jsonrpc":"2.0","id":${JSON.stringify(response.id)},"result":`, ...parts, '}'].map((p) =>
      typeof p === 'string' ? Buffer.from(p) : p,
    ),
  );
  if (process.env.MCPX_CHECK_SPLICE === '1') check(response, bytes);
  return bytes;
}

const NEWLINE = Buffer.from('\n');

/** A message as one stdio line: a response's result spliced where it can be, anything else serialized. */
export function jsonLine(msg: unknown): string | Uint8Array {
  const json = isObject(msg) ? encodeResponse(msg as unknown as Response) : JSON.stringify(msg);
  return typeof json === 'string' ? `${json}\n` : Buffer.concat([json, NEWLINE]);
}

/** A spliced response against a fresh serialization of the same value (`npm test` sets the variable). */
function check(response: Response, bytes: Uint8Array): void {
  const fresh = JSON.stringify(response);
  const again = JSON.stringify(JSON.parse(Buffer.from(bytes).toString('utf8')));
  if (again !== fresh)
    throw new Error('a spliced result differs from its value: a value read from an upstream was edited in place');
}

/** The length in bytes of `value` as JSON: the bytes it arrived as when it is a kept result (nothing is
 *  serialized for it), else its serialization's. */
export function byteLengthOf(value: unknown): number {
  const parts = isObject(value) ? spliced(value) : undefined;
  if (!parts) return Buffer.byteLength(JSON.stringify(value) ?? '');
  return parts.reduce((n, p) => n + (typeof p === 'string' ? Buffer.byteLength(p) : p.length), 0);
}

export const jsonLength = (j: Json): number => (typeof j === 'string' ? Buffer.byteLength(j) : j.length);

/** Serialized messages joined into one batch array. */
export function jsonArray(items: Json[]): Json {
  if (items.every((i) => typeof i === 'string')) return `[${items.join(',')}]`;
  const parts: Uint8Array[] = [];
  for (const [n, i] of items.entries())
    parts.push(Buffer.from(n === 0 ? '[' : ','), typeof i === 'string' ? Buffer.from(i) : i);
  parts.push(Buffer.from(']'));
  return Buffer.concat(parts);
}
