// Streamable HTTP on node:http, both eras on one endpoint (docs/protocol.md "One endpoint for both eras").
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Settings } from '../config/settings';
import { CODES, ProtocolError, httpStatus, invalidRequest } from '../protocol/errors';
import {
  type Notification,
  RefusedMessage,
  type Request,
  classify,
  errorResponse,
  isObject,
  parseJson,
} from '../protocol/jsonrpc';
import { META } from '../protocol/meta';
import { HEADERLESS, MODERN, NEWEST_FIRST, type Revision, eraOf, isRevision } from '../protocol/revisions';
import { methodOf } from '../protocol/methods';
import { Conn, PER_REQUEST } from '../server/conn';
import { Runner } from '../server/runner';
import type { McpServer } from '../server/server';
import { SHIM_HEADER, decodeHeaderValue } from '../wire/headers';
import { BodyTooLarge, readBody } from '../wire/body';
import { sendJson } from '../wire/json';
import { EndpointSecret } from './auth';
import { ConnectionCap, serverOptions } from './connections';
import { type HeadRefusal, NOT_NORMAL, readHead, urlOf } from './head';
import { checkOrigin } from './origin';
import { type Session, Sessions } from './sessions';
import { SseStream } from '../wire/sse';
import { Abort } from '../wire/abort';

/** How long a stdio shim's session outlives its GET stream (SHIM_HEADER). */
const SHIM_GRACE_MS = 1000;

const MCP_PATH = '/mcp';
const SECRET_PATH_PREFIX = `${MCP_PATH}/`;

/** Extra routes (the /v1 API) mounted on the same listener: return true when handled. */
export type Route = (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | Promise<boolean>;

export interface HttpOptions {
  server: McpServer;
  settings: Settings;
  routes?: Route[];
  log?: (line: string) => void;
  /** The endpoint secret (docs/security.md "The endpoint secret"; 2025-11-25 basic/transports, Security
   *  Warning: servers SHOULD implement proper authentication): when set, /mcp and /v1 serve only a
   *  request that carries it, as `Authorization: Bearer <secret>` or (for /mcp) the path /mcp/<secret>. */
  secret?: string;
  /** Said in a 401: where the URL with the secret is. Never the secret itself. */
  whereIsTheSecret?: string;
}

const h = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** An HTTP-level refusal that still carries a JSON-RPC error (no id: the request was not read). */
class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    readonly error: ProtocolError,
    readonly id?: string | number,
  ) {
    super(error.message);
  }
}

const headRefusal = (r: HeadRefusal) =>
  new HttpRefusal(r.status, invalidRequest(`${r.status === 400 ? 'Bad request' : 'Forbidden'}: ${r.why}`));

export class HttpTransport {
  private http?: Server;
  private cap?: ConnectionCap;
  private sessions?: Sessions;
  private address = '127.0.0.1';
  private port = 0;
  private readonly secret?: EndpointSecret;

  constructor(private readonly opts: HttpOptions) {
    if (opts.secret !== undefined) this.secret = new EndpointSecret(opts.secret);
  }

  /** The endpoint secret, in the path (/mcp/<secret>) or as `Authorization: Bearer <secret>`, else 401. */
  private authorize(req: IncomingMessage, res: ServerResponse, pathSecret?: string): void {
    if (!this.secret) return;
    if (pathSecret !== undefined ? this.secret.matches(pathSecret) : this.secret.bearer(h(req, 'authorization')))
      return;
    res.setHeader('WWW-Authenticate', 'Bearer realm="mcpx"');
    throw new HttpRefusal(
      401,
      invalidRequest(
        `Unauthorized: mcpx serves /mcp and /v1 only with its endpoint secret, sent as "Authorization: Bearer <secret>" or in the path /mcp/<secret>${this.opts.whereIsTheSecret ? `. ${this.opts.whereIsTheSecret}` : ''}`,
      ),
    );
  }

