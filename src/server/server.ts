// mcpx as a server: decides each request's revision, validates it, runs its handler, and spells the
// result for that revision at the one edge. Transports call handle() and notify().
import { randomUUID } from 'node:crypto';
import type { Policy } from '../config/policy';
import type { Settings } from '../config/settings';
import { downgradeNotification, downgradeResult } from '../protocol/downgrade';
import { envelope } from '../protocol/envelope';
import { CODES, ProtocolError, invalidParams, methodNotFound, toWireError } from '../protocol/errors';
import {
  type Id,
  type JsonObject,
  type Notification,
  type Request,
  type Response,
  errorResponse,
  isObject,
  notificationMsg,
  resultResponse,
} from '../protocol/jsonrpc';
import { readParams, PARAMS } from '../protocol/messages';
import { declares, spellQuestion } from '../protocol/questions';
import { BackgroundCall, BackgroundCalls, MRTR_METHODS, RequestStates, bindingOf } from './mrtr';
import { META, type LogLevel, atLeastLevel, isLogLevel } from '../protocol/meta';
import { MODERN, NEWEST_FIRST, type Revision, eraOf, isRevision, methodAnswered } from '../protocol/revisions';
import { ClientCancelled, type Conn } from './conn';
import { HANDLERS, type HandlerContext } from './handlers';
import type { CallContext, ListKind, Provider } from './provider';

export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
}

export interface ServerOptions {
  provider: Provider;
  settings: Settings;
  policy: Policy;
  serverInfo: ServerInfo;
}

/** One request as a transport hands it over. */
export interface Incoming {
  conn: Conn;
  req: Request;
  /** The revision the transport settled on: a header, the session's, or its era default. */
  rev: Revision;
  signal: AbortSignal;
  /** Sends a notification related to this request (progress, log) on its channel. */
  emit(n: Notification): void;
  /** Sends a request to the client on this request's channel, where there is one (legacy stdio, a
   *  legacy HTTP session whose client accepts SSE). */
  send?(req: Request): void;
  /** 2026-07-28 HTTP: the request's Mcp-Param-* headers (lower-case names without the prefix, raw values). */
  paramHeaders?: Record<string, string>;
}

export interface Outcome {
  /** Absent when the client cancelled the request: nothing is sent for it. */
  response: Response | undefined;
  /** The revision the response was spelled for (picks the HTTP status). */
  rev: Revision;
  /** Set when a legacy initialize succeeded (HTTP mints a session on it). */
  initialized?: boolean;
}


/** Client notifications the server acts on; any other is read and ignored. */
export const NOTIFICATIONS_HANDLED = ['notifications/initialized', 'notifications/cancelled'];

export class McpServer {
  /** Background calls of 2026-07-28 clients (the task store MRTR resumes from). */
  readonly background: BackgroundCalls;
  private readonly states = new RequestStates();

  constructor(readonly opts: ServerOptions) {
    this.background = new BackgroundCalls(() => opts.settings.duration('proto.askTTL'));
    opts.provider.onListChanged?.((kind) => this.announce(kind));
  }

  close(): void {
    this.closing.abort(new Error('the gateway is stopping'));
    this.background.close();
  }

  /** Listen streams open on every connection (seeds 000 "subscriptions/listen": any number per
   *  connection, keyed by request id). */
  private readonly listeners = new Set<{ filter: JsonObject; send(method: string): void }>();
  /** Legacy connections that can be pushed to (stdio, a session with its GET stream open). */
  private readonly pushable = new Set<Conn>();
  private readonly closing = new AbortController();

  registerPush(conn: Conn): void {
    this.pushable.add(conn);
  }

  /** A list changed: every legacy connection that can be pushed to gets it unsolicited (it was declared
   *  at initialize); every listen stream that asked for it gets it tagged with its id. */
  announce(kind: ListKind): void {
    const method = `notifications/${kind}/list_changed`;
    for (const conn of this.pushable) {
      if (conn.isClosed) this.pushable.delete(conn);
      else if (conn.initialized && conn.canPush) conn.push!(notificationMsg(method));
    }
    for (const l of this.listeners) if (l.filter[`${kind}ListChanged`] === true) l.send(method);
  }

