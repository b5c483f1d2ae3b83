// JSON-RPC 2.0 message shapes. A message is classified once, here.
import { CODES, ProtocolError, type WireError } from './errors';

export type Id = string | number;
export type JsonObject = Record<string, unknown>;

export interface Request {
  jsonrpc: '2.0';
  id: Id;
  method: string;
  params?: JsonObject;
}
export interface Notification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonObject;
}
export interface ResultResponse {
  jsonrpc: '2.0';
  id: Id;
  result: JsonObject;
}
export interface ErrorResponse {
  jsonrpc: '2.0';
  id?: Id;
  error: WireError;
}
export type Response = ResultResponse | ErrorResponse;
export type Message = Request | Notification | Response;

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export type Classified =
  | { kind: 'request'; msg: Request }
  | { kind: 'notification'; msg: Notification }
  | { kind: 'response'; msg: Response }
  | { kind: 'invalid'; id?: Id; error: ProtocolError };

const isId = (v: unknown): v is Id => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
const ENVELOPE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params', 'result', 'error']);

/** Classify one parsed JSON value (not an array) as a JSON-RPC message. Written out by hand rather than
 *  with zod: it runs on every message, and a union of schemas builds an issue for every branch it rejects. */
export function classify(value: unknown): Classified {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      kind: 'invalid',
      error: new ProtocolError(CODES.InvalidRequest, 'Invalid request: expected a JSON-RPC object'),
    };
  }
  const v = value as JsonObject;
  const knownId = isId(v.id) ? v.id : undefined;
  const bad = (why: string): Classified => ({
    kind: 'invalid',
    id: knownId,
    error: new ProtocolError(CODES.InvalidRequest, `Invalid request: ${why}`),
  });
  if (v.jsonrpc !== '2.0') return bad('jsonrpc must be "2.0"');
  for (const k of Object.keys(v)) if (!ENVELOPE_KEYS.has(k)) return bad(`unknown member "${k}"`);
  if ('id' in v && !isId(v.id))
    return bad(v.id === null ? 'id must be a string or an integer, not null' : 'id must be a string or an integer');
  if ('method' in v) {
    if (typeof v.method !== 'string' || v.method === '') return bad('method must be a non-empty string');
    if ('params' in v && !isObject(v.params)) return bad('params must be an object');
    if ('result' in v || 'error' in v) return bad('a request carries no result or error');
    return 'id' in v
      ? { kind: 'request', msg: v as unknown as Request }
      : { kind: 'notification', msg: v as unknown as Notification };
  }
  if (!('id' in v) && !('error' in v)) return bad('neither a request, a notification nor a response');
  if ('result' in v) {
    if (!isObject(v.result) || 'error' in v || !('id' in v))
      return bad('a result response needs an id and an object result');
    return { kind: 'response', msg: v as unknown as ResultResponse };
  }
  if ('error' in v) {
    const e = v.error;
    if (!isObject(e) || typeof e.code !== 'number' || !Number.isInteger(e.code) || typeof e.message !== 'string') {
      return bad('error must be {code: integer, message: string}');
    }
    return { kind: 'response', msg: v as unknown as ErrorResponse };
  }
  return bad('neither a request, a notification nor a response');
}

/** Parse bytes as JSON; a syntax error is -32700. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ProtocolError(CODES.ParseError, `Parse error: ${(e as Error).message}`);
  }
}

export const resultResponse = (id: Id, result: JsonObject): ResultResponse => ({ jsonrpc: '2.0', id, result });

/** An error response; a parse error carries no id (docs/protocol.md "Error id when the request could not be read"). */
export function errorResponse(id: Id | undefined, error: WireError): ErrorResponse {
  return id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
}

export const notificationMsg = (method: string, params?: JsonObject): Notification =>
  params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
