// The stdio shim's relay (docs/gateway.md "The stdio shim"): a stdio client's lines onto a running
// gateway's Streamable HTTP endpoint, through the shim's own node:http leg (./http.ts: sessions, the GET
// stream, SSE, per-request headers, the bounds and readings of upstream/transport.ts). Frames are relayed, not re-spelled: what the client reads is what the gateway sent for its
// revision. A legacy client gets a session in its own revision (its initialize is the session's); a
// 2026-07-28 client's requests go one by one with their headers. The shim is one identity to the
// gateway: its session, or — for 2026-07-28 requests that name none — one `_meta["dev.mcpx/session"]` of
// its own (docs/protocol.md "Client identity").
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { withoutSecret } from '../config/secret';
import { CODES, type ProtocolError, type WireError, invalidRequest, methodNotFound } from '../protocol/errors';
import {
  type Classified,
  type Id,
  type JsonObject,
  type Notification,
  type ReadLimits,
  RefusedMessage,
  type Request,
  type Response,
  classify,
  errorResponse,
  isObject,
  parseJson,
} from '../protocol/jsonrpc';
import {
  BATCHES,
  HEADERLESS,
  MODERN,
  OLDEST,
  type Revision,
  VERSION_HEADER,
  inSpan,
  isRevision,
} from '../protocol/revisions';
import { HttpStatusError, TransportClosed } from '../upstream/transport';
import { SHIM_HEADER } from '../wire/headers';
import { jsonLine } from '../wire/raw';
import { GatewayHttp, SessionExpired, StreamBroken } from './nodeHttp';
import { Intake } from './intake';
import { HEADER_SAFE_METHOD, ModernHttp, isModern } from './modern';

export interface RelayOptions {
  /** The gateway's endpoint, secret included. */
  endpoint: string;
  input: Readable;
  output: Writable;
  log(line: string): void;
  maxLineBytes: number;
  /** How a line is read (limits.paramsDepth, limits.batchLength, exact ids), as the in-process stdio
   *  transport reads it: what the shim refuses is what `--standalone` refuses. */
  limits: ReadLimits;
  /** limits.inflight: the most requests of the client the shim relays at once; beyond, -32603 naming it
   *  (the gateway refuses rather than queues at the same bound: docs/security.md "Bounds"). */
  maxInflight: number;
  /** limits.responseBytes: the longest answer read from the gateway (a JSON body or an SSE event), the
   *  bound the gateway writes its responses within — not an HTTP upstream's transport.maxBodyBytes. */
  maxResponseBytes: number;
  /** After a break (the gateway restarted, the editor reloaded): where the gateway is now. */
  reconnect?: () => Promise<string>;
  /** How long to keep trying to reach a gateway again before giving up (the shim then exits). */
  reconnectForMs?: number;
  /** How long requests in flight may take to answer once stdin ended. */
  drainMs?: number;
}

export class Relay {
  /** Resolves when stdin ended and the relay closed (the session ended), or when the gateway could not be
   *  reached again. */
  readonly closed: Promise<void>;
  private up: GatewayHttp;
  private endpoint: string;
  /** The client's last answered initialize, kept to open the session again after a break. */
  private init?: { params: JsonObject; initialized: boolean };
  /** The revision the session negotiated (batches are read by it, as `--standalone` reads them). */
  private sessionRev?: Revision;
  /** The requests of a batch: read, like the batch, as 2025-03-26 before initialize (headerless). */
  private readonly batched = new WeakSet<Request>();
  /** The client's requests in flight, by id: an id in use is refused, as the gateway's runner refuses it
   *  on one connection (every revision's basic page: ids are unique among a requestor's requests). */
  private readonly ids = new Set<Id>();
  /** Requests the client cancelled: answered with nothing (every revision's cancellation page: the
   *  receiver does not respond), however their stream ends. */
  private readonly cancelled = new Set<Id>();
  /** 2026-07-28 requests in flight: closing one's stream is its cancellation. */
  private readonly modern = new Map<Id, AbortController>();
  private readonly inflight = new Set<Promise<void>>();
  private reconnecting?: Promise<void>;
  /** How this shim's 2026-07-28 requests travel: its identity, their headers. */
  private readonly modernHttp = new ModernHttp(`shim-${randomBytes(16).toString('hex')}`);
  private readonly intake: Intake;
  private done!: () => void;
  private ended = false;