  /** subscriptions/listen: acknowledge with the agreed filter, then hold the stream. When mcpx ends it
   *  (seeds 002 headline 1, the recorded reading): on stdio notifications/cancelled, then the result;
   *  over HTTP the result, then the stream closes. */
  async listen(ctx: HandlerContext, filter: JsonObject): Promise<JsonObject> {
    const caps = this.opts.provider.capabilities();
    const lc = caps.listChanged ?? {};
    const agreed: JsonObject = {};
    for (const kind of ['tools', 'prompts', 'resources'] as const) {
      if (filter[`${kind}ListChanged`] === true && caps[kind] && lc[kind]) agreed[`${kind}ListChanged`] = true;
    }
    if (Object.keys(agreed).length) await this.opts.provider.listening?.();
    const tag = { [META.subscriptionId]: ctx.id };
    let acked = false;
    // resourceSubscriptions: the acknowledgement lists only the URIs whose updates will arrive.
    const releases: Array<() => void> = [];
    const provider = this.opts.provider;
    if (Array.isArray(filter.resourceSubscriptions) && provider.subscribe) {
      const agreedUris: string[] = [];
      for (const uri of filter.resourceSubscriptions.filter((u): u is string => typeof u === 'string')) {
        // Nothing goes on the stream before its acknowledgement (2026-07-28 subscriptions).
        const w = await provider.subscribe(uri, (u) => acked && ctx.notify('notifications/resources/updated', { uri: u, _meta: tag }));
        releases.push(w.release);
        if (w.deliverable) agreedUris.push(uri);
      }
      agreed.resourceSubscriptions = agreedUris;
    }
    if (eraOf(ctx.rev) === 'modern') ctx.notify('notifications/subscriptions/acknowledged', { notifications: agreed, _meta: tag });
    acked = true;
    const listener = { filter: agreed, send: (method: string) => ctx.notify(method, { _meta: tag }) };
    this.listeners.add(listener);
    try {
      await new Promise<void>((resolve) => {
        const done = () => {
          // The server-wide signal outlives every stream: its listener goes with the stream.
          this.closing.signal.removeEventListener('abort', done);
          ctx.call.signal.removeEventListener('abort', done);
          resolve();
        };
        ctx.call.signal.addEventListener('abort', done, { once: true });
        this.closing.signal.addEventListener('abort', done, { once: true });
      });
    } finally {
      this.listeners.delete(listener);
      for (const release of releases) release();
    }
    if (ctx.call.signal.aborted) throw new ProtocolError(CODES.InternalError, 'Request cancelled');
    if (ctx.conn.transport === 'stdio') ctx.notify('notifications/cancelled', { requestId: ctx.id, reason: 'mcpx is ending the subscription' });
    return { _meta: tag };
  }

  /** The revision a request is read in: 2026-07-28 if its _meta names it, else the transport's. An
   *  unknown per-request version is -32022 (2026-07-28 versioning: modern requests only). */
  revisionOf(req: Request, fallback: Revision): Revision {
    const meta = isObject(req.params) && isObject(req.params._meta) ? req.params._meta : undefined;
    const pv = meta?.[META.protocolVersion];
    if (pv === undefined || pv === MODERN) return pv === MODERN ? MODERN : fallback;
    if (typeof pv === 'string' && isRevision(pv)) return fallback;
    throw new ProtocolError(CODES.UnsupportedProtocolVersion, `Unsupported protocol version: ${String(pv)}`, {
      requested: String(pv),
      supported: NEWEST_FIRST,
    });
  }

  async handle(inc: Incoming): Promise<Outcome> {
    const { req } = inc;
    let rev: Revision = inc.rev;
    try {
      rev = this.revisionOf(req, inc.rev);
      if (!methodAnswered(req.method, rev) || !HANDLERS[req.method]) throw methodNotFound(req.method);
      if (eraOf(rev) === 'modern' && MRTR_METHODS.has(req.method)) {
        const result = await this.roundTrip(inc, rev);
        return { response: resultResponse(req.id, this.spell(req.method, result, rev)), rev };
      }
      const ctx = this.context(inc, rev);
      const result = await HANDLERS[req.method]!(ctx, isObject(req.params) ? req.params : {});
      ctx.finish();
      // initialize is answered in the revision it negotiated, not the one it arrived under.
      if (req.method === 'initialize' && inc.conn.revision) rev = inc.conn.revision;
      return { response: resultResponse(req.id, this.spell(req.method, result, rev)), rev, initialized: req.method === 'initialize' };
    } catch (err) {
      if (inc.signal.aborted && inc.signal.reason instanceof ClientCancelled) return { response: undefined, rev };
      return { response: errorResponse(req.id, toWireError(this.abortReason(err, inc.signal), rev)), rev };
    }
  }

  /** A request aborted while running surfaces as the abort's own error, not what the handler made of it. */
  private abortReason(err: unknown, signal: AbortSignal): unknown {
    if (err instanceof ProtocolError || !signal.aborted) return err;
    return new ProtocolError(CODES.InternalError, `Request cancelled: ${(signal.reason as Error)?.message ?? 'aborted'}`);
  }

