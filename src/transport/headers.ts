// Header value encoding of 2026-07-28 streamable-http ("Value Encoding"): a value that is not plain
// visible ASCII travels as =?base64?<base64 of UTF-8>?=.
const SENTINEL = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/;
const PLAIN = /^[\x20-\x7e\t]*$/;

/** The value a header carries, or undefined when it is neither plain nor a valid sentinel. */
export function decodeHeaderValue(raw: string): string | undefined {
  // Something that opens like the sentinel and is not a valid one (alphabet, padding) is refused rather
  // than read as plain text: the sender meant base64 (SEP-2243).
  if (raw.startsWith('=?base64?') && raw.endsWith('?=') && raw.length >= 11) {
    const m = SENTINEL.exec(raw);
    if (!m || m[1]!.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(m[1]!)) return undefined;
  }
  const m = SENTINEL.exec(raw);
  if (m) {
    const bytes = Buffer.from(m[1]!, 'base64');
    if (bytes.toString('base64').replace(/=+$/, '') !== m[1]!.replace(/=+$/, '')) return undefined;
    return bytes.toString('utf8');
  }
  return PLAIN.test(raw) ? raw : undefined;
}

/** Encode a value for a header: plain when safe, the base64 sentinel otherwise. */
export function encodeHeaderValue(value: string): string {
  const safe = PLAIN.test(value) && value === value.trim() && !value.includes('\t');
  return safe ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}
