// The signed requestState of a 2026-07-28 round (2026-07-28 basic/patterns/mrtr; docs/security.md
// "requestState"): bound to its request, to its identity, single-use, under a key of the process or of the
// state directory.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { invalidParams } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { PER_REQUEST } from './conn';

/** The request binding: the method and a SHA-256 of its params without _meta, inputResponses and
 *  requestState (docs/questions.md "requestState"), over a canonical form at most `maxDepth` deep. */
export function bindingOf(method: string, params: JsonObject, maxDepth: number): string {
  const { _meta: _m, inputResponses: _i, requestState: _s, ...rest } = params;
  void _m;
  void _i;
  void _s;
  return `${method}:${createHash('sha256').update(canonical(rest, maxDepth)).digest('base64url')}`;
}

/** JSON with sorted keys, so equal params hash equally whatever their key order; deeper than `left`
 *  levels is -32602 (limits.paramsDepth), so the recursion is bounded. */
function canonical(v: unknown, left: number): string {
  if (typeof v === 'object' && v !== null && left <= 0)
    throw invalidParams('Invalid params: params are nested too deeply (limits.paramsDepth)');
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, left - 1)).join(',')}]`;
  if (isObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k], left - 1)}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

interface StatePayload {
  c: string; // call id
  b: string; // binding
  e: number; // expiry (ms since epoch)
  n: string; // nonce: the call accepts only its latest, once
  i: string; // the identity the call is for: only it may present the state
  r?: string; // the replica the call runs on, in a team (docs/team.md)
}

/** The replica a state says its call runs on, read without verifying it: only where to send the request
 *  is decided by it; the replica that holds the call verifies the state. */
export function stateReplica(state: unknown): string | undefined {
  if (typeof state !== 'string') return undefined;
  try {
    const p = JSON.parse(Buffer.from(state.split('.')[0] ?? '', 'base64url').toString('utf8')) as { r?: unknown };
    return typeof p.r === 'string' ? p.r : undefined;
  } catch {
    return undefined;
  }
}

/** base64url(payload).HMAC-SHA256 under a key made per process — or, with a state directory, kept there
 *  owner-only so a retry outlives a restart (docs/protocol.md "Tasks across a restart"). Single-use: the
 *  call behind it accepts only the latest state it issued, once (docs/security.md "requestState"). */
export class RequestStates {
  /** Per process, or the state directory's own (taskJournal.ts stateKey): then a state outlives a restart. */
  constructor(private readonly key: Buffer = randomBytes(32)) {}

  sign(p: StatePayload): string {
    const body = Buffer.from(JSON.stringify(p)).toString('base64url');
    return `${body}.${createHmac('sha256', this.key).update(body).digest('base64url')}`;
  }

  /** A fresh nonce for the next state of a call. */
  nonce(): string {
    return randomBytes(12).toString('base64url');
  }

  /** The payload of a state presented by `identity` with the request whose binding `binding()` computes,
   *  or a -32602 saying exactly what is wrong. The MAC is checked first: nothing of the request is hashed
   *  before. A state issued to a named identity is refused from any other (docs/security.md
   *  "requestState"); one issued to a client that named none is its bearer's. */
  verify(state: string, binding: () => string, identity: string): StatePayload {
    const [body, mac] = state.split('.');
    if (!body || !mac) throw invalidParams('Invalid params: requestState is not one mcpx issued');
    const want = createHmac('sha256', this.key).update(body).digest();
    const got = Buffer.from(mac, 'base64url');
    if (got.length !== want.length || !timingSafeEqual(got, want)) {
      throw invalidParams(
        'Invalid params: requestState failed verification (tampered with, or issued by another mcpx process)',
      );
    }
    const p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as StatePayload;
    if (Date.now() > p.e)
      throw invalidParams(`Invalid params: requestState expired at ${new Date(p.e).toISOString()} (proto.stateTTL)`);
    if (!p.i.startsWith(PER_REQUEST) && p.i !== identity)
      throw invalidParams('Invalid params: requestState was issued to another client (its identity differs)');
    if (p.b !== binding())
      throw invalidParams('Invalid params: requestState was issued for a different request (method or params differ)');
    return p;
  }
}