  /** Notifications from the client: initialized, cancelled; anything else is ignored (JSON-RPC: a
   *  notification is never answered). */
  notify(conn: Conn, n: Notification): void {
    if (n.method === 'notifications/initialized') conn.initialized = true;
    if (n.method === 'notifications/cancelled') {
      try {
        const p = readParams(PARAMS['notifications/cancelled'], n.params);
        conn.cancel(p.requestId, p.reason ?? 'cancelled by the client');
      } catch {
        // A malformed cancellation names nothing to cancel.
      }
    }
  }

  /** One round of a 2026-07-28 call that may ask (seeds 001 §3.3): a fresh request starts the call in
   *  the background; a retry verifies its requestState, delivers its inputResponses and resumes it. The
   *  round ends with the call's result, or with input_required carrying the open questions. */
  private async roundTrip(inc: Incoming, rev: Revision): Promise<JsonObject> {
    const { req } = inc;
    const params = isObject(req.params) ? req.params : {};
    // Computed only when a state is checked or issued (once): a call that asks nothing pays nothing for it.
    let bound: string | undefined;
    const binding = () => (bound ??= bindingOf(req.method, params));
    let call: BackgroundCall;
    let rounds = 0;
    if (typeof params.requestState === 'string') {
      const state = this.states.verify(params.requestState, binding());
      const found = this.background.get(state.c);
      if (!found) throw invalidParams('Invalid params: the call behind this requestState is gone (collected, or abandoned after proto.askTTL)');
      call = found;
      rounds = state.r;
    } else {
      const named = params.name ?? params.uri;
      call = new BackgroundCall(req.method, typeof named === 'string' ? `${req.method} ${named}` : req.method);
      const ctx = this.context(inc, rev, call);
      this.background.add(call);
      call.run(HANDLERS[req.method]!(ctx, params));
      // Progress and log messages ride this request's stream only while it is open.
      void call.settle().then(() => ctx.finish());
    }
    if (isObject(params.inputResponses)) call.deliver(params.inputResponses);
    // Closing the stream cancels this request (2026-07-28): a call nobody has been asked about yet ends
    // with it; one that already asked waits for its retry until proto.askTTL.
    const cancelled = new Promise<'cancelled'>((resolve) => inc.signal.addEventListener('abort', () => resolve('cancelled'), { once: true }));
    const ev = await Promise.race([call.settle(), cancelled]);
    if (ev === 'cancelled') {
      if (rounds === 0) {
        call.abort.abort(new Error('cancelled by the client'));
        this.background.delete(call.id);
      }
      throw new ProtocolError(CODES.InternalError, 'Request cancelled');
    }
    if (ev.kind === 'done') {
      this.background.delete(call.id);
      if (ev.error !== undefined) throw ev.error;
      return ev.result!;
    }
    const max = this.opts.settings.get<number>('proto.askRounds');
    if (rounds + 1 > max) {
      call.abort.abort(new Error('too many rounds'));
      this.background.delete(call.id);
      throw new ProtocolError(CODES.InternalError, `the call was still asking for input after ${max} rounds (proto.askRounds); abandoned`);
    }
    // Never an inputRequests kind the client did not declare on this request (mrtr MUST).
    const caps = (isObject(params._meta) ? params._meta[META.clientCapabilities] : undefined) as JsonObject | undefined;
    const asked = call.inputRequests();
    const inputRequests: JsonObject = {};
    for (const [k, q] of Object.entries(asked)) {
      const r = q as { method: string; params: JsonObject };
      if (declares(caps ?? {}, r.method, r.params, rev)) inputRequests[k] = q;
    }
    call.rounds = rounds + 1;
    const requestState = this.states.sign({ c: call.id, b: binding(), e: Date.now() + this.opts.settings.duration('proto.stateTTL'), r: rounds + 1 });
    return { resultType: 'input_required', inputRequests, requestState };
  }

  /** A question put to the client on the request's own channel (a legacy wire request, negative id).
   *  Bounded by proto.askTimeout per question and proto.askRounds per request (seeds 001 §3.5). */
  private async ask(inc: Incoming, rev: Revision, method: string, params: JsonObject, signal: AbortSignal, count: () => number): Promise<JsonObject> {
    const max = this.opts.settings.get<number>('proto.askRounds');
    if (count() >= max) throw new ProtocolError(CODES.InternalError, `the call asked more than ${max} questions (proto.askRounds)`);
    const spelled = spellQuestion(method, params, rev, () => randomUUID());
    const conn = inc.conn;
    const id = conn.mintAskId();
    const all = AbortSignal.any([signal, inc.signal, AbortSignal.timeout(this.opts.settings.duration('proto.askTimeout'))]);
    const answer = conn.asked.wait(id, all);
    // A question withdrawn (upstream cancelled, call ended, timed out) is withdrawn from the client too.
    const onAbort = () => inc.emit(notificationMsg('notifications/cancelled', { requestId: id, reason: 'withdrawn by mcpx' }));
    all.addEventListener('abort', onAbort, { once: true });
    try {
      inc.send!({ jsonrpc: '2.0', id, method, params: spelled });
      const r = await answer;
      if ('error' in r) throw new ProtocolError(r.error.code, r.error.message, r.error.data);
      return r.result;
    } finally {
      all.removeEventListener('abort', onAbort);
    }
  }

