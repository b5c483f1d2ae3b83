// mcpx as a client of one upstream, in the era the upstream speaks. Per-request `_meta` for 2026-07-28,
// negotiated capabilities for legacy; pagination; cancellation per era; the upstream's own questions
// (legacy wire requests and 2026-07-28 input_required results) resolved by one function.
import type { Policy } from '../config/policy';
import { downgradeClientCapabilities } from '../protocol/downgrade';
import { CODES, ProtocolError } from '../protocol/errors';
import {
  type Id,
  type JsonObject,
  type Notification,
  type Request,
  type Response,
  isObject,
} from '../protocol/jsonrpc';
import { methodOf, resultProblem } from '../protocol/methods';
import { META, type LogLevel, atLeastLevel } from '../protocol/meta';
import { MODERN, type Era, type Revision } from '../protocol/revisions';
import { encodeHeaderValue } from '../wire/headers';
import { HttpUpstream, StreamBroken } from './http';
import { type HeaderParam, headerParams, paramHeaders } from '../wire/paramHeaders';
import type { UpstreamTransport } from './transport';
import { Abort, type Aborts, listen } from '../wire/abort';
import { withTasks } from '../protocol/tasks';
import { type DriverPort, type TaskOptions, augmentFirst, driveTask, needsExtension } from './tasks';

/** What the gateway supplies: the one function that answers an upstream's questions, and a sink for
 *  its notifications. */
export interface ClientHooks {
  onRequest(method: string, params: JsonObject, signal: AbortSignal): Promise<JsonObject>;
  onNotification(n: Notification): void;
  log(line: string): void;
}

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

export interface RequestOptions {
  /** The caller's abort: an AbortSignal, or an Abort (wire/abort.ts) that builds none. */
  signal?: Aborts;
  timeoutMs?: number;
  /** Extra `_meta` for this request (progressToken, trace context). */
  meta?: JsonObject;
  /** 2026-07-28: the capabilities declared for this request (narrowed from the calling client's). */
  clientCapabilities?: JsonObject;
  /** Bound on input_required rounds (proto.askRounds). */
  askRounds?: number;
  /** Progress extends the timeout, but never past this from the start (pool.maxCallTime). */
  maxTotalMs?: number;
  /** The log level wanted for this request: per request to 2026-07-28, logging/setLevel to legacy. */
  logLevel?: LogLevel;
  /** Who answers a 2026-07-28 upstream's input_required for this request. Such a question belongs to this
   *  request exactly (it is its result), so it needs no attribution; defaults to hooks.onRequest. */
  onQuestion?: (method: string, params: JsonObject, signal: AbortSignal, key?: string) => Promise<JsonObject>;
  /** A tools/call that may be task-augmented upstream (upstream/tasks.ts). */
  task?: TaskOptions;
  /** A request of a call already in flight (driving its task): not counted again, so the call's questions
   *  are still attributed to it (gateway/calls.ts owner()). */
  partOfCall?: boolean;
}

/** One request as the wire sees it: its signal, and the id it is on now (a re-sent request gets a new one). */
interface Flight {
  signal: Aborts;
  id?: Id;
}

export interface Negotiated {
  era: Era;
  revision: Revision;
  capabilities: JsonObject;
  serverInfo: JsonObject;
  instructions?: string;
}

export class UpstreamClient {
  private nextId: number;
  /** Server-initiated requests being answered, for their cancellation. */
  private readonly answering = new Map<Id, AbortController>();
  private closed = false;
  /** Open subscriptions/listen streams: their id -> who gets what arrives tagged with it. */
  private readonly listens = new Map<Id, (n: Notification) => void>();
  /** Streamable HTTP: who answers a question that arrives on the response stream of a request in flight,
   *  by that request's id — the question belongs to that request's call (docs/questions.md "Who answers"). */
  private readonly streamAskers = new Map<Id, NonNullable<RequestOptions['onQuestion']>>();
  inflight = 0;
  /** Questions from the upstream being answered: pool.callTimeout does not run meanwhile (docs/questions.md "Bounds"). */
  private questions = 0;
  private pauseStarted?: number;
  private pausedTotal = 0;

