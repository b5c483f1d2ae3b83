// One upstream connection as mcpx the client holds it: the era the upstream speaks (its codec), request
// ids, one request on the wire (the era's headers; a broken stream re-sends an idempotent one), what the
// upstream sends unasked (progress, task status, cancellation, listen streams, and its own requests to
// mcpx, answered by the gateway's one function), the time spent answering its questions, and close.
// One call over it is upstream/call.ts; a task it makes of a call, upstream/tasks.ts.
import type { Policy } from '../config/policy';
import { type EraCodec, codecOfEra } from '../protocol/eras';
import { CODES, ProtocolError } from '../protocol/errors';
import {
  type Id,
  type JsonObject,
  type Notification,
  type Request,
  type Response,
  isObject,
} from '../protocol/jsonrpc';
import { methodOf } from '../protocol/methods';
import { META, type LogLevel } from '../protocol/meta';
import type { Era, Revision } from '../protocol/revisions';
import type { Aborts } from '../wire/abort';
import { encodeHeaderValue } from '../wire/headers';
import { type HeaderParam, headerParams, paramHeaders } from '../wire/paramHeaders';
import { StreamBroken } from './http';
import type { UpstreamTransport } from './transport';

/** What the gateway supplies: the one function that answers an upstream's questions, and a sink for
 *  its notifications. */
export interface ClientHooks {
  onRequest(method: string, params: JsonObject, signal: AbortSignal): Promise<JsonObject>;
  /** `related`: the RequestOptions.related of the request on whose response stream it arrived; OFF_STREAM
   *  for an HTTP message on no such stream; undefined where the transport cannot say (stdio). */
  onNotification(n: Notification, related?: object): void;
  log(line: string): void;
}

/** ClientHooks.onNotification's `related` for a Streamable HTTP message that arrived on no request's
 *  stream, or on one nobody is waiting for: it relates to no call. */
const OFF_STREAM: object = Object.freeze({});

/** Who answers a question of the upstream: the gateway's hook, or one call's own answerer. */
export type Answerer = (method: string, params: JsonObject, signal: AbortSignal, key?: string) => Promise<JsonObject>;

/** An error the upstream answered with; relayed as that error (docs/protocol.md "Errors relayed"). */
export class UpstreamError extends ProtocolError {
  constructor(
    readonly server: string,
    code: number,
    message: string,
    data?: unknown,
  ) {
    super(code, message, data);
    this.name = 'UpstreamError';
  }
}

export interface Negotiated {
  era: Era;
  revision: Revision;
  capabilities: JsonObject;
  serverInfo: JsonObject;
  instructions?: string;
}

/** One request as the wire sees it: its signal, and the id it is on now (a re-sent request gets a new one). */
export interface Flight {
  signal: Aborts;
  id?: Id;
}

/** What one request declares in its `_meta` beyond what it carries already. */
export interface MetaOptions {
  /** Extra `_meta` for this request (progressToken, trace context). */
  meta?: JsonObject;
  /** 2026-07-28: the capabilities declared for this request (narrowed from the calling client's). */
  clientCapabilities?: JsonObject;
  /** The log level wanted for this request: per request to 2026-07-28, logging/setLevel to legacy. */
  logLevel?: LogLevel;
}

export class UpstreamConnection {
  /** What the upstream's era differs in; asked, never the era itself. */
  readonly codec: EraCodec;
  private nextId: number;
  /** Server-initiated requests being answered, for their cancellation. */
  private readonly answering = new Map<Id, AbortController>();
  private closed = false;
  /** Open subscriptions/listen streams: their id -> who gets what arrives tagged with it. */
  private readonly listens = new Map<Id, (n: Notification) => void>();
  /** Streamable HTTP: who answers a question that arrives on the response stream of a request in flight,
   *  by that request's id — the question belongs to that request's call (docs/questions.md "Who answers"). */
  readonly streamAskers = new Map<Id, Answerer>();
  /** Streamable HTTP: whom a request in flight is for, by its id (RequestOptions.related). */
  readonly streamRelated = new Map<Id, object>();
  /** Progress tokens of requests in flight -> their clock (progress extends the call timeout). */
  readonly progressClocks = new Map<unknown, { extend(): void }>();
  /** Upstream tasks whose status notifications wake their driver. */
  readonly taskWakers = new Map<string, () => void>();
  /** x-mcp-header parameters of the tools this upstream listed (where the era honours them, over HTTP). */
  private readonly toolHeaders = new Map<string, HeaderParam[]>();
  /** The level a legacy upstream logs at, once lowered by logging/setLevel (upstream/call.ts). */
  level?: LogLevel;
  inflight = 0;
  /** Questions from the upstream being answered: pool.callTimeout does not run meanwhile (docs/questions.md "Bounds"). */
  private questions = 0;
  private pauseStarted?: number;
  private pausedTotal = 0;

