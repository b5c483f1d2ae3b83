// A request that belongs to another replica of a team's gateway, relayed to it as it came (docs/team.md
// "Sessions and forwarding"): a legacy session's requests to the replica that minted it, a request naming
// a task or a round's call to the replica running it. The replica it reaches checks it as its own (the
// head, the secret or the token, everything); the answer — JSON or an event stream — comes back as it
// is written, and a client that goes away takes the relayed request with it. A relayed request is never
// relayed again.
import { type IncomingMessage, type ServerResponse, request } from 'node:http';
import { CODES, ProtocolError } from '../protocol/errors';
import type { Request } from '../protocol/jsonrpc';
import { header } from './refusal';

/** Said on a relayed request: the id of the replica that relayed it. */
const FORWARDED_BY = 'mcpx-forwarded-by';

/** A replica as the others reach it. */
export interface Peer {
  readonly id: string;
  /** Its advertised URL: where its listener is reached (store.advertise). */
  readonly url: string;
}

/** Where the work a request names lives, in a team (src/team/affinity.ts); none for one gateway. */
export interface Affinity {
  /** This replica's id: every legacy session id it mints starts with it. */
  readonly replica: string;
  /** The live replica, other than this one, that holds what `msg` names (a task, a round's call). */
  ownerOf(msg: Request): Promise<Peer | undefined>;
  /** The live replica, other than this one, that minted session `id`; `gone` when that replica has
   *  stopped; undefined for one of this replica's (or an id no replica minted). */
  sessionOwner(id: string): Promise<Peer | 'gone' | undefined>;
}

/** Headers of one connection, not of the request: never relayed. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Whether this request was relayed here by another replica (and so is served here, or refused). */
export const relayed = (req: IncomingMessage): boolean => header(req, FORWARDED_BY) !== undefined;

/** How long the replica may take to accept the relayed request's connection (the answer itself may take
 *  as long as the call does). */
const CONNECT_WITHIN_MS = 5_000;

/** Relays `req` to `peer` — its body as read (`body`), or streamed on when unread — and its answer
 *  back. A peer that cannot be reached (it may have just stopped: the others know it once
 *  store.replicaTtl has passed) is 503 with Retry-After, before anything was answered. */
export function forward(
  req: IncomingMessage,
  res: ServerResponse,
  peer: Peer,
  from: string,
  /** The body as read, and the request's id (a refusal answers it); none: the body is streamed on. */
  read?: { body: string; id?: string | number },
): Promise<void> {
  const body = read?.body;
  const target = new URL(req.url ?? '/', peer.url);
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP.has(k)) headers[k] = v;
  headers.host = target.host;
  headers[FORWARDED_BY] = from;
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise<void>((resolve) => {
    const out = request(target, { method: req.method, headers });
    const connecting = setTimeout(() => out.destroy(new Error('no connection')), CONNECT_WITHIN_MS);
    out.on('socket', (sock) => {
      if (!sock.connecting) clearTimeout(connecting);
      else sock.once('connect', () => clearTimeout(connecting));
    });
    out.on('close', () => clearTimeout(connecting));
    out.on('response', (answer) => {
      const kept: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !HOP.has(k)) kept[k] = v;
      res.writeHead(answer.statusCode ?? 502, kept);
      answer.pipe(res);
      answer.on('end', resolve);
      answer.on('error', () => {
        res.destroy();
        resolve();
      });
    });
    out.on('error', (e) => {
      resolve();
      if (res.headersSent) return void res.destroy();
      const error = new ProtocolError(
        CODES.InternalError,
        `the replica ${peer.id} that holds this request's session or work cannot be reached (${(e as NodeJS.ErrnoException).code ?? e.message}); retry`,
      );
      res.statusCode = 503;
      res.setHeader('Retry-After', '1');
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: read?.id ?? null, error: error.toWire() }));
    });
    // The client gone, the relayed request goes too (a 2026-07-28 request's cancellation).
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    if (body !== undefined) out.end(body);
    else req.pipe(out);
  });
}