  constructor(
    readonly name: string,
    readonly transport: UpstreamTransport,
    readonly negotiated: Negotiated,
    private readonly hooks: ClientHooks,
    private readonly policy: Policy,
    /** Capabilities declared to a 2026-07-28 upstream when a request names none. */
    private readonly defaultCapabilities: JsonObject,
    private readonly clientInfo: JsonObject,
    firstId = 1,
  ) {
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
        ctl.abort(new Error(String((msg.params as JsonObject).reason ?? 'withdrawn by the upstream')));
        this.hooks.log(
          `[${this.name}] withdrew request ${String(id)}: ${String((msg.params as JsonObject).reason ?? '')}`,
        );
      }
      return;
    }
    // 2026-07-28 subscriptions: every message of a listen stream carries its id (on stdio the only way to
    // tell the streams apart).
    const sub = isObject(msg.params) && isObject(msg.params._meta) ? msg.params._meta[META.subscriptionId] : undefined;
    const listener = sub === undefined ? undefined : this.listens.get(sub as Id);
    if (listener) return listener(msg);
    this.hooks.onNotification(msg);
  }

  /** Open a subscriptions/listen stream (2026-07-28 basic/patterns/subscriptions). What arrives on it —
   *  the acknowledgement first — goes to `on`; resolves with the result when the server ends the stream,
   *  rejects when it breaks or `signal` ends it (closing the stream or notifications/cancelled). */
  async listen(filter: JsonObject, on: (n: Notification) => void, signal: AbortSignal): Promise<JsonObject> {
    if (this.closed) throw new ProtocolError(CODES.InternalError, `upstream ${this.name} is closed`);
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

  private questionStarted(): void {
    if (this.questions++ === 0) this.pauseStarted = Date.now();
  }
  private questionEnded(): void {
    if (--this.questions === 0 && this.pauseStarted !== undefined) {
      this.pausedTotal += Date.now() - this.pauseStarted;
      this.pauseStarted = undefined;
    }
  }
  /** Time spent answering questions so far, on this connection. */
  private paused(): number {
    return this.pausedTotal + (this.pauseStarted !== undefined ? Date.now() - this.pauseStarted : 0);
  }

  /** Calls `onTimeout` after `ms` of time not spent on questions. `extend()` restarts the clock (progress
   *  from the upstream), never past `maxTotalMs` from the start. */
  private callClock(ms: number, maxTotalMs: number, onTimeout: () => void): { clear(): void; extend(): void } {
    const first = Date.now();
    let start = first;
    let pausedAtStart = this.paused();
    let timer: NodeJS.Timeout;
    const check = () => {
      const now = Date.now();
      const elapsed = now - start - (this.paused() - pausedAtStart);
      if ((elapsed >= ms && this.questions === 0) || now - first >= maxTotalMs) return onTimeout();
      timer = setTimeout(check, Math.max(Math.min(ms - elapsed, maxTotalMs - (now - first)), 50));
    };
    timer = setTimeout(check, ms);
    return {
      clear: () => clearTimeout(timer),
      extend: () => {
        start = Date.now();
        pausedAtStart = this.paused();
      },
    };
  }

  /** Progress tokens of requests in flight -> their clock (progress extends the call timeout). */
  private readonly progressClocks = new Map<unknown, { extend(): void }>();

  /** A request from the upstream. 2026-07-28 servers send none: not answered while that revision is
   *  held strictly (docs/protocol.md "A request from a 2026-07-28 upstream"; 2026-07-28 basic/transports/stdio). */
  private async answer(req: Request, ask = this.hooks.onRequest): Promise<void> {
    if (this.era === 'modern' && this.policy.strict(MODERN)) {
      this.hooks.log(
        `[${this.name}] a ${MODERN} server sent a request (${req.method}); not answered (${MODERN} is strict)`,
      );
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

  /** Params with the request's `_meta`: per-request version and capabilities for 2026-07-28. */
  private withMeta(params: JsonObject, o: RequestOptions): JsonObject {
    const meta: JsonObject = { ...(isObject(params._meta) ? params._meta : {}), ...o.meta };
    if (this.era === 'modern') {
      if (o.logLevel) meta[META.logLevel] = o.logLevel;
      meta[META.protocolVersion] = MODERN;
      meta[META.clientCapabilities] = downgradeClientCapabilities(
        o.clientCapabilities ?? this.defaultCapabilities,
        MODERN,
      );
      meta[META.clientInfo] = this.clientInfo;
    }
    return Object.keys(meta).length ? { ...params, _meta: meta } : params;
  }

  /** x-mcp-header parameters of the tools this upstream listed (2026-07-28 HTTP only). */
  private readonly toolHeaders = new Map<string, HeaderParam[]>();

  private headersFor(method: string, params: JsonObject): Record<string, string> | undefined {
    if (this.era !== 'modern' || this.transport.kind !== 'http') return undefined;
    const h: Record<string, string> = { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': method };
    const field = methodOf(method)?.mcpName?.field;
    const v = field ? params[field] : undefined;
    if (typeof v === 'string') h['Mcp-Name'] = encodeHeaderValue(v);
    const annotated =
      method === 'tools/call' && typeof params.name === 'string' ? this.toolHeaders.get(params.name) : undefined;
    if (annotated) Object.assign(h, paramHeaders(annotated, isObject(params.arguments) ? params.arguments : {}));
    return h;
  }

  /** A 2026-07-28 HTTP upstream's tools: one whose x-mcp-header annotations break the rules is left out
   *  (with a warning); the others' annotations are remembered for their calls. */
  private screenTools(tools: JsonObject[]): JsonObject[] {
    if (this.era !== 'modern' || this.transport.kind !== 'http') return tools;
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

  /** Send one request and return its result; a JSON-RPC error becomes an UpstreamError. */
  async request(method: string, params: JsonObject = {}, o: RequestOptions = {}): Promise<JsonObject> {
    if (this.closed) throw new ProtocolError(CODES.InternalError, `upstream ${this.name} is closed`);
    // One controller per call, aborted by the caller's signal or the clock, whichever comes first (one
    // listener and one timer: AbortSignal.any was the costliest allocation of a call). The request in
    // flight at that moment gets the era's cancellation notice.
    const ctl = new Abort();
    const signal = ctl;
    const flight: Flight = { signal };
    let timedOut = false;
    const abort = (why: unknown) => {
      if (signal.aborted) return;
      ctl.abort(why);
      this.cancelNotice(flight, timedOut ? 'timed out' : 'cancelled by the caller');
    };
    const onCaller = () => abort(o.signal!.reason);
    let offCaller: (() => void) | undefined;
    if (o.signal?.aborted) onCaller();
    else if (o.signal) offCaller = listen(o.signal, onCaller);
    const clock = o.timeoutMs
      ? this.callClock(o.timeoutMs, o.maxTotalMs ?? Infinity, () => {
          timedOut = true;
          abort(new Error('timeout'));
        })
      : undefined;
    const token = o.meta?.progressToken;
    if (clock && token !== undefined) this.progressClocks.set(token, clock);
    if (!o.partOfCall) this.inflight++;
    try {
      if (o.logLevel) await this.ensureLevel(o.logLevel);
      const t = method === 'tools/call' ? o.task : undefined;
      let augmented = t !== undefined && augmentFirst(this.era, this.negotiated.capabilities, t);
      let p = this.withMeta(augmented ? this.taskAugmented(params) : params, augmented ? this.withTasks(o) : o);
      for (let round = 0; ; round++) {
        flight.id = this.mintId();
        const id = flight.id;
        if (o.onQuestion && this.transport.kind === 'http') this.streamAskers.set(id, o.onQuestion);
        let result: JsonObject;
        try {
          result = await this.once(method, p, flight);
        } catch (e) {
          // A "required" tool of a 2026-07-28 upstream, called for a client that may not declare the
          // extension: declared now, and the task driven here (docs/protocol.md "Tasks": upstream).
          if (!(t?.mayDrive && !augmented && e instanceof UpstreamError && needsExtension(e.code, e.data))) throw e;
          augmented = true;
          p = this.withMeta(params, this.withTasks(o));
          continue;
        } finally {
          this.streamAskers.delete(id);
        }
        flight.id = undefined; // answered: a cancellation while the next round is prepared names no request
        const type = result.resultType;
        if (augmented && (type === 'task' || (this.era === 'legacy' && isObject(result.task)))) {
          t?.onCreated?.();
          return this.checked(method, await driveTask(this.driver(o, clock, signal.signal), result, signal.signal));
        }
        if (type === undefined || type === 'complete') return this.checked(method, result);
        if (type !== 'input_required') {
          // A value mcpx did not ask for is not guessed at (docs/protocol.md "resultType from a 2026-07-28 upstream").
          throw new ProtocolError(
            CODES.InternalError,
            `upstream ${this.name} answered ${method} with an unknown resultType ${JSON.stringify(type)}`,
          );
        }
        if (round + 1 >= (o.askRounds ?? 8)) {
          throw new ProtocolError(
            CODES.InternalError,
            `upstream ${this.name} was still asking for input after ${o.askRounds ?? 8} rounds (proto.askRounds)`,
          );
        }
        p = {
          ...p,
          inputResponses: await this.inputResponses(result, signal.signal, o.onQuestion),
          ...(typeof result.requestState === 'string' ? { requestState: result.requestState } : {}),
        };
        if (typeof result.requestState !== 'string') delete p.requestState;
      }
    } catch (e) {
      if (signal.aborted && !(e instanceof UpstreamError)) {
        // The caller's reason, where it is an error a client may be told (the call asked too much).
        const reason = o.signal?.aborted ? o.signal.reason : undefined;
        if (!timedOut && reason instanceof ProtocolError) throw reason;
        const why = timedOut ? `did not answer ${method} within ${o.timeoutMs} ms (pool.callTimeout)` : 'cancelled';
        throw new ProtocolError(CODES.InternalError, `upstream ${this.name} ${why}`);
      }
      throw e;
    } finally {
      clock?.clear();
      offCaller?.();
      if (token !== undefined) this.progressClocks.delete(token);
      if (!o.partOfCall) this.inflight--;
      // A legacy HTTP session's GET stream (what the server sends unasked) opens after the first request
      // is answered, not at connect: a reconnection of a polled POST stream is then the only GET in flight.
      if (this.era === 'legacy' && this.transport instanceof HttpUpstream) this.transport.openStream();
    }
  }

  /** The params of a task-augmented tools/call: 2025-11-25's `task` field (the extension has none). */
  private taskAugmented(params: JsonObject): JsonObject {
    return this.era === 'legacy' ? { ...params, task: {} } : params;
  }

  /** A 2026-07-28 request declaring the tasks extension besides what it declares already. */
  private withTasks(o: RequestOptions): RequestOptions {
    if (this.era !== 'modern') return o;
    return { ...o, clientCapabilities: withTasks(o.clientCapabilities ?? this.defaultCapabilities) };
  }

  /** Upstream tasks whose status notifications wake their driver. */
  private readonly taskWakers = new Map<string, () => void>();

  /** What upstream/tasks.ts drives a task with: requests under this call's capabilities and answerer. */
  private driver(o: RequestOptions, clock: { extend(): void } | undefined, signal: AbortSignal): DriverPort {
    const sub: RequestOptions = { ...this.withTasks(o), task: undefined, signal: undefined, meta: undefined };
    const answer = o.onQuestion ?? this.hooks.onRequest;
    return {
      name: this.name,
      era: this.era,
      request: (method, params) =>
        this.request(method, params, {
          ...sub,
          partOfCall: true,
          timeoutMs: method === 'tasks/result' ? undefined : o.timeoutMs,
        }),
      ask: async (method, params, key) => {
        this.questionStarted();
        try {
          return await answer(method, params, signal, key);
        } finally {
          this.questionEnded();
        }
      },
      alive: () => clock?.extend(),
      onStatus: (taskId, fn) => {
        this.taskWakers.set(taskId, fn);
        return () => this.taskWakers.delete(taskId);
      },
      log: (line) => this.hooks.log(line),
      error: (code, message, data) => new UpstreamError(this.name, code, message, data),
      maxQuestions: o.askRounds ?? 8,
    };
  }

  /** 2026-07-28 input requests, answered by the same function as a legacy wire request. */
  private async inputResponses(
    result: JsonObject,
    signal?: AbortSignal,
    answer: (method: string, params: JsonObject, signal: AbortSignal, key?: string) => Promise<JsonObject> = this.hooks
      .onRequest,
  ): Promise<JsonObject> {
    const reqs = isObject(result.inputRequests) ? result.inputRequests : {};
    const out: JsonObject = {};
    const ctl = new AbortController();
    const s = signal ? AbortSignal.any([signal, ctl.signal]) : ctl.signal;
    this.questionStarted();
    try {
      // Asked together, so a client asked in turn sees every question of the round at once.
      await Promise.all(
        Object.entries(reqs).map(async ([key, r]) => {
          if (!isObject(r) || typeof r.method !== 'string') return;
          out[key] = await answer(r.method, isObject(r.params) ? r.params : {}, s, key);
        }),
      );
    } finally {
      this.questionEnded();
    }
    return out;
  }

  /** Cancellation per era: notifications/cancelled for the request in flight on stdio and legacy HTTP;
   *  on 2026-07-28 HTTP the closed stream is the cancellation. */
  private cancelNotice(flight: Flight, reason: string): void {
    if (flight.id === undefined || (this.era === 'modern' && this.transport.kind === 'http')) return;
    void this.transport
      .notify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: flight.id, reason } })
      .catch(() => undefined);
  }

  /** One request on the wire, on `flight.id`; a broken stream re-sends an idempotent one on a new id. */
  private async once(method: string, params: JsonObject, flight: Flight, reissued = false): Promise<JsonObject> {
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

  /** The level a legacy upstream logs at: lowered with logging/setLevel when a call wants more, never
   *  raised again (each host still gets only what it asked for). */
  private level?: LogLevel;
  private async ensureLevel(level: LogLevel): Promise<void> {
    if (this.era !== 'legacy' || !('logging' in this.negotiated.capabilities)) return;
    if (this.level && atLeastLevel(level, this.level)) return;
    this.level = level;
    await this.request('logging/setLevel', { level }).catch((e: Error) =>
      this.hooks.log(`[${this.name}] logging/setLevel ${level}: ${e.message}`),
    );
  }

  async notify(method: string, params?: JsonObject): Promise<void> {
    await this.transport.notify(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** A result is relayed only in the shape every revision requires of it; an invalid one is an error
   *  naming the upstream, never passed on (docs/security.md "Upstream results"). */
  private checked(method: string, result: JsonObject): JsonObject {
    const problem = resultProblem(method, result);
    if (problem === undefined) return result;
    throw new ProtocolError(
      CODES.InternalError,
      `upstream ${this.name} returned an invalid ${method} result: ${problem}`,
    );
  }

  /** A whole list, page by page. A missing cursor ends it; in 2026-07-28 an empty string is a cursor
   *  (docs/protocol.md "Pagination"), before it, the end. */
  async listAll(method: string, key: string, o: RequestOptions = {}): Promise<JsonObject[]> {
    const items: JsonObject[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const r = await this.request(method, cursor === undefined ? {} : { cursor }, o);
      if (Array.isArray(r[key]))
        items.push(...(method === 'tools/list' ? this.screenTools(r[key] as JsonObject[]) : (r[key] as JsonObject[])));
      const next = r.nextCursor;
      if (typeof next !== 'string' || (next === '' && this.era === 'legacy')) return items;
      cursor = next;
    }
    throw new ProtocolError(CODES.InternalError, `upstream ${this.name}: ${method} did not end after 1000 pages`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const ctl of this.answering.values()) ctl.abort(new Error('closing'));
    await this.transport.close();
  }
}