  constructor(
    readonly name: string,
    readonly transport: UpstreamTransport,
    readonly negotiated: Negotiated,
    readonly hooks: ClientHooks,
    private readonly policy: Policy,
    /** Capabilities declared to a 2026-07-28 upstream when a request names none. */
    readonly defaultCapabilities: JsonObject,
    private readonly clientInfo: JsonObject,
    firstId = 1,
  ) {
    this.codec = codecOfEra(negotiated.era);
    this.nextId = firstId;
    transport.onIncoming = (msg, via) => this.incoming(msg, via);
  }

  get era(): Era {
    return this.negotiated.era;
  }

  /** Closed by mcpx, or its transport ended (a crash). */
  get isClosed(): boolean {
    return this.closed || this.transport.isClosed;
  }

  /** Request ids are unique per direction and never reused (legacy: within the session). */
  mintId(): number {
    return this.nextId++;
  }

  /** Throws when mcpx closed the connection: nothing more is sent on it. */
  assertOpen(): void {
    if (this.closed) throw new ProtocolError(CODES.InternalError, `upstream ${this.name} is closed`);
  }

  private incoming(msg: Request | Notification, via?: Id): void {
    if ('id' in msg) return void this.answer(msg, via === undefined ? undefined : this.streamAskers.get(via));
    if (msg.method === 'notifications/progress' && isObject(msg.params))
      this.progressClocks.get(msg.params.progressToken)?.extend();
    // A task mcpx drives changed: polled now, not dropped (docs/protocol.md "Tasks": upstream).
    if (msg.method === 'notifications/tasks/status' && isObject(msg.params)) {
      const wake = this.taskWakers.get(String(msg.params.taskId));
      if (wake) return wake();
    }
    if (msg.method === 'notifications/cancelled') {
      const id = isObject(msg.params) ? (msg.params.requestId as Id) : undefined;
      const ctl = id === undefined ? undefined : this.answering.get(id);
      if (ctl) {
        const reason = (msg.params as JsonObject).reason;
        // The reason is the upstream's: whoever was asked hears it (the client, the editor, the broker).
        ctl.abort(new Error(`${this.name} withdrew it${typeof reason === 'string' && reason ? `: ${reason}` : ''}`));
        this.hooks.log(`[${this.name}] withdrew request ${String(id)}: ${String(reason ?? '')}`);
      }
      return;
    }
    // 2026-07-28 subscriptions: every message of a listen stream carries its id (on stdio the only way to
    // tell the streams apart).
    const sub = isObject(msg.params) && isObject(msg.params._meta) ? msg.params._meta[META.subscriptionId] : undefined;
    const listener = sub === undefined ? undefined : this.listens.get(sub as Id);
    if (listener) return listener(msg);
    // Over Streamable HTTP a message off every request's stream (the GET stream) relates to no request.
    const related = via === undefined ? undefined : this.streamRelated.get(via);
    this.hooks.onNotification(msg, related ?? (this.transport.kind === 'http' ? OFF_STREAM : undefined));
  }