  constructor(private readonly o: RelayOptions) {
    this.endpoint = o.endpoint;
    this.up = this.open(o.endpoint);
    this.closed = new Promise((r) => (this.done = r));
    this.intake = new Intake(o.input, o.maxLineBytes, {
      line: (l) => this.line(l),
      overlong: (bytes) =>
        this.write(
          errorResponse(
            undefined,
            invalidRequest(
              `Invalid request: a line of ${bytes} bytes is over transport.maxLineBytes (${o.maxLineBytes}); it was discarded`,
            ).toWire(),
          ),
        ),
      end: () => void this.end(),
    });
    // A client that closed its end of the pipe reads nothing more: as if it had closed stdin.
    o.output.on('error', () => void this.end());
  }

  private open(endpoint: string): GatewayHttp {
    // An SSE event holds the response and a few bytes of framing ("data: ", the event's end).
    const max = this.o.maxResponseBytes;
    const up = new GatewayHttp({
      url: endpoint,
      headers: { [SHIM_HEADER]: String(process.pid) },
      log: this.o.log,
      bounds: { maxBodyBytes: max, maxLineBytes: max + 1024, maxDepth: this.o.limits.maxDepth },
    });
    // What the gateway sends on its own (questions, notifications, on a POST's stream or the GET
    // stream) goes to the client as it came.
    up.onIncoming = (msg) => this.write(msg);
    return up;
  }

  private write(msg: unknown): void {
    // A result that arrived as bytes goes on as them, never decoded or serialized again (wire/raw.ts).
    if (!this.ended || this.inflight.size) this.o.output.write(jsonLine(msg));
  }

  /** One line, read as `--standalone` reads it (parseJson, classify). A legacy initialize holds the lines
   *  after it until it is answered — its session then exists, and they go in it — and a notification the
   *  lines after it until the gateway took it, so the gateway sees them in the client's order
   *  (docs/protocol.md "stdio order"). */
  private line(text: string): void {
    if (this.ended || !text.trim()) return;
    let v: unknown;
    try {
      v = parseJson(text, this.o.limits);
    } catch (e) {
      const id = e instanceof RefusedMessage ? e.id : undefined;
      return this.write(errorResponse(id, (e as ProtocolError).toWire()));
    }
    if (Array.isArray(v)) return this.batch(v);
    const c = classify(v);
    if (c.kind === 'invalid') return this.write(errorResponse(c.id, c.error.toWire()));
    const answered = this.one(c);
    this.track(answered.then((r) => r && this.write(r)));
    const initialize = c.kind === 'request' && c.msg.method === 'initialize' && !isModern(c.msg.params);
    if (initialize || (c.kind === 'notification' && !this.isLocal(c.msg))) this.intake.hold(answered);
  }

