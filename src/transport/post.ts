// The POST request path (2025-03-26..2026-07-28 basic/transports, "Sending Messages to the Server"): the
// Content-Type (415), the body (413, -32700), the era the message is read in, then the checks of that
// era — 2026-07-28: no sessions, headers that agree with the body (-32020); legacy: a session by
// Mcp-Session-Id, batches, a client's responses — and the run.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CODES, ProtocolError, httpStatus, invalidRequest } from '../protocol/errors';
import { negotiatedAtInitialize, statedPerRequest } from '../protocol/eras';
import { RefusedMessage, type Request, classify, isObject, parseJson } from '../protocol/jsonrpc';
import { META } from '../protocol/meta';
import { methodOf } from '../protocol/methods';
import { HEADERLESS, MODERN, NEWEST_FIRST, type Revision, isRevision } from '../protocol/revisions';
import { principalIdentity } from '../protocol/principal';
import { Conn, PER_REQUEST } from '../server/conn';
import { principalOf } from './credentials';
import { Runner } from '../server/runner';
import { BodyTooLarge, notJson, readBody } from '../wire/body';
import { SHIM_HEADER, decodeHeaderValue } from '../wire/headers';
import type { HttpContext } from './context';
import { forward, relayed } from './forward';
import { sessionOf } from './pushStream';
import { HttpRefusal, header } from './refusal';
import { answerBatch, answerRequest } from './respond';

/** A POST to the MCP endpoint of `profile` (undefined: the default endpoint; docs/gateway.md "Profiles"). */
export async function post(
  ctx: HttpContext,
  req: IncomingMessage,
  res: ServerResponse,
  profile?: string,
): Promise<void> {
  // A POST is application/json (the messages of 2026-07-28 basic/transports/streamable-http), or 415
  // before anything reads it: a web page's blind cross-origin POST has no Content-Type or a "simple"
  // one (text/plain, a form) and never reaches a handler (docs/security.md "The endpoint secret").
  const unsupported = notJson(req);
  if (unsupported) throw new HttpRefusal(415, invalidRequest(unsupported));
  const body = await bodyOf(ctx, req);
  let value: unknown;
  try {
    value = parseJson(body, {
      maxDepth: ctx.settings.get<number>('limits.paramsDepth'),
      maxBatch: ctx.settings.get<number>('limits.batchLength'),
    });
  } catch (e) {
    throw new HttpRefusal(400, e as ProtocolError, e instanceof RefusedMessage ? e.id : undefined);
  }
  const hv = header(req, 'mcp-protocol-version');
  // A request is read in the era that states its revision per request (2026-07-28) when its header names
  // such a revision, or when its body names a per-request version other than a revision negotiated at
  // initialize, whatever its headers say: its errors (-32020, -32022) are that era's.
  const bv = bodyVersion(value);
  const statedInHeader = statedPerRequest(hv);
  const statedInBody = bv !== undefined && !negotiatedAtInitialize(bv);
  const read = { value, body, hv, profile };
  if (statedInHeader || statedInBody) return postPerRequest(ctx, req, res, read);
  return postInSession(ctx, req, res, read);
}

async function bodyOf(ctx: HttpContext, req: IncomingMessage): Promise<string> {
  try {
    return await readBody(req, ctx.settings.get<number>('transport.maxBodyBytes'));
  } catch (e) {
    if (!(e instanceof BodyTooLarge)) throw e;
    throw new HttpRefusal(
      413,
      invalidRequest(`Request body too large: ${e.size} bytes; the limit is ${e.max} (transport.maxBodyBytes)`),
    );
  }
}

/** A POST's body as read (its text, for a replica it is forwarded to), its MCP-Protocol-Version header, and
 *  the profile whose endpoint it came to. */
interface Posted {
  readonly value: unknown;
  readonly body: string;
  readonly hv: string | undefined;
  readonly profile: string | undefined;
}

/** 2026-07-28: no sessions, headers must agree with the body, the status follows the code. */
async function postPerRequest(
  ctx: HttpContext,
  req: IncomingMessage,
  res: ServerResponse,
  { value, body, hv, profile }: Posted,
): Promise<void> {
  if (Array.isArray(value))
    throw new HttpRefusal(400, invalidRequest(`Invalid request: batches are not accepted in ${MODERN}`));
  const c = classify(value);
  if (c.kind === 'invalid') throw new HttpRefusal(400, c.error, c.id);
  if (c.kind === 'response')
    throw new HttpRefusal(400, invalidRequest(`Invalid request: ${MODERN} clients send no responses`));
  const msg = c.msg;
  const id = c.kind === 'request' ? c.msg.id : undefined;
  const mismatch = (why: string) =>
    new HttpRefusal(400, new ProtocolError(CODES.HeaderMismatch, `Header mismatch: ${why}`), id);
  if (hv === undefined) throw mismatch('the MCP-Protocol-Version header is required');
  const bv = bodyVersion(value);
  if (bv !== undefined && bv !== hv)
    throw mismatch(`MCP-Protocol-Version header ${JSON.stringify(hv)} does not match the body's ${JSON.stringify(bv)}`);
  if (c.kind === 'request') checkRequestHeaders(req, c.msg, mismatch);
  // A task or a round's call another replica runs: served there (docs/team.md "What needs no affinity").
  if (c.kind === 'request' && ctx.affinity && !relayed(req)) {
    const owner = await ctx.affinity.ownerOf(c.msg);
    if (owner) return forward(req, res, owner, ctx.affinity.replica, { body, id: c.msg.id });
  }
  const runner = sessionless(ctx, req, profile);
  if (c.kind === 'notification') {
    runner.notification(c.msg);
    return void res.writeHead(202).end();
  }
  // Only tools/call reads Mcp-Param-* headers (x-mcp-header arguments).
  await answerRequest(ctx, req, res, {
    runner,
    msg: msg as Request,
    rev: MODERN,
    paramHeaders: msg.method === 'tools/call' ? paramHeadersOf(req) : undefined,
  });
}

