// How an ActivityRecord is kept (docs/gateway.md "Activity"): on disk as one JSON line with no result and
// the arguments only under `activity.arguments: full` — every configured secret masked, long strings cut —
// and in memory, for the editor's view, with its arguments and result cut to a bound.
import { mapStrings } from '../../config/redact';
import type { JsonObject } from '../../protocol/jsonrpc';
import { lazyPrefix, withoutLazy } from '../../wire/lazy';
import type { ActivityRecord } from './record';

/** A string value past this many characters is cut on disk, with a marker saying how long it was. */
const CUT_CHARS = 1024;
/** In memory, a record's arguments or result of more than this many bytes has its strings cut. */
const MEMORY_KEEP_BYTES = 16 * 1024;
/** …to this many characters each. */
const MEMORY_CUT_CHARS = 4096;

export type ArgumentsMode = 'digest' | 'full';

/** `s` cut to `max` characters, with a marker naming its length. */
function cut(s: string, max = CUT_CHARS): string {
  return s.length <= max ? s : `${s.slice(0, max)}…[cut: ${s.length} chars]`;
}

/** The record as written and as /v1/activity shows it: never the result; the arguments only under `full`,
 *  redacted first and then cut (a secret that straddled the cut would otherwise leave its prefix). An
 *  error's message may quote what an upstream holds: it is redacted too. */
export function stored(r: ActivityRecord, mode: ArgumentsMode, redact: (s: string) => string): JsonObject {
  const { result: _result, arguments: args, outcome, ...rest } = r;
  // Copied with its strings cut only when one is long (rarely: a long URI, a client's long name).
  const out = (hasLong(rest, CUT_CHARS) ? mapStrings(rest, (s) => cut(s)) : rest) as JsonObject;
  out.outcome = (
    outcome.message === undefined ? outcome : { ...outcome, message: cut(redact(outcome.message)) }
  ) as JsonObject;
  if (mode === 'full' && args) out.arguments = mapStrings(args, (s) => cut(redact(s))) as JsonObject;
  return out;
}

/** Whether a string in `value` (a value or a key) is longer than `max`. */
function hasLong(value: unknown, max: number, depth = 32): boolean {
  if (typeof value === 'string') return value.length > max;
  if (typeof value !== 'object' || value === null || depth <= 0) return false;
  if (Array.isArray(value)) return value.some((v) => hasLong(v, max, depth - 1));
  for (const k in value)
    if (k.length > max || hasLong((value as Record<string, unknown>)[k], max, depth - 1)) return true;
  return false;
}

/** A line of at most `max` bytes and its length in bytes, or undefined when even without its arguments
 *  it is longer. */
export function lineOf(o: JsonObject, max: number): { text: string; bytes: number } | undefined {
  const text = `${JSON.stringify(o)}\n`;
  const bytes = Buffer.byteLength(text);
  if (bytes <= max) return { text, bytes };
  if (o.arguments === undefined) return undefined;
  return lineOf({ ...o, arguments: { '…': `arguments cut: ${bytes} bytes` } }, max);
}

/** The record as the feed keeps it: its arguments and result, when large, with their strings cut (the
 *  arguments redacted first) — and dropped for a marker if still past four times the bound. Small arguments
 *  are kept as they came, `raw`: redacted when the record is first read (`redactedArguments`), so that a
 *  record nobody reads costs no copy. Its size in bytes, roughly, for the feed's bound. */
export function inMemory(
  r: ActivityRecord,
  redact: (s: string) => string,
): { record: ActivityRecord; bytes: number; raw: boolean } {
  const small = r.bytesIn <= MEMORY_KEEP_BYTES;
  const args = r.arguments && !small ? kept(r.arguments, r.bytesIn, redact) : undefined;
  const result = r.result && kept(r.result, r.bytesOut);
  return {
    record: { ...r, ...(args ? { arguments: args.value } : {}), result: result?.value },
    bytes: 512 + (args ? args.bytes : r.arguments ? r.bytesIn : 0) + (result?.bytes ?? 0),
    raw: small && r.arguments !== undefined,
  };
}

/** A record kept `raw` with its arguments redacted. */
export const redactedArguments = (r: ActivityRecord, redact: (s: string) => string): ActivityRecord =>
  r.arguments ? { ...r, arguments: mapStrings(r.arguments, redact) as JsonObject } : r;

function kept(v: JsonObject, bytes: number, redact?: (s: string) => string): { value: JsonObject; bytes: number } {
  if (bytes <= MEMORY_KEEP_BYTES) return { value: redact ? (mapStrings(v, redact) as JsonObject) : v, bytes };
  // A long string an upstream sent, still undecoded (wire/lazy.ts), is cut from its first bytes.
  const shown = withoutLazy(
    v,
    (b, span) => `${lazyPrefix(b, span, MEMORY_CUT_CHARS - 40)}…[cut: ${span.end - span.start - 2} bytes]`,
  );
  const value = mapStrings(shown, (s) => cut(redact ? redact(s) : s, MEMORY_CUT_CHARS)) as JsonObject;
  const size = JSON.stringify(value).length;
  if (size <= MEMORY_KEEP_BYTES * 4) return { value, bytes: size };
  return { value: { '…': `cut: ${bytes} bytes` }, bytes: 64 };
}
