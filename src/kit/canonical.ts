// Canonical JSON: object keys sorted (by UTF-16 code units), no whitespace, everything else as
// JSON.stringify writes it; and its sha256. The same arguments give the same digest whatever order a client
// wrote their keys in: an approval is bound to that digest, and the activity record carries it
// (docs/gateway.md "Permissions").
import * as crypto from 'node:crypto';

/** `value` as canonical JSON. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

/** sha256 (hex) of `value`'s canonical JSON. */
export const canonicalDigest = (value: unknown): string => digestOf(canonicalJson(value));

/** sha256 (hex) of a canonical JSON text (canonicalJson's). */
export const digestOf = (canonical: string): string =>
  // crypto.hash (Node 20.12 and later) is the one-shot without a Hash object per call.
  crypto.hash?.('sha256', canonical, 'hex') ?? crypto.createHash('sha256').update(canonical).digest('hex');
