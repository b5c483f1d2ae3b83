// mcpx as a server: decides each request's revision, validates it, builds its context, runs its handler,
// and spells the result for that revision at the one edge. Server adapters reach it through a Runner
// (runner.ts); listen streams live in listens.ts, questions to the client in rounds.ts.
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
  errorResponse,
  isObject,
  notificationMsg,
  resultResponse,
} from '../protocol/jsonrpc';
import { META, type LogLevel, atLeastLevel, clientNameOf, isLogLevel } from '../protocol/meta';
import { type ClientRequest, METHODS, methodAnswered, readParams } from '../protocol/methods';
import { MODERN, NEWEST_FIRST, type Revision, eraOf, isRevision } from '../protocol/revisions';
import { Admission } from './admission';
import type { Abort, Aborts } from '../wire/abort';
import { ClientCancelled, type Conn, PER_REQUEST, namedIdentity } from './conn';
import {
  HANDLERS,
  type HandlerContext,
  type Handlers,
  NOTIFICATION_HANDLERS,
  type ServerInfo,
  type Services,
} from './handlers';
import type { Incoming, Outcome } from './incoming';
import { Listens } from './listens';
import type { BackgroundCall } from './mrtr';
import type { CallContext, Provider } from './provider';
import { Rounds } from './rounds';
import { TaskCalls } from './taskCalls';
import { TASK_HANDLERS } from './taskHandlers';
import { type Task, Tasks, extensionRequired } from './tasks';
import { declaresTasks } from '../protocol/tasks';
import type { MethodDescriptor } from '../protocol/methods';

/** Every request's handler: the core ones and the tasks/* of both eras, one for each client request. */
const ALL_HANDLERS: Handlers<ClientRequest> = { ...HANDLERS, ...TASK_HANDLERS };
/** A handler with its params parsed already, whatever its method. */
type AnyHandler = (ctx: HandlerContext, params: JsonObject) => Promise<JsonObject>;
const handlerOf = (method: string): AnyHandler => (ALL_HANDLERS as unknown as Record<string, AnyHandler>)[method]!;

export type { Incoming, Outcome, ServerInfo };

export interface ServerOptions {
  provider: Provider;
  settings: Settings;
  policy: Policy;
  serverInfo: ServerInfo;
}

export class McpServer {
  /** Listen streams and legacy push channels: where list changes go. */
  readonly listens: Listens;
  /** Questions to the calling client, and the 2026-07-28 background calls a retry resumes. */
  readonly rounds: Rounds;
  /** Every task, both eras (tasks.ts); `taskCalls` decides which calls become one. */
  readonly tasks: Tasks;
  private readonly taskCalls: TaskCalls;

  /** What a handler may use of the server, and no more. */
  private readonly services: Services;
  /** Requests in flight per identity and in total (docs/security.md "Bounds"). */
  private readonly admission: Admission;

  constructor(readonly opts: ServerOptions) {
    this.listens = new Listens(opts.provider);
    this.rounds = new Rounds(opts.settings);
    this.tasks = new Tasks(
      () => opts.settings.duration('proto.askTTL'),
      () => opts.settings.duration('proto.taskPollInterval'),
      () => ({
        perIdentity: opts.settings.get<number>('limits.tasksPerIdentity'),
        total: opts.settings.get<number>('limits.inflight'),
        held: opts.settings.get<number>('limits.tasks'),
      }),
    );
    this.taskCalls = new TaskCalls(opts.provider, opts.settings, this.tasks, this.rounds);
    this.admission = new Admission(() => ({
      perIdentity: opts.settings.get<number>('limits.inflightPerIdentity'),
      total: opts.settings.get<number>('limits.inflight'),
    }));
    this.services = {
      provider: opts.provider,
      settings: opts.settings,
      serverInfo: opts.serverInfo,
      listen: (ctx, filter) => this.listens.open(ctx, filter),
      tasks: this.tasks,
    };
    opts.provider.onListChanged?.((kind) => this.listens.announce(kind));
  }

