// 2026-07-28 basic/transports/streamable-http "Custom Headers from Tool Parameters", the server's side: a tools/call whose tool
// annotates arguments with x-mcp-header must carry each as an Mcp-Param-<Name> header with the same
// value, validly encoded; otherwise -32020 (HTTP 400). Intermediaries route on these headers, so a
// header that says something other than the body is refused, never served.
import { CODES, ProtocolError } from '../protocol/errors';
import type { JsonObject } from '../protocol/jsonrpc';
import { decodeHeaderValue } from '../wire/headers';
import { type HeaderParam, argumentAt, headerParams } from '../wire/paramHeaders';

const mismatch = (why: string) => new ProtocolError(CODES.HeaderMismatch, `Header mismatch: ${why}`);

/** A listed tool's schema is the same object call after call (the catalogue keeps it): its annotations
 *  are read once. */
const annotations = new WeakMap<object, HeaderParam[] | undefined>();
function annotated(schema: JsonObject): HeaderParam[] | undefined {
  if (!annotations.has(schema)) {
    const found = headerParams(schema);
    // A tool whose annotations break the rules is not listed (and so not checked here).
    annotations.set(schema, 'reason' in found ? undefined : found.params);
  }
  return annotations.get(schema);
}

/** The request's Mcp-Param-* `headers` against the x-mcp-header annotations of the tool's listed input
 *  `schema` and the call's `args`: -32020 on the first that is missing, different, badly encoded or
 *  unexpected. */
export function checkParamHeaders(
  schema: JsonObject | undefined,
  args: JsonObject,
  headers: Readonly<Record<string, string>>,
): void {
  for (const p of (schema && annotated(schema)) || []) {
    const v = argumentAt(args, p.path);
    const raw = headers[p.name.toLowerCase()];
    const header = `Mcp-Param-${p.name}`;
    if (raw === undefined) {
      if (v === undefined || v === null) continue;
      throw mismatch(`the ${header} header is required: argument ${p.path.join('.')} is annotated x-mcp-header`);
    }
    const value = decodeHeaderValue(raw);
    if (value === undefined)
      throw mismatch(
        `${header} header ${JSON.stringify(raw)} is not a valid header value (plain visible ASCII or =?base64?…?=)`,
      );
    if (v === undefined || v === null)
      throw mismatch(`${header} header is present but argument ${p.path.join('.')} is not`);
    if (value !== String(v))
      throw mismatch(
        `${header} header ${JSON.stringify(value)} does not match argument ${p.path.join('.')} ${JSON.stringify(v)}`,
      );
  }
}
