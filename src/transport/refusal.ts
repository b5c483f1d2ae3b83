// What every part of the HTTP transport shares: a header read once, and an HTTP-level refusal that still
// carries a JSON-RPC error (docs/protocol.md "Error id when the request could not be read").
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CODES, type ProtocolError, invalidRequest } from '../protocol/errors';
import { errorResponse } from '../protocol/jsonrpc';
import { sendJson } from '../wire/json';
import type { HeadRefusal } from './head';

export const MCP_PATH = '/mcp';

/** The first value of header `name` (lower case). */
export const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** An HTTP-level refusal that still carries a JSON-RPC error (no id: the request was not read). */
export class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    readonly error: ProtocolError,
    readonly id?: string | number,
    /** Headers the refusal carries (Allow, WWW-Authenticate, Retry-After). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(error.message);
  }
}

export const headRefusal = (r: HeadRefusal) =>
  new HttpRefusal(r.status, invalidRequest(`${r.status === 400 ? 'Bad request' : 'Forbidden'}: ${r.why}`));

/** Writes a refusal, or a 500 for anything else (logged, never shown to the client). */
export function sendFailure(res: ServerResponse, e: unknown, log?: (line: string) => void): void {
  if (e instanceof HttpRefusal) {
    for (const [k, v] of Object.entries(e.headers)) res.setHeader(k, v);
    return sendJson(res, e.status, errorResponse(e.id, e.error.toWire()));
  }
  log?.(`http: ${(e as Error).stack ?? String(e)}`);
  sendJson(res, 500, errorResponse(undefined, { code: CODES.InternalError, message: 'Internal error' }));
}
