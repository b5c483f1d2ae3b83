// Header value encoding of 2026-07-28 streamable-http ("Value Encoding"): a value that is not plain
// visible ASCII travels as =?base64?<base64 of UTF-8>?=.
const PLAIN = /^[\x20-\x7e\t]*$/;
const OPEN = '=?base64?';
const CLOSE = '?=';

/** The value a header carries, or undefined when it is neither plain nor a valid sentinel. Something
 *  framed like the sentinel is read as base64 or refused, never taken as plain text: the sender meant
 *  base64 (2026-07-28 streamable-http "Value Encoding"). Only canonical, padded base64 is accepted. */
export function decodeHeaderValue(raw: string): string | undefined {
  const framed = raw.length >= OPEN.length + CLOSE.length && raw.startsWith(OPEN) && raw.endsWith(CLOSE);
  if (!framed) return PLAIN.test(raw) ? raw : undefined;
  const b64 = raw.slice(OPEN.length, -CLOSE.length);
  if (b64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return undefined;
  const bytes = Buffer.from(b64, 'base64');
  return bytes.toString('base64') === b64 ? bytes.toString('utf8') : undefined;
}

/** Encode a value for a header: plain when safe, the base64 sentinel otherwise. A plain value that is
 *  itself framed like the sentinel is encoded too, or the receiver would read it as base64 (2026-07-28
 *  transports "Value Encoding": such a value MUST be encoded). */
export function encodeHeaderValue(value: string): string {
  const framed = value.startsWith(OPEN) && value.endsWith(CLOSE);
  const safe = !framed && PLAIN.test(value) && value === value.trim() && !value.includes('\t');
  return safe ? value : `${OPEN}${Buffer.from(value, 'utf8').toString('base64')}${CLOSE}`;
}

/** Sent on every request of the stdio shim (shim/relay.ts): the gateway ends the shim's legacy session
 *  when its GET stream closes — the shim died, even by SIGKILL — cancelling its calls (docs/gateway.md
 *  "The stdio shim"). */
export const SHIM_HEADER = 'Mcpx-Shim';
