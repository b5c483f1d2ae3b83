// The legacy session's own requests (2025-03-26..2025-11-25 basic/transports, "Session Management",
// "Listening for Messages from the Server"): a session found by Mcp-Session-Id (404 when unknown), the GET
// that opens its push stream, and the DELETE that ends it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { invalidRequest } from '../protocol/errors';
import { pushStreamFor } from '../protocol/eras';
import { type Principal, principalIdentity } from '../protocol/principal';
import { MODERN } from '../protocol/revisions';
import { SHIM_HEADER } from '../wire/headers';
import { SseStream } from '../wire/sse';
import type { HttpContext } from './context';
import { principalOf } from './credentials';
import { HttpRefusal, header } from './refusal';
import type { Session } from './sessions';

/** How long a stdio shim's session outlives its GET stream (SHIM_HEADER). */
const SHIM_GRACE_MS = 1000;

/** The session a request names in Mcp-Session-Id; undefined when it names none, 404 when it is unknown. */
export function sessionOf(ctx: HttpContext, req: IncomingMessage, profile: string | undefined): Session | undefined {
  const id = header(req, 'mcp-session-id');
  if (id === undefined) return undefined;
  const s = ctx.sessions.find(id);
  // 2025-03-26..2025-11-25 transports: an unknown or ended session is 404; the client re-initializes.
  // The id is not quoted back: it is the session's credential. A session lives at the endpoint it was
  // initialized at: at another profile's it is unknown (docs/gateway.md "Profiles"); and it serves only the
  // subject it was initialized by — another token's, or the secret, finds none (docs/security.md "Two
  // ways in").
  if (!s || s.conn.profile !== profile || !samePrincipal(s.conn.principal, principalOf(req)))
    throw new HttpRefusal(
      404,
      invalidRequest('Session not found: the Mcp-Session-Id is unknown or has ended; initialize again'),
    );
  // The subject's latest token: its scopes and claims are what the rules read from now on.
  if (s.conn.principal) s.conn.principal = principalOf(req);
  return s;
}

/** GET opens a legacy session's push stream; without a session, or in an era without one, there is none
 *  (405). */
export function openPushStream(
  ctx: HttpContext,
  req: IncomingMessage,
  res: ServerResponse,
  profile: string | undefined,
): void {
  const hv = header(req, 'mcp-protocol-version');
  const pushes = pushStreamFor(hv);
  const s = pushes ? sessionOf(ctx, req, profile) : undefined;
  if (!s) {
    res.setHeader('Allow', 'POST');
    throw new HttpRefusal(
      405,
      invalidRequest(`No stream to open: GET needs a legacy session (${MODERN} clients use subscriptions/listen)`),
    );
  }
  if (!(header(req, 'accept') ?? '').includes('text/event-stream')) {
    throw new HttpRefusal(406, invalidRequest('GET opens an event stream: Accept must include text/event-stream'));
  }
  s.stream?.end();
  s.used = true;
  const stream = new SseStream(res, ctx.settings.duration('transport.sseKeepAlive'));
  s.stream = stream;
  stream.start();
  s.conn.push = (msg) => stream.send(msg);
  // The stdio shim keeps its session's GET stream open for as long as it lives: the stream gone and
  // not opened again within a moment, the shim is gone (even by SIGKILL), and so is its session, its
  // calls cancelled (docs/gateway.md "The stdio shim").
  const shim = header(req, SHIM_HEADER.toLowerCase()) !== undefined;
  res.on('close', () => {
    if (s.stream === stream) {
      s.stream = undefined;
      s.conn.push = undefined;
      if (shim)
        setTimeout(() => {
          if (!s.stream && ctx.sessions.find(s.id) === s) ctx.sessions.end(s, 'the stdio shim went away');
        }, SHIM_GRACE_MS).unref();
    }
    stream.end();
  });
}

/** DELETE ends the session it names (204). */
export function deleteSession(
  ctx: HttpContext,
  req: IncomingMessage,
  res: ServerResponse,
  profile: string | undefined,
): void {
  if (header(req, 'mcp-session-id') === undefined) {
    throw new HttpRefusal(400, invalidRequest('DELETE ends a session: the Mcp-Session-Id header is required'));
  }
  const s = sessionOf(ctx, req, profile)!;
  ctx.sessions.end(s, 'session deleted by the client');
  res.writeHead(204).end();
}

const samePrincipal = (a: Principal | undefined, b: Principal | undefined): boolean =>
  (a && principalIdentity(a)) === (b && principalIdentity(b));