  /** The result spelled for `rev`: the modern envelope, or a legacy copy without what `rev` lacks. */
  spell(method: string, result: JsonObject, rev: Revision): JsonObject {
    if (eraOf(rev) === 'modern') {
      return envelope(method, downgradeResult(method, result, rev), {
        serverInfo: { ...this.opts.serverInfo },
        listMaxAgeMs: this.opts.settings.duration('protoMessages.listMaxAge'),
        readMaxAgeMs: this.opts.settings.duration('protoMessages.readMaxAge'),
      });
    }
    return downgradeResult(method, result, rev);
  }

  private context(inc: Incoming, rev: Revision, background?: BackgroundCall): HandlerContext & { finish(): void } {
    const { conn, req } = inc;
    const params = isObject(req.params) ? req.params : {};
    const meta = isObject(params._meta) ? params._meta : {};
    let clientCapabilities = conn.clientCapabilities;
    let logLevel: LogLevel | undefined = conn.logLevel;
    let identity = conn.defaultIdentity;
    if (eraOf(rev) === 'modern') {
      // 2026-07-28 basic/index: capabilities, version and log level are per request; nothing is read
      // from earlier requests on the connection.
      const caps = meta[META.clientCapabilities];
      if (!isObject(params._meta)) throw invalidParams('Invalid params: params._meta is required in 2026-07-28');
      if (typeof meta[META.protocolVersion] !== 'string') throw invalidParams(`Invalid params: params._meta["${META.protocolVersion}"] is required`);
      if (!isObject(caps)) throw invalidParams(`Invalid params: params._meta["${META.clientCapabilities}"] is required (an object)`);
      const level = meta[META.logLevel];
      if (level !== undefined && !isLogLevel(level)) throw invalidParams(`Invalid params: unknown log level ${JSON.stringify(level)}`);
      clientCapabilities = caps;
      logLevel = level as LogLevel | undefined;
      identity = `request:${randomUUID()}`;
    }
    if (typeof meta[META.session] === 'string' && meta[META.session] !== '') identity = `client:${String(meta[META.session])}`;
    let done = false;
    const emit = (method: string, p: JsonObject) => {
      if (done || inc.signal.aborted) return;
      const spelled = downgradeNotification(method, p, rev, { stripProgressMessage: this.opts.policy.governs('2024-11-05') });
      inc.emit(notificationMsg(method, spelled));
    };
    const token = meta.progressToken;
    let lastProgress = -Infinity;
    const call: CallContext = {
      rev,
      // A background call (MRTR) outlives the request that started it: its own signal, not the request's.
      signal: background ? background.abort.signal : inc.signal,
      identity,
      clientCapabilities,
      meta,
      logLevel,
      clientName: nameOf(eraOf(rev) === 'modern' ? meta[META.clientInfo] : conn.clientInfo),
      paramHeaders: inc.paramHeaders,
      progress(progress, total, message) {
        // Progress MUST increase (basic/utilities/progress); a report that does not is not sent.
        if ((typeof token !== 'string' && typeof token !== 'number') || progress <= lastProgress) return;
        lastProgress = progress;
        if (background) background.progress = { progress, total };
        const p: JsonObject = { progressToken: token, progress };
        if (total !== undefined) p.total = total;
        if (message !== undefined) p.message = message;
        emit('notifications/progress', p);
      },
      log(level, data, logger) {
        // No level requested, no messages (2026-07-28 MUST NOT; mcpx takes the same reading for legacy).
        if (!logLevel || !atLeastLevel(level, logLevel)) return;
        emit('notifications/message', logger === undefined ? { level, data } : { level, logger, data });
      },
    };
    if (inc.send && eraOf(rev) === 'legacy') call.ask = (method, params, signal) => this.ask(inc, rev, method, params, signal, () => rounds++);
    if (background) {
      call.ask = async (method, params, signal, key) =>
        background.ask(method, spellQuestion(method, params, rev, () => randomUUID()), AbortSignal.any([signal, background.abort.signal]), key);
    }
    let rounds = 0;
    return {
      call,
      conn,
      server: this,
      rev,
      id: req.id as Id,
      notify: (method, p) => emit(method, p),
      finish: () => {
        done = true;
      },
    };
  }
}

function nameOf(info: unknown): string | undefined {
  if (!isObject(info)) return undefined;
  const n = info.title ?? info.name;
  return typeof n === 'string' && n ? n : undefined;
}
