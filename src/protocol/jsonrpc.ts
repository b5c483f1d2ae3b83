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

/** A message refused as it was read, with its id when it had one that can be echoed. */
export class RefusedMessage extends ProtocolError {
  constructor(
    code: number,
    message: string,
    readonly id?: Id,
  ) {
    super(code, message);
  }
}

/** How a message is read: `maxDepth` is limits.paramsDepth, `maxBatch` limits.batchLength. */
export interface ReadLimits {
  maxDepth: number;
  maxBatch?: number;
  /** Refuse a numeric id JSON cannot carry exactly (default true). */
  exactIds?: boolean;
}

/** Parse bytes as JSON; a syntax error is -32700. With limits (a number is `maxDepth`) the value is read
 *  as a message or a batch of them: a batch longer than `maxBatch` is -32600 before any of its items is
 *  looked at, one nested deeper than `maxDepth` is -32602, and a numeric id JSON cannot carry exactly is
 *  -32600 (docs/security.md "Hostile shapes"; docs/protocol.md "Request ids beyond 2^53"). */
export function parseJson(text: string, limits?: number | ReadLimits): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ProtocolError(CODES.ParseError, `Parse error: ${(e as Error).message}`);
  }
  if (limits === undefined) return value;
  const { maxDepth, maxBatch, exactIds = true } = typeof limits === 'number' ? { maxDepth: limits } : limits;
  const items: unknown[] = Array.isArray(value) ? value : [value];
  const batch = items === value;
  if (batch && maxBatch !== undefined && items.length > maxBatch) throw batchTooLong(items.length, maxBatch);
  // A text shorter than twice the bound cannot nest deeper than it: each level takes two brackets.
  const walk = text.length >= 2 * maxDepth;
  let literals: Array<string | undefined> | undefined;
  for (let n = 0; n < items.length; n++) {
    const item = items[n];
    const id = isObject(item) && isId(item.id) ? item.id : undefined;
    if (typeof id === 'number' && exactIds) {
      literals ??= idLiterals(text, batch);
      if (!Number.isSafeInteger(id) || literals[n] !== String(id)) {
        throw new RefusedMessage(
          CODES.InvalidRequest,
          'Invalid request: a numeric id must be an integer within ±(2^53 − 1) written as plain digits; this one cannot be echoed exactly',
        );
      }
    }
    if (walk && depthOver(item, maxDepth)) {
      throw new RefusedMessage(
        CODES.InvalidParams,
        `Invalid params: the message is nested deeper than ${maxDepth} levels (limits.paramsDepth)`,
        batch ? undefined : id,
      );
    }
  }
  return value;
}

/** The refusal of a batch longer than limits.batchLength: refused whole, before anything in it runs. */
export const batchTooLong = (length: number, max: number): ProtocolError =>
  new ProtocolError(
    CODES.InvalidRequest,
    `Invalid request: a batch of ${length} messages is longer than limits.batchLength (${max})`,
  );

/** Is `value` nested deeper than `max` objects and arrays (the value itself is level 1)? Iterative, so a
 *  hostile depth costs a loop, never the call stack. */
function depthOver(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length) {
    const v = nodes.pop() as Record<string, unknown>;
    const d = depths.pop()!;
    if (d > max) return true;
    for (const k in v) {
      const x = v[k];
      if (typeof x === 'object' && x !== null) {
        nodes.push(x);
        depths.push(d + 1);
      }
    }
  }
  return false;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
/** The characters of a JSON number: digits, "-", "+", ".", "e", "E". */
const isNumberChar = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;

/** The literal text of each message's numeric "id" member, by the message's place (0 for a single
 *  message, its index in a batch): one linear pass over `text` (already valid JSON), which looks only at
 *  members of the message objects themselves, so an "id" nested in params never stands in for the
 *  message's own. A parsed numeric id is exact when its canonical digits are that literal (so
 *  9007199254740993, read as ...992, and 1.0000000000000001, read as 1, are not). */
function idLiterals(text: string, batch: boolean): Array<string | undefined> {
  const out: Array<string | undefined> = [];
  const envelope = batch ? 2 : 1; // the nesting level of a message object's members
  let depth = 0;
  let item = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: its end is the next quote not escaped by an odd run of backslashes.
      const from = i + 1;
      let end = text.indexOf('"', from);
      for (;;) {
        let b = end - 1;
        while (text.charCodeAt(b) === 0x5c) b--;
        if ((end - 1 - b) % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      i = end;
      if (depth !== envelope || end - from !== 2 || text[from] !== 'i' || text[from + 1] !== 'd') continue;
      let j = end + 1;
      while (isSpace(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) !== 0x3a) continue; // a value "id", not a key
      j++;
      while (isSpace(text.charCodeAt(j))) j++;
      let k = j;
      while (k < text.length && isNumberChar(text.charCodeAt(k))) k++;
      // A repeated key: JSON.parse keeps the last, and so does this.
      out[item] = k > j ? text.slice(j, k) : undefined;
      i = k - 1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && batch && depth === 1) item++;
  }
  return out;
}

export const resultResponse = (id: Id, result: JsonObject): ResultResponse => ({ jsonrpc: '2.0', id, result });

/** An error response; a parse error carries no id (docs/protocol.md "Error id when the request could not be read"). */
export function errorResponse(id: Id | undefined, error: WireError): ErrorResponse {
  return id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
}

export const notificationMsg = (method: string, params?: JsonObject): Notification =>
  params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