/** Mcp-Method on every request, Mcp-Name where the method names something (2026-07-28 streamable-http). */
function checkRequestHeaders(req: IncomingMessage, msg: Request, mismatch: (why: string) => HttpRefusal): void {
  const method = header(req, 'mcp-method');
  if (method === undefined) throw mismatch('the Mcp-Method header is required');
  if (method !== msg.method)
    throw mismatch(
      `Mcp-Method header ${JSON.stringify(method)} does not match the body's ${JSON.stringify(msg.method)}`,
    );
  const source = methodOf(msg.method)?.mcpName;
  if (!source) return;
  const field = source.field;
  const raw = header(req, 'mcp-name');
  const bodyName = isObject(msg.params) ? msg.params[field] : undefined;
  if (raw === undefined) {
    if (source.optional) return;
    throw mismatch(`the Mcp-Name header is required for ${msg.method}`);
  }
  const name = decodeHeaderValue(raw);
  if (name === undefined) throw mismatch(`Mcp-Name header ${JSON.stringify(raw)} is not a valid header value`);
  if (name !== bodyName)
    throw mismatch(
      `Mcp-Name header ${JSON.stringify(name)} does not match the body's params.${field} ${JSON.stringify(bodyName)}`,
    );
}

/** 2024-11-05..2025-11-25: within the session Mcp-Session-Id names, or outside any. */
async function postInSession(
  ctx: HttpContext,
  req: IncomingMessage,
  res: ServerResponse,
  { value, hv, profile }: Posted,
): Promise<void> {
  if (hv !== undefined && !isRevision(hv)) {
    // 2025-06-18+ transports: an invalid or unsupported MCP-Protocol-Version is 400.
    throw new HttpRefusal(
      400,
      invalidRequest(`Unsupported MCP-Protocol-Version ${JSON.stringify(hv)}; supported: ${NEWEST_FIRST.join(', ')}`),
    );
  }
  const session = sessionOf(ctx, req, profile);
  // Within a session the negotiated revision governs; a header naming another revision mcpx serves is
  // accepted (liberally) and the answer is spelled for the session, which the client negotiated.
  const rev: Revision = session?.conn.revision ?? (hv as Revision | undefined) ?? HEADERLESS;
  const runner = session?.runner ?? sessionless(ctx, req, profile);
  if (session && Array.isArray(value)) session.used = true;
  if (Array.isArray(value)) return answerBatch(res, runner, value, rev, session !== undefined);
  const c = classify(value);
  if (session && c.kind === 'request') session.used = true;
  if (!session && c.kind === 'request' && c.msg.method === 'initialize') roomForSession(ctx, c.msg.id, rev);
  if (c.kind === 'invalid') throw new HttpRefusal(400, c.error, c.id);
  if (c.kind === 'response') {
    // The answer to a question mcpx put on one of this session's streams (docs/questions.md "Who answers").
    if (!session)
      throw new HttpRefusal(400, invalidRequest('Invalid request: a response outside a session answers nothing'));
    runner.response(c.msg);
    return void res.writeHead(202).end();
  }
  if (c.kind === 'notification') {
    if (session) runner.notification(c.msg);
    return void res.writeHead(202).end();
  }
  // Within a session a dropped connection is not a cancellation (2025-03-26..2025-11-25: SHOULD NOT);
  // outside one nothing else could ever cancel the request, so it is.
  await answerRequest(ctx, req, res, { runner, msg: c.msg, rev, session });
}

/** limits.sessions: at the bound a new session is refused (-32603 naming the setting); no session is
 *  ended for it, so one client's initialize flood cannot end another's session (docs/security.md
 *  "Bounds"). */
function roomForSession(ctx: HttpContext, id: Request['id'], rev: Revision): void {
  const max = ctx.sessions.full();
  if (max === undefined) return;
  throw new HttpRefusal(
    httpStatus(CODES.InternalError, rev),
    new ProtocolError(
      CODES.InternalError,
      `the gateway holds ${max} sessions (limits.sessions); end one (DELETE) or retry when one has ended`,
    ),
    id,
  );
}

/** A connection of its own for a request outside any session (every 2026-07-28 request, and a legacy
 *  one without Mcp-Session-Id). Its identity is the request's own, released when it ends
 *  (docs/protocol.md "Client identity"), unless an initialize makes it a session's. */
function sessionless(ctx: HttpContext, req: IncomingMessage, profile: string | undefined): Runner {
  const principal = principalOf(req);
  const conn = new Conn('http', principal ? principalIdentity(principal) : () => `${PER_REQUEST}${randomUUID()}`);
  conn.profile = profile;
  conn.principal = principal;
  // Read only here, past the endpoint secret: a caller without it never reaches the request runner.
  conn.viaShim = header(req, SHIM_HEADER.toLowerCase()) !== undefined;
  return new Runner(ctx.server, conn);
}

/** The per-request version a body names in `_meta`, if any. */
function bodyVersion(value: unknown): string | undefined {
  if (!isObject(value) || !isObject(value.params) || !isObject(value.params._meta)) return undefined;
  const v = value.params._meta[META.protocolVersion];
  return typeof v === 'string' ? v : undefined;
}

/** The Mcp-Param-* headers of a request, by lower-case name without the prefix (2026-07-28 basic/transports/streamable-http "Custom Headers from Tool Parameters"). */
function paramHeadersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (k.startsWith('mcp-param-') && typeof v === 'string') out[k.slice('mcp-param-'.length)] = v;
  }
  return out;
}