  close(): void {
    this.listens.close();
    this.rounds.close();
    this.tasks.close();
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
    let release: (() => void) | undefined;
    let identity: string | undefined;
    let background = false;
    try {
      rev = this.revisionOf(req, inc.rev);
      if (!methodAnswered(req.method, rev) || !Object.hasOwn(ALL_HANDLERS, req.method))
        throw methodNotFound(req.method);
      const desc: MethodDescriptor = METHODS[req.method as ClientRequest];
      identity = this.identityOf(inc, rev);
      release = await this.admission.acquire(identity, inc.abort);
      const caller = this.caller(inc, rev);
      if (desc.needsTasksExtension && eraOf(rev) === 'modern' && !declaresTasks(caller.clientCapabilities))
        throw extensionRequired(
          `${req.method} needs the io.modelcontextprotocol/tasks extension declared on the request`,
        );
      const params: JsonObject = desc.params
        ? readParams(desc.params, req.params)
        : isObject(req.params)
          ? req.params
          : {};
      if (eraOf(rev) === 'modern' && desc.inputRequired) {
        const id = identity;
        const window = await this.taskCalls.window(inc, id);
        background = true;
        const result = await this.rounds.roundTrip(
          inc,
          rev,
          id,
          (call) => this.startInBackground(inc, rev, id, caller, params, call, window !== undefined),
          window,
        );
        return { response: resultResponse(req.id, this.spell(req.method, result, rev)), rev };
      }
      if (req.method === 'tools/call' && (await this.taskCalls.legacyWantsTask(inc, rev, identity))) {
        const id = identity;
        const task = this.taskCalls.legacyTask(inc, rev, id, (call, t) =>
          this.startInBackground(inc, rev, id, caller, params, call, false, t),
        );
        background = true; // started: its identity ends with its work
        return { response: resultResponse(req.id, this.spell(req.method, { task: task.legacyShape() }, rev)), rev };
      }
      const ctx = this.context(inc, rev, identity, caller);
      const result = await handlerOf(req.method)(ctx, params);
      ctx.finish();
      // initialize is answered in the revision it negotiated, not the one it arrived under.
      if (req.method === 'initialize' && inc.conn.revision) rev = inc.conn.revision;
      return {
        response: resultResponse(req.id, this.spell(req.method, result, rev)),
        rev,
        initialized: req.method === 'initialize',
      };
    } catch (err) {
      if (inc.abort.aborted && inc.abort.reason instanceof ClientCancelled) return { response: undefined, rev };
      return { response: errorResponse(req.id, toWireError(this.abortReason(err, inc.abort), rev)), rev };
    } finally {
      release?.();
      // A background call ends its identity itself, when it settles (startInBackground).
      if (identity && !background) this.identityEnded(identity);
    }
  }

  /** Who a request is from (docs/protocol.md "Client identity"): the identity it names in
   *  `_meta["dev.mcpx/session"]` — at most limits.identitiesPerConnection of them per connection —, else
   *  a 2026-07-28 request is its own identity, and a legacy one is its connection's. */
  private identityOf(inc: Incoming, rev: Revision): string {
    const params = isObject(inc.req.params) ? inc.req.params : {};
    const session = isObject(params._meta) ? params._meta[META.session] : undefined;
    if (typeof session === 'string' && session !== '') {
      const identity = namedIdentity(session);
      const named = inc.conn.identities;
      if (!named.has(identity)) {
        const max = this.opts.settings.get<number>('limits.identitiesPerConnection');
        if (named.size >= max)
          throw invalidParams(
            `Invalid params: this connection has already named ${max} identities in _meta["${META.session}"] (limits.identitiesPerConnection)`,
          );
        named.add(identity);
      }
      return identity;
    }
    return eraOf(rev) === 'modern' ? `${PER_REQUEST}${randomUUID()}` : inc.conn.defaultIdentity;
  }

  /** An identity made for one request (2026-07-28, or legacy HTTP outside a session) ends with its call: what the provider keeps for it
   *  (an upstream instance of a `scope: "identity"` server) may go (docs/security.md "Bounds"). */
  private identityEnded(identity: string): void {
    if (identity.startsWith(PER_REQUEST)) this.opts.provider.identityEnded?.(identity);
  }

  /** A request aborted while running surfaces as the abort's own error, not what the handler made of it. */
  private abortReason(err: unknown, signal: Aborts): unknown {
    if (err instanceof ProtocolError || !signal.aborted) return err;
    return new ProtocolError(
      CODES.InternalError,
      `Request cancelled: ${(signal.reason as Error)?.message ?? 'aborted'}`,
    );
  }

  /** A notification from the client: acted on where NOTIFICATION_HANDLERS has it, else ignored
   *  (JSON-RPC: a notification is never answered). */
  notify(conn: Conn, n: Notification): void {
    if (Object.hasOwn(NOTIFICATION_HANDLERS, n.method))
      NOTIFICATION_HANDLERS[n.method as keyof typeof NOTIFICATION_HANDLERS]?.(conn, n.params);
  }