  /** Open a subscriptions/listen stream (2026-07-28 basic/patterns/subscriptions). What arrives on it —
   *  the acknowledgement first — goes to `on`; resolves with the result when the server ends the stream,
   *  rejects when it breaks or `signal` ends it (closing the stream or notifications/cancelled). */
  async listen(filter: JsonObject, on: (n: Notification) => void, signal: AbortSignal): Promise<JsonObject> {
    this.assertOpen();
    const flight: Flight = { signal, id: this.mintId() };
    this.listens.set(flight.id!, on);
    const onAbort = () => this.cancelNotice(flight, 'cancelled by the caller');
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.once('subscriptions/listen', this.withMeta({ notifications: filter }, {}), flight, false);
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.listens.delete(flight.id!);
    }
  }

  questionStarted(): void {
    if (this.questions++ === 0) this.pauseStarted = Date.now();
  }
  questionEnded(): void {
    if (--this.questions === 0 && this.pauseStarted !== undefined) {
      this.pausedTotal += Date.now() - this.pauseStarted;
      this.pauseStarted = undefined;
    }
  }
  /** Whether a question of the upstream is being answered now. */
  get asking(): boolean {
    return this.questions > 0;
  }
  /** Time spent answering questions so far, on this connection. */
  paused(): number {
    return this.pausedTotal + (this.pauseStarted !== undefined ? Date.now() - this.pauseStarted : 0);
  }

  /** A request from the upstream. 2026-07-28 servers send none: not answered while that revision is
   *  held strictly (docs/protocol.md "A request from a 2026-07-28 upstream"; 2026-07-28 basic/transports/stdio). */
  private async answer(req: Request, ask: Answerer = this.hooks.onRequest): Promise<void> {
    if (!this.codec.client.peerRequests && this.policy.strict(this.negotiated.revision)) {
      const rev = this.negotiated.revision;
      this.hooks.log(`[${this.name}] a ${rev} server sent a request (${req.method}); not answered (${rev} is strict)`);
      return;
    }
    const ctl = new AbortController();
    this.answering.set(req.id, ctl);
    let response: Response;
    this.questionStarted();
    try {
      const result =
        req.method === 'ping' ? {} : await ask(req.method, isObject(req.params) ? req.params : {}, ctl.signal);
      response = { jsonrpc: '2.0', id: req.id, result };
    } catch (e) {
      const err =
        e instanceof ProtocolError ? e.toWire() : { code: CODES.InternalError, message: (e as Error).message };
      response = { jsonrpc: '2.0', id: req.id, error: err };
    } finally {
      this.answering.delete(req.id);
      this.questionEnded();
    }
    if (ctl.signal.aborted || this.isClosed) return; // withdrawn, or nobody to send it to: no response
    await this.transport
      .respond(response)
      .catch((e: Error) => this.hooks.log(`[${this.name}] could not answer ${req.method}: ${e.message}`));
  }

  /** Params with the request's `_meta`: what the era has each request state (2026-07-28: version,
   *  capabilities, client info, log level), on top of what the request carries. */
  withMeta(params: JsonObject, o: MetaOptions): JsonObject {
    const meta: JsonObject = {
      ...(isObject(params._meta) ? params._meta : {}),
      ...o.meta,
      ...this.codec.client.meta({
        capabilities: o.clientCapabilities ?? this.defaultCapabilities,
        clientInfo: this.clientInfo,
        logLevel: o.logLevel,
      }),
    };
    return Object.keys(meta).length ? { ...params, _meta: meta } : params;
  }

  /** The era's headers of a request over Streamable HTTP, with a tool's x-mcp-header parameters. */
  private headersFor(method: string, params: JsonObject): Record<string, string> | undefined {
    if (this.transport.kind !== 'http') return undefined;
    const h = this.codec.client.headers(method, params, encodeHeaderValue);
    const annotated =
      h && method === 'tools/call' && typeof params.name === 'string' ? this.toolHeaders.get(params.name) : undefined;
    if (h && annotated) Object.assign(h, paramHeaders(annotated, isObject(params.arguments) ? params.arguments : {}));
    return h;
  }

  /** An HTTP upstream's tools, where its era honours x-mcp-header: one whose annotations break the rules
   *  is left out (with a warning); the others' annotations are remembered for their calls. */
  screenTools(tools: JsonObject[]): JsonObject[] {
    if (!this.codec.client.paramHeaders || this.transport.kind !== 'http') return tools;
    return tools.filter((t) => {
      const r = headerParams(t.inputSchema);
      if ('reason' in r) {
        this.hooks.log(`[${this.name}] tool ${JSON.stringify(t.name)} rejected: ${r.reason}`);
        return false;
      }
      if (r.params.length) this.toolHeaders.set(String(t.name), r.params);
      return true;
    });
  }

  /** Cancellation per era: notifications/cancelled for the request in flight, or nothing more where the
   *  closed stream is the cancellation (2026-07-28 HTTP). */
  cancelNotice(flight: Flight, reason: string): void {
    if (flight.id === undefined) return;
    if (this.codec.cancellation(this.transport.kind === 'stdio' ? 'stdio' : 'http') === 'close-stream') return;
    void this.transport
      .notify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: flight.id, reason } })
      .catch(() => undefined);
  }

  /** One request on the wire, on `flight.id`; a broken stream re-sends an idempotent one on a new id. */
  async once(method: string, params: JsonObject, flight: Flight, reissued = false): Promise<JsonObject> {
    const req: Request = { jsonrpc: '2.0', id: flight.id!, method, params };
    let res: Response;
    try {
      res = await this.transport.request(req, { signal: flight.signal, headers: this.headersFor(method, params) });
    } catch (e) {
      if (e instanceof StreamBroken && methodOf(method)?.idempotent && !reissued) {
        this.hooks.log(`[${this.name}] ${e.message}; sending ${method} again on a new id`);
        flight.id = this.mintId();
        return this.once(method, params, flight, true);
      }
      throw e;
    }
    if ('error' in res) throw new UpstreamError(this.name, res.error.code, res.error.message, res.error.data);
    return res.result;
  }

  async notify(method: string, params?: JsonObject): Promise<void> {
    await this.transport.notify(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const ctl of this.answering.values()) ctl.abort(new Error('closing'));
    await this.transport.close();
  }
}