  private track(p: Promise<void>): void {
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p));
  }

  /** A batch, under the rules of the in-process runner: 2025-03-26 only (before initialize, or in a
   *  2025-03-26 session), never empty, never holding initialize (2025-03-26 basic/lifecycle); its length
   *  was bounded as it was read. Each message is relayed, the responses written back as one array. */
  private batch(items: unknown[]): void {
    const rev = this.sessionRev ?? HEADERLESS;
    const refuse = (why: string) =>
      this.write(errorResponse(undefined, invalidRequest(`Invalid request: ${why}`).toWire()));
    if (!inSpan(rev, BATCHES)) return refuse(`JSON-RPC batches are accepted in ${BATCHES.since} only, not ${rev}`);
    if (items.length === 0) return refuse('an empty batch');
    const answers = items.map(async (item): Promise<Response | undefined> => {
      const c = classify(item);
      if (c.kind === 'invalid') return errorResponse(c.id, c.error.toWire());
      if (c.kind === 'request' && c.msg.method === 'initialize')
        return errorResponse(
          c.msg.id,
          invalidRequest('Invalid request: initialize must not be part of a batch').toWire(),
        );
      if (c.kind === 'request') this.batched.add(c.msg);
      return this.one(c);
    });
    this.track(
      Promise.all(answers).then((all) => {
        const out = all.filter((r): r is Response => r !== undefined);
        if (out.length) this.write(out);
      }),
    );
  }

  /** One message: a request answered (its response returned), a notification or a response passed on. */
  private async one(c: Exclude<Classified, { kind: 'invalid' }>): Promise<Response | undefined> {
    try {
      if (c.kind === 'request') return await this.request(c.msg);
      if (c.kind === 'notification') return void (await this.notify(c.msg));
      await this.up.respond(c.msg);
    } catch (e) {
      if (c.kind === 'request') return errorResponse(c.msg.id, { code: CODES.InternalError, message: this.why(e) });
      this.o.log(`mcpx: could not relay a ${c.kind === 'notification' ? c.msg.method : 'response'}: ${this.why(e)}`);
    }
    return undefined;
  }

  private async request(req: Request): Promise<Response | undefined> {
    if (this.ids.has(req.id))
      return errorResponse(
        req.id,
        invalidRequest(
          `Invalid request: id ${JSON.stringify(req.id)} is already in use by a request in flight`,
        ).toWire(),
      );
    if (this.ids.size >= this.o.maxInflight)
      return errorResponse(req.id, {
        code: CODES.InternalError,
        message: `the shim is at limits.inflight (${this.o.maxInflight}) requests in flight; retry`,
      });
    this.ids.add(req.id);
    try {
      return await this.relay(req);
    } catch (e) {
      // Cancelled by the client: its stream ends (or is closed) without a response, and none is written.
      if (this.cancelled.has(req.id)) return undefined;
      throw e;
    } finally {
      this.ids.delete(req.id);
      this.cancelled.delete(req.id);
    }
  }

  private async relay(req: Request): Promise<Response> {
    // A request that comes while the gateway is being found again waits for it, then goes there.
    if (this.reconnecting) await this.reconnecting;
    const modern = isModern(req.params);
    // Headers carry the method as it is; a method no header can carry is no method (-32601, as the gateway
    // answers a method it does not know).
    if (modern && !HEADER_SAFE_METHOD.test(req.method))
      return errorResponse(req.id, methodNotFound(req.method).toWire());
    if (modern) req = this.modernHttp.named(req);
    const ctl = new AbortController();
    if (modern) this.modern.set(req.id, ctl);
    try {
      if (modern && req.method === 'tools/call')
        await this.modernHttp.learnTools(req, (list, headers) => this.up.request(list, { headers }));
      const res = await this.send(req, ctl.signal, modern);
      if (modern && req.method === 'tools/list' && 'result' in res) this.modernHttp.learn(res.result.tools);
      if (!modern && req.method === 'initialize' && 'result' in res && isObject(req.params))
        this.opened(req.params, res);
      return res;
    } finally {
      if (modern) this.modern.delete(req.id);
    }
  }

  /** A legacy initialize answered: the session it opened (or the same one, initialized again) is the one
   *  every later request goes in, and the one opened again after a break. Its GET stream opens now, not
   *  at initialized: the gateway ends a shim's session when that stream closes (docs/gateway.md "The
   *  stdio shim"), and a call made before initialized is the session's too. */
  private opened(params: JsonObject, res: Response & { result: JsonObject }): void {
    this.init = { params, initialized: this.init?.initialized ?? false };
    const v = res.result.protocolVersion;
    if (!isRevision(v)) return;
    this.sessionRev = v;
    // The session's revision rides every later request from 2025-06-18 (2025-06-18 transports); a client
    // that initialized again at an older one sends none.
    this.up.protocolVersion = inSpan(v, VERSION_HEADER) ? v : undefined;
    this.up.openStream();
  }

  /** The request, sent again once on the gateway found again when it never reached the old one (the
   *  connection refused, or the session unknown there: it did not run). One the break cut off mid-way is
   *  answered with an error saying so: it may have run (docs/gateway.md "The stdio shim"). */
  private async send(req: Request, signal: AbortSignal, modern: boolean, again = true): Promise<Response> {
    try {
      return await this.up.request(req, { signal, headers: modern ? this.modernHttp.headers(req) : this.before(req) });
    } catch (e) {
      // Refused at the HTTP level (the secret, Origin, a size bound): the gateway's error, answered on this
      // request's id so the client can tell which request it ends.
      if (e instanceof HttpStatusError && e.json && isObject(e.json.error))
        return errorResponse(req.id, e.json.error as unknown as WireError);
      if (signal.aborted || this.ended || this.cancelled.has(req.id)) throw e;
      const unsent = e instanceof SessionExpired || e instanceof TransportClosed;
      if (!isBreak(e)) throw e;
      const recovered = this.recover(e as Error);
      if (!unsent || !again || req.method === 'initialize') throw e;
      await recovered;
      return this.send(req, signal, modern, false);
    }
  }

  /** A legacy request before the client initialized is spelled for the oldest revision, as `--standalone`
   *  answers a stdio client that states none (docs/protocol.md "A client that states no revision"): over
   *  HTTP without a header the gateway would read it as 2025-03-26 and send fields 2024-11-05 lacks (tool
   *  `annotations`). A batch's requests stay 2025-03-26, the one revision of batches. */
  private before(req: Request): Record<string, string> | undefined {
    if (this.sessionRev || req.method === 'initialize' || this.batched.has(req)) return undefined;
    return { 'MCP-Protocol-Version': OLDEST };
  }

  /** A 2026-07-28 cancellation of a request in flight here: closing its stream is the cancellation
   *  (streamable-http "Cancellation"), nothing is sent. */
  private isLocal(n: Notification): boolean {
    return n.method === 'notifications/cancelled' && isObject(n.params) && this.modern.has(n.params.requestId as Id);
  }

  private async notify(n: Notification): Promise<void> {
    if (this.isLocal(n)) {
      const id = (n.params as JsonObject).requestId as Id;
      this.cancelled.add(id);
      return this.modern.get(id)!.abort(new Error('cancelled by the client'));
    }
    if (isModern(n.params)) {
      // A method no header can carry is no method: nothing to do (a notification is never answered).
      if (!HEADER_SAFE_METHOD.test(n.method)) return;
      return this.up.notify(n, { headers: { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': n.method } });
    }
    // A legacy cancellation goes to the session; the request it names gets no response here either.
    if (n.method === 'notifications/cancelled' && isObject(n.params)) {
      const id = n.params.requestId as Id;
      if (this.ids.has(id)) this.cancelled.add(id);
    }
    await this.up.notify(n);
    if (n.method === 'notifications/initialized') {
      if (this.init) this.init.initialized = true;
      this.up.openStream();
    }
  }

  private why(e: unknown): string {
    const m = e instanceof Error ? e.message : String(e);
    if (!isBreak(e)) return `the shim could not relay this request: ${m}`;
    return `the gateway went away while this request was out (${m}); it may or may not have run — the shim is reconnecting`;
  }

  /** The gateway restarted or went away: find it again (re-resolving), open the session again with the
   *  client's own initialize, so the client needs no restart. Given up after reconnectForMs: the shim ends. */
  private recover(cause: Error): Promise<void> {
    if (this.reconnecting || !this.o.reconnect) return this.reconnecting ?? Promise.resolve();
    this.o.log(`mcpx: lost the gateway at ${withoutSecret(this.endpoint)} (${cause.message}); reconnecting`);
    const until = Date.now() + (this.o.reconnectForMs ?? 30_000);
    this.reconnecting = (async () => {
      for (let wait = 200; Date.now() < until && !this.ended; wait = Math.min(wait * 2, 2000)) {
        let next: GatewayHttp | undefined;
        try {
          const endpoint = await this.o.reconnect!();
          next = this.open(endpoint);
          if (this.init) await this.reopen(next, this.init);
          void this.up.close();
          this.up = next;
          this.endpoint = endpoint;
          this.o.log(`mcpx: reconnected to ${withoutSecret(endpoint)}`);
          return;
        } catch (e) {
          void next?.close();
          this.o.log(`mcpx: not yet: ${(e as Error).message}`);
          await new Promise((r) => setTimeout(r, wait));
        }
      }
      if (!this.ended) {
        this.o.log('mcpx: could not reach a gateway again; exiting');
        await this.end();
      }
    })().finally(() => (this.reconnecting = undefined));
    // What the client writes meanwhile waits (in order) for the session opened again.
    this.intake.hold(this.reconnecting);
    return this.reconnecting;
  }

  /** The session opened again on `next` with the client's own initialize (and initialized, if it sent
   *  it), its GET stream open. */
  private async reopen(next: GatewayHttp, init: { params: JsonObject; initialized: boolean }): Promise<void> {
    const r = await next.request({
      jsonrpc: '2.0',
      id: 'mcpx-shim-reconnect',
      method: 'initialize',
      params: init.params,
    });
    if ('error' in r) throw new Error(r.error.message);
    const v = r.result.protocolVersion;
    if (isRevision(v) && inSpan(v, VERSION_HEADER)) next.protocolVersion = v;
    if (init.initialized) await next.notify({ jsonrpc: '2.0', method: 'notifications/initialized' });
    next.openStream();
  }

  /** stdin ended: requests in flight get drainMs to answer; then the session ends and the relay closes. */
  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    const drain = new Promise((r) => setTimeout(r, this.o.drainMs ?? 2000).unref());
    await Promise.race([Promise.allSettled([...this.inflight]), drain]);
    for (const ctl of this.modern.values()) ctl.abort(new Error('the client went away'));
    await this.up.close();
    this.done();
  }
}

/** The gateway went away: the connection refused, the session unknown (a restart), or a stream cut
 *  mid-way (StreamBroken). */
function isBreak(e: unknown): boolean {
  return e instanceof SessionExpired || e instanceof TransportClosed || e instanceof StreamBroken;
}