  /** A 2026-07-28 call that may ask starts in the background: its handler runs with the call's own
   *  context, whose progress and log messages ride this request's stream only while it is open. */
  private startInBackground(
    inc: Incoming,
    rev: Revision,
    identity: string,
    caller: Caller,
    params: JsonObject,
    call: BackgroundCall,
    windowed: boolean,
    task?: Task,
  ): void {
    const ctx = this.context(inc, rev, identity, caller, call, task);
    // A call that may become a task asks an upstream for one too; one that is a task already is one.
    ctx.wantsTask = windowed || task !== undefined;
    if (windowed) ctx.becomeTask = () => call.becomeTask();
    const work = handlerOf(inc.req.method)(ctx, params);
    call.run(work);
    void call.settle().then(() => ctx.finish());
    void work.then(
      () => this.identityEnded(identity),
      () => this.identityEnded(identity),
    );
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

  /** What the request says of its caller: per request in 2026-07-28 (and checked), else its connection's. */
  private caller(inc: Incoming, rev: Revision): Caller {
    const { conn, req } = inc;
    const params = isObject(req.params) ? req.params : {};
    const meta = isObject(params._meta) ? params._meta : {};
    let clientCapabilities = conn.clientCapabilities;
    let logLevel: LogLevel | undefined = conn.logLevel;
    if (eraOf(rev) === 'modern') {
      // 2026-07-28 basic/index: capabilities, version and log level are per request; nothing is read
      // from earlier requests on the connection.
      const caps = meta[META.clientCapabilities];
      if (!isObject(params._meta)) throw invalidParams(`Invalid params: params._meta is required in ${MODERN}`);
      if (typeof meta[META.protocolVersion] !== 'string')
        throw invalidParams(`Invalid params: params._meta["${META.protocolVersion}"] is required`);
      if (!isObject(caps))
        throw invalidParams(`Invalid params: params._meta["${META.clientCapabilities}"] is required (an object)`);
      const level = meta[META.logLevel];
      if (level !== undefined && !isLogLevel(level))
        throw invalidParams(`Invalid params: unknown log level ${JSON.stringify(level)}`);
      clientCapabilities = caps;
      logLevel = level as LogLevel | undefined;
    }
    return { clientCapabilities, logLevel, meta };
  }

  private context(
    inc: Incoming,
    rev: Revision,
    identity: string,
    { clientCapabilities, logLevel, meta }: Caller,
    background?: BackgroundCall,
    task?: Task,
  ): RequestScope {
    const ctx = new RequestScope(
      inc,
      rev,
      background,
      this.services,
      this.opts.policy,
      identity,
      clientCapabilities,
      meta,
      logLevel,
    );
    let asked = 0;
    if (inc.send && eraOf(rev) === 'legacy')
      ctx.ask = (method, params, signal) => this.rounds.askOnChannel(inc, rev, method, params, signal, asked++);
    if (background)
      ctx.ask = async (method, params, signal, key) =>
        this.rounds.askInBackground(background, rev, method, params, signal, key);
    // A legacy task's questions go to its client on a channel it has open, with the related-task key.
    if (task)
      ctx.ask = (method, params, signal) => this.taskCalls.askLegacy(task, inc, rev, method, params, signal, asked++);
    else if (inc.send && eraOf(rev) === 'legacy') ctx.channel = inc;
    return ctx;
  }
}

interface Caller {
  clientCapabilities: JsonObject;
  logLevel: LogLevel | undefined;
  meta: JsonObject;
}

/** One request's context: its CallContext (`call` is itself) and its handler's context in one object,
 *  with methods on the prototype — a request builds one object here, not a dozen closures. */
class RequestScope implements CallContext, HandlerContext {
  declare ask?: CallContext['ask'];
  declare channel?: Incoming;
  wantsTask?: boolean;
  declare becomeTask?: () => void;
  /** A background call (MRTR) outlives the request that started it: its own abort, not the request's. */
  readonly abort: Abort;
  readonly conn: Conn;
  readonly id: Id;
  private done = false;
  private lastProgress = -Infinity;

  constructor(
    private readonly inc: Incoming,
    readonly rev: Revision,
    private readonly background: BackgroundCall | undefined,
    readonly services: Services,
    private readonly policy: Policy,
    readonly identity: string,
    readonly clientCapabilities: JsonObject,
    readonly meta: JsonObject,
    readonly logLevel: LogLevel | undefined,
  ) {
    this.abort = background ? background.abort : inc.abort;
    this.conn = inc.conn;
    this.id = inc.req.id as Id;
  }

  get call(): CallContext {
    return this;
  }
  /** Built only when read (most calls only need `abort`). */
  get signal(): AbortSignal {
    return this.abort.signal;
  }
  get clientName(): string | undefined {
    return clientNameOf(eraOf(this.rev) === 'modern' ? this.meta[META.clientInfo] : this.conn.clientInfo);
  }
  get paramHeaders(): Readonly<Record<string, string>> | undefined {
    return this.inc.paramHeaders;
  }

  notify(method: string, p: JsonObject): void {
    if (this.done || this.inc.abort.aborted) return;
    const spelled = downgradeNotification(method, p, this.rev, { stripProgressMessage: this.policy.governs(this.rev) });
    this.inc.emit(notificationMsg(method, spelled));
  }

  progress(progress: number, total?: number, message?: string): void {
    // Progress MUST increase (basic/utilities/progress); a report that does not is not sent.
    const token = this.meta.progressToken;
    if ((typeof token !== 'string' && typeof token !== 'number') || progress <= this.lastProgress) return;
    this.lastProgress = progress;
    if (this.background) this.background.progress = { progress, total };
    const p: JsonObject = { progressToken: token, progress };
    if (total !== undefined) p.total = total;
    if (message !== undefined) p.message = message;
    this.notify('notifications/progress', p);
  }

  log(level: LogLevel, data: unknown, logger?: string): void {
    // No level requested, no messages (2026-07-28 MUST NOT; mcpx takes the same reading for legacy).
    if (!this.logLevel || !atLeastLevel(level, this.logLevel)) return;
    this.notify('notifications/message', logger === undefined ? { level, data } : { level, logger, data });
  }

  finish(): void {
    this.done = true;
  }
}