  /** When the last request (not /health) arrived or ended, ms since the epoch: `mcpx daemon`'s
   *  daemon.idleExit. */
  lastActivity = Date.now();
  /** Requests not yet answered, held-open streams included. */
  private inflight = 0;

  /** A request in flight (a held-open stream counts) or a legacy session open. */
  get busy(): boolean {
    return this.inflight > 0 || this.sessionCount > 0;
  }

  get sessionCount(): number {
    return this.sessions?.size ?? 0;
  }

  /** The identity of legacy session `id`; undefined for one unknown or ended. */
  sessionIdentity(id: string): string | undefined {
    return this.sessions?.identityOf(id);
  }

  async listen(port: number, address: string): Promise<{ url: string; port: number; address: string }> {
    this.address = address;
    const http = createServer(serverOptions(this.opts.settings), (req, res) => void this.route(req, res));
    http.keepAliveTimeout = 60_000;
    this.cap = new ConnectionCap(http, this.opts.settings.get<number>('transport.maxConnections'));
    this.http = http;
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(port, address, () => {
        http.off('error', reject);
        resolve();
      });
    });
    const a = http.address() as AddressInfo;
    this.port = a.port;
    this.sessions = new Sessions(this.opts.server, this.opts.settings);
    const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
    return { url: `http://${host}:${a.port}${MCP_PATH}`, port: a.port, address: a.address };
  }

  async close(): Promise<void> {
    this.sessions?.close();
    this.cap?.close();
    const http = this.http;
    this.http = undefined;
    if (!http) return;
    await new Promise<void>((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections();
    });
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A health probe is not use: it keeps no idle daemon alive.
    if (req.url !== '/health') {
      this.lastActivity = Date.now();
      this.inflight++;
      res.once('close', () => {
        this.inflight--;
        this.lastActivity = Date.now();
      });
    }
    try {
      // Order (docs/security.md "The endpoint secret"): the head (Host and the request target, 400 or
      // 403), Origin (403), then the secret (401), then the request itself (415 for a POST that is not
      // application/json, and the rest). No refusal quotes the path: it may hold the secret.
      const policy = {
        address: this.address,
        port: this.port,
        allowedOrigins: this.opts.settings.get<string[]>('transport.allowedOrigins'),
      };
      const head = readHead(req, policy);
      if ('status' in head) throw headRefusal(head);
      const refused = checkOrigin(h(req, 'origin'), policy);
      if (refused) throw new HttpRefusal(403, invalidRequest(`Forbidden: ${refused}`));
      // The MCP endpoint without a query string is every message's path: no URL object for it.
      if (head.target === MCP_PATH) {
        this.authorize(req, res);
        return await this.mcp(req, res);
      }
      const url = urlOf(head.target);
      if (!url) throw headRefusal(NOT_NORMAL);
      if (url.pathname === MCP_PATH) {
        this.authorize(req, res);
        return await this.mcp(req, res);
      }
      // /mcp/<secret>: for clients that take only a URL.
      if (this.secret && url.pathname.startsWith(SECRET_PATH_PREFIX)) {
        this.authorize(req, res, url.pathname.slice(SECRET_PATH_PREFIX.length));
        return await this.mcp(req, res);
      }
      if (url.pathname === '/v1' || url.pathname.startsWith('/v1/')) this.authorize(req, res);
      for (const r of this.opts.routes ?? []) if (await r(req, res, url)) return;
      sendJson(res, 404, { error: `No route for ${req.method} at this path; the MCP endpoint is ${MCP_PATH}` });
    } catch (e) {
      if (e instanceof HttpRefusal) {
        sendJson(res, e.status, errorResponse(e.id, e.error.toWire()));
      } else {
        this.opts.log?.(`http: ${(e as Error).stack ?? String(e)}`);
        sendJson(res, 500, errorResponse(undefined, { code: CODES.InternalError, message: 'Internal error' }));
      }
    }
  }

  private async mcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    switch (req.method) {
      case 'POST':
        return this.post(req, res);
      case 'GET':
        return this.openPushStream(req, res);
      case 'DELETE':
        return this.deleteSession(req, res);
      default:
        res.setHeader('Allow', 'GET, POST, DELETE');
        throw new HttpRefusal(405, invalidRequest(`Method ${req.method} is not allowed on ${MCP_PATH}`));
    }
  }

  private session(req: IncomingMessage): Session | undefined {
    const id = h(req, 'mcp-session-id');
    if (id === undefined) return undefined;
    const s = this.sessions!.find(id);
    // 2025-03-26..2025-11-25 transports: an unknown or ended session is 404; the client re-initializes.
    // The id is not quoted back: it is the session's credential.
    if (!s)
      throw new HttpRefusal(
        404,
        invalidRequest('Session not found: the Mcp-Session-Id is unknown or has ended; initialize again'),
      );
    return s;
  }

  /** GET opens a legacy session's push stream; without a session there is none (405). */
  private openPushStream(req: IncomingMessage, res: ServerResponse): void {
    const hv = h(req, 'mcp-protocol-version');
    const s = hv === MODERN ? undefined : this.session(req);
    if (!s) {
      res.setHeader('Allow', 'POST');
      throw new HttpRefusal(
        405,
        invalidRequest(`No stream to open: GET needs a legacy session (${MODERN} clients use subscriptions/listen)`),
      );
    }
    if (!(h(req, 'accept') ?? '').includes('text/event-stream')) {
      throw new HttpRefusal(406, invalidRequest('GET opens an event stream: Accept must include text/event-stream'));
    }
    s.stream?.end();
    s.used = true;
    const stream = new SseStream(res, this.opts.settings.duration('transport.sseKeepAlive'));
    s.stream = stream;
    stream.start();
    s.conn.push = (msg) => stream.send(msg);
    // The stdio shim keeps its session's GET stream open for as long as it lives: the stream gone and
    // not opened again within a moment, the shim is gone (even by SIGKILL), and so is its session, its
    // calls cancelled (docs/gateway.md "The stdio shim").
    const shim = h(req, SHIM_HEADER.toLowerCase()) !== undefined;
    res.on('close', () => {
      if (s.stream === stream) {
        s.stream = undefined;
        s.conn.push = undefined;
        if (shim)
          setTimeout(() => {
            if (!s.stream && this.sessions?.find(s.id) === s) this.sessions.end(s, 'the stdio shim went away');
          }, SHIM_GRACE_MS).unref();
      }
      stream.end();
    });
  }

  private deleteSession(req: IncomingMessage, res: ServerResponse): void {
    if (h(req, 'mcp-session-id') === undefined) {
      throw new HttpRefusal(400, invalidRequest('DELETE ends a session: the Mcp-Session-Id header is required'));
    }
    const s = this.session(req)!;
    this.sessions!.end(s, 'session deleted by the client');
    res.writeHead(204).end();
  }

  private async readBody(req: IncomingMessage): Promise<string> {
    try {
      return await readBody(req, this.opts.settings.get<number>('transport.maxBodyBytes'));
    } catch (e) {
      if (!(e instanceof BodyTooLarge)) throw e;
      throw new HttpRefusal(
        413,
        invalidRequest(`Request body too large: ${e.size} bytes; the limit is ${e.max} (transport.maxBodyBytes)`),
      );
    }
  }

  private async post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A POST is application/json (the messages of 2026-07-28 basic/transports/streamable-http), or 415
    // before anything reads it: a web page's blind cross-origin POST has no Content-Type or a "simple"
    // one (text/plain, a form) and never reaches a handler (docs/security.md "The endpoint secret").
    const ct = h(req, 'content-type');
    if (ct === undefined || !isJsonType(ct)) {
      throw new HttpRefusal(
        415,
        invalidRequest(
          `Unsupported Content-Type ${ct === undefined ? '(none)' : JSON.stringify(ct)}: send application/json`,
        ),
      );
    }
    const body = await this.readBody(req);
    let value: unknown;
    try {
      value = parseJson(body, {
        maxDepth: this.opts.settings.get<number>('limits.paramsDepth'),
        maxBatch: this.opts.settings.get<number>('limits.batchLength'),
      });
    } catch (e) {
      throw new HttpRefusal(400, e as ProtocolError, e instanceof RefusedMessage ? e.id : undefined);
    }
    const hv = h(req, 'mcp-protocol-version');
    // A body that names a per-request version other than a legacy one is a modern request, whatever
    // its headers say: its errors (-32020, -32022) are modern ones.
    const bv = bodyVersion(value);
    const modernBody = bv !== undefined && !(isRevision(bv) && eraOf(bv) === 'legacy');
    if (hv === MODERN || modernBody) return this.postModern(req, res, value, hv);
    return this.postLegacy(req, res, value, hv);
  }

  /** 2026-07-28: no sessions, headers must agree with the body, the status follows the code. */
  private async postModern(
    req: IncomingMessage,
    res: ServerResponse,
    value: unknown,
    hv: string | undefined,
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
      throw mismatch(
        `MCP-Protocol-Version header ${JSON.stringify(hv)} does not match the body's ${JSON.stringify(bv)}`,
      );
    if (c.kind === 'request') this.checkRequestHeaders(req, c.msg, mismatch);
    const runner = this.sessionless();
    if (c.kind === 'notification') {
      runner.notification(c.msg);
      return void res.writeHead(202).end();
    }
    // Only tools/call reads Mcp-Param-* headers (x-mcp-header arguments).
    await this.run(
      req,
      res,
      runner,
      msg as Request,
      MODERN,
      undefined,
      msg.method === 'tools/call' ? paramHeadersOf(req) : undefined,
    );
  }

  /** Mcp-Method on every request, Mcp-Name where the method names something (2026-07-28 streamable-http). */
  private checkRequestHeaders(req: IncomingMessage, msg: Request, mismatch: (why: string) => HttpRefusal): void {
    const method = h(req, 'mcp-method');
    if (method === undefined) throw mismatch('the Mcp-Method header is required');
    if (method !== msg.method)
      throw mismatch(
        `Mcp-Method header ${JSON.stringify(method)} does not match the body's ${JSON.stringify(msg.method)}`,
      );
    const source = methodOf(msg.method)?.mcpName;
    if (!source) return;
    const field = source.field;
    const raw = h(req, 'mcp-name');
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

  private async postLegacy(
    req: IncomingMessage,
    res: ServerResponse,
    value: unknown,
    hv: string | undefined,
  ): Promise<void> {
    if (hv !== undefined && !isRevision(hv)) {
      // 2025-06-18+ transports: an invalid or unsupported MCP-Protocol-Version is 400.
      throw new HttpRefusal(
        400,
        invalidRequest(`Unsupported MCP-Protocol-Version ${JSON.stringify(hv)}; supported: ${NEWEST_FIRST.join(', ')}`),
      );
    }
    const session = this.session(req);
    // Within a session the negotiated revision governs; a header naming another revision mcpx serves is
    // accepted (liberally) and the answer is spelled for the session, which the client negotiated.
    const rev: Revision = session?.conn.revision ?? (hv as Revision | undefined) ?? HEADERLESS;
    const runner = session?.runner ?? this.sessionless();
    if (session && Array.isArray(value)) session.used = true;
    if (Array.isArray(value)) return this.batch(res, runner, value, rev, session !== undefined);
    const c = classify(value);
    if (session && c.kind === 'request') session.used = true;
    if (!session && c.kind === 'request' && c.msg.method === 'initialize') this.roomForSession(c.msg.id, rev);
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
    await this.run(req, res, runner, c.msg, rev, session);
  }

  /** limits.sessions: at the bound a new session is refused (-32603 naming the setting); no session is
   *  ended for it, so one client's initialize flood cannot end another's session (docs/security.md
   *  "Bounds"). */
  private roomForSession(id: Request['id'], rev: Revision): void {
    const max = this.sessions!.full();
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
  private sessionless(): Runner {
    return new Runner(this.opts.server, new Conn('http', () => `${PER_REQUEST}${randomUUID()}`));
  }

  /** Notifications a batched request emits have no stream to ride on; they are dropped. Outside a
   *  session a dropped connection cancels the batch's requests. */
  private async batch(
    res: ServerResponse,
    runner: Runner,
    items: unknown[],
    rev: Revision,
    inSession: boolean,
  ): Promise<void> {
    const ctl = new AbortController();
    const onClose = () => !res.writableFinished && !inSession && ctl.abort(new Error('client disconnected'));
    res.on('close', onClose);
    try {
      const out = await runner.batch(items, rev, { emit: () => undefined }, ctl.signal);
      if ('refused' in out) throw new HttpRefusal(400, out.refused);
      if (out.responses.length === 0) return void res.writeHead(202).end();
      sendJson(res, 200, out.responses, { text: out.text });
    } finally {
      res.off('close', onClose);
    }
  }

  /** Runs one request; the response is JSON, or an SSE stream once something must be streamed. Within a
   *  legacy session a dropped connection is not a cancellation, and a question can be put (its answer
   *  comes back on another POST of the session); outside one, neither. */
  private async run(
    req: IncomingMessage,
    res: ServerResponse,
    runner: Runner,
    msg: Request,
    rev: Revision,
    session: Session | undefined,
    paramHeaders?: Record<string, string>,
  ): Promise<void> {
    const inSession = session !== undefined;
    const disconnectCancels = !inSession;
    const ctl = new Abort();
    const acceptsSse = (h(req, 'accept') ?? '').includes('text/event-stream');
    const keepAliveMs = this.opts.settings.duration('transport.sseKeepAlive');
    // Only a client that accepts SSE can get a stream; for the others none is made.
    const stream = acceptsSse ? new SseStream(res, keepAliveMs) : undefined;
    // A slow answer to a client that accepts SSE becomes a stream with keep-alive comments, so idle
    // timeouts on the way do not end a call that is still running (docs/protocol.md "Lazy SSE").
    stream?.keepAlive();
    const onClose = () => {
      if (res.writableFinished) return;
      if (disconnectCancels) ctl.abort(new Error('client closed the stream'));
    };
    res.on('close', onClose);
    try {
      const channel = {
        emit: (n: Notification) => {
          stream?.send(n);
        },
        // A question turns this POST's response into an event stream lazily; the answer comes back on
        // a separate POST in the same session. Outside a session nothing could route it back.
        send: inSession && stream ? (q: Request) => void stream.send(q) : undefined,
        paramHeaders,
      };
      const outcome = await runner.request(msg, rev, channel, ctl);
      if (ctl.aborted && disconnectCancels) return; // 2026-07-28: nothing more for a cancelled request
      if (!outcome.response) {
        // Cancelled by notifications/cancelled: no response; the POST gets an empty event stream.
        const empty = stream ?? new SseStream(res, keepAliveMs);
        empty.start();
        return empty.end();
      }
      if (outcome.initialized && eraOf(outcome.rev) === 'legacy' && !('error' in outcome.response)) {
        const id = session?.id ?? this.sessions!.mint(runner);
        if (!stream?.isStarted) res.setHeader('Mcp-Session-Id', id);
      }
      if (stream?.isStarted) {
        stream.send(outcome.response, outcome.text);
        stream.end();
      } else {
        stream?.end();
        const code = 'error' in outcome.response ? outcome.response.error.code : undefined;
        sendJson(res, code === undefined ? 200 : httpStatus(code, outcome.rev), outcome.response, {
          text: outcome.text,
        });
      }
    } finally {
      res.off('close', onClose);
    }
  }
}

/** `application/json`, parameters (charset) allowed. */
function isJsonType(ct: string): boolean {
  const semi = ct.indexOf(';');
  return (semi < 0 ? ct : ct.slice(0, semi)).trim().toLowerCase() === 'application/json';
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
