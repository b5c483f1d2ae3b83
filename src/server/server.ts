// mcpx as a server: each request through one visible pipeline (`handle`): its revision (and codec), who it
// is from, admission, what its caller declared, its params, the tool it names, a strategy — direct, the
// 2026-07-28 background round, or a task — and the result spelled for its revision at the one edge.
// Server adapters reach it through a Runner (runner.ts); listen streams live in listens.ts.
import { randomUUID } from 'node:crypto';
import type { Policy } from '../config/policy';
import type { Settings } from '../config/settings';
import { type Strategy, revisionOf } from '../protocol/eras';
import { CODES, ProtocolError, invalidParams, isTypedError, methodNotFound, toWireError } from '../protocol/errors';
import { type JsonObject, type Notification, errorResponse, isObject, resultResponse } from '../protocol/jsonrpc';
import { META, askedTimeoutMs } from '../protocol/meta';
import { type MethodDescriptor, methodAnswered, methodOf, readParams } from '../protocol/methods';
import { principalIdentity } from '../protocol/principal';
import { endSpan, startSpan } from '../telemetry/mcp';
import { traceContextOf, tracing } from '../telemetry/trace';
import type { Abort } from '../wire/abort';
import { Admission } from './admission';
import { type Outcome, type ServerCall, type ServerInfo, type Services, sessionOf } from './call';
import { ClientCancelled, type Conn, PER_REQUEST, namedIdentity } from './conn';
import { NOTIFICATION_HANDLERS } from './handlers';
import { Listens } from './listens';
import type { Provider, ToolHandle } from './provider';
import { askOnChannel } from './questions';
import { Rounds } from './rounds';
import { background } from './strategies/background';
import { direct } from './strategies/direct';
import { task, wantsTask } from './strategies/task';
import { hasHandler } from './strategies/work';
import { TaskJournal, type TaskRecords, stateKey } from './taskJournal';
import { Tasks, extensionRequired } from './tasks';

export type { Outcome, ServerInfo };

export interface ServerOptions {
  provider: Provider;
  settings: Settings;
  policy: Policy;
  serverInfo: ServerInfo;
  /** Where tasks and background calls are journalled so they outlive a restart (taskJournal.ts); none:
   *  they live in memory only. */
  stateDir?: string;
  /** The journal's file within stateDir (default tasks.jsonl: the daemon's). */
  journalFile?: string;
  /** A team's replica (docs/team.md): its tasks and background calls recorded in the store, the
   *  requestState key the replicas share, and its id; instead of the state directory's journal. */
  records?: { journal: TaskRecords; key: Buffer; replica: string };
  log?: (line: string) => void;
}

export class McpServer {
  /** Listen streams and legacy push channels: where list changes go. */
  readonly listens: Listens;
  /** The 2026-07-28 rounds, and the background calls a retry resumes. */
  readonly rounds: Rounds;
  /** Every task, both eras (tasks.ts; strategies/task.ts decides which calls become one). */
  readonly tasks: Tasks;
  /** What a call may use of the server, and no more. */
  readonly services: Services;
  /** Requests in flight per identity and in total (docs/security.md "Bounds"). */
  private readonly admission: Admission;
  /** Tasks and background calls in the state directory, so they outlive a restart. */
  private readonly journal?: TaskRecords;

  constructor(readonly opts: ServerOptions) {
    const { settings } = opts;
    this.listens = new Listens(opts.provider);
    const keepMs = () => settings.duration('proto.askTTL');
    const local = opts.records ? undefined : opts.stateDir;
    this.journal =
      opts.records?.journal ?? (local ? new TaskJournal(local, keepMs, opts.log, opts.journalFile) : undefined);
    this.rounds = new Rounds(
      settings,
      opts.records
        ? { recorder: opts.records.journal, key: opts.records.key, replica: opts.records.replica }
        : this.journal && local
          ? { recorder: this.journal, key: stateKey(local) }
          : undefined,
    );
    this.tasks = new Tasks(
      keepMs,
      () => settings.duration('proto.taskPollInterval'),
      () => ({
        perIdentity: settings.get<number>('limits.tasksPerIdentity'),
        total: settings.get<number>('limits.inflight'),
        held: settings.get<number>('limits.tasks'),
      }),
    );
    this.journal?.attach(this.tasks, this.rounds.background);
    this.admission = new Admission(() => ({
      perIdentity: settings.get<number>('limits.inflightPerIdentity'),
      total: settings.get<number>('limits.inflight'),
    }));
    this.services = {
      provider: opts.provider,
      settings,
      serverInfo: opts.serverInfo,
      policy: opts.policy,
      listen: (call, filter) => this.listens.open(call, filter),
      tasks: this.tasks,
    };
    opts.provider.onListChanged?.((kind, reaches) => this.listens.announce(kind, reaches));
    opts.provider.onLog?.((entry) => this.listens.log(entry));
  }

  close(): void {
    // What runs now is read back after a restart as running, then failed: never as cancelled here.
    this.journal?.close();
    this.listens.close();
    this.rounds.close();
    this.tasks.close();
  }

  /** The request, in a SERVER span while telemetry is on (docs/gateway.md "Telemetry"): its parent the
   *  trace context the client sent in `_meta`, if any. */
  handle(call: ServerCall): Promise<Outcome> {
    const tracer = tracing.tracer;
    if (!tracer) return this.pipeline(call);
    const span = startSpan(
      tracer,
      'server',
      {
        method: call.method,
        params: call.params,
        id: call.id,
        transport: call.conn.transport,
        sessionId: call.conn.sessionId,
      },
      traceContextOf(call.meta),
    );
    call.span = span;
    return this.pipeline(call).then((out) => {
      span.set({ 'mcp.protocol.version': out.rev });
      const r = out.response;
      endSpan(span, !r ? CANCELLED : 'error' in r ? r : { result: r.result });
      return out;
    });
  }

  /** The pipeline. Every step reads and fills the call; the first to throw answers the request. */
  private async pipeline(call: ServerCall): Promise<Outcome> {
    let release: (() => void) | undefined;
    try {
      const method = this.revision(call);
      // A shorter timeout the request asks for is read where it is applied (gateway/call/inFlight.ts); a bad one
      // is refused here, before anything runs (docs/gateway.md "Timeouts, in order of precedence").
      askedTimeoutMs(call.meta);
      this.identity(call);
      release = await this.admission.acquire(call.identity, call.request);
      this.caller(call);
      const params = this.params(call, method);
      if (call.method === 'tools/call') call.tool = await this.tool(call, params.name as string);
      return this.spell(call, await this.strategy(call, method, params));
    } catch (err) {
      if (call.request.aborted && call.request.reason instanceof ClientCancelled)
        return { response: undefined, rev: call.rev };
      return { response: errorResponse(call.id, toWireError(abortReason(err, call.request), call.rev)), rev: call.rev };
    } finally {
      release?.();
      // Work that outlives the request (a background call, a task) ends its identity itself.
      if (!call.detached) call.endIdentity();
    }
  }

  /** Revision: the one the request states (2026-07-28 `_meta`; an unknown one is -32022), else the
   *  transport's; the method must be answered in it (-32601). */
  private revision(call: ServerCall): MethodDescriptor {
    call.settle(revisionOf(isObject(call.params._meta) ? call.params._meta : undefined, call.rev));
    const d = methodOf(call.method);
    if (!d || !methodAnswered(call.method, call.rev) || !hasHandler(call.method)) throw methodNotFound(call.method);
    return d;
  }

  /** Identity (docs/protocol.md "Client identity"): a verified token's issuer and subject, whatever
   *  the request names; else the one it names in `_meta["dev.mcpx/session"]` — at most
   *  limits.identitiesPerConnection per connection —, else the request's own or its connection's, as its
   *  codec says. */
  private identity(call: ServerCall): void {
    if (call.conn.principal) {
      call.identity = principalIdentity(call.conn.principal);
      return;
    }
    const session = sessionOf(call);
    if (session === undefined) {
      call.identity = call.codec.identity(call.conn.defaultIdentity, () => `${PER_REQUEST}${randomUUID()}`);
      return;
    }
    const identity = namedIdentity(session);
    const named = call.conn.identities;
    if (!named.has(identity)) {
      const max = this.opts.settings.get<number>('limits.identitiesPerConnection');
      if (named.size >= max)
        throw invalidParams(
          `Invalid params: this connection has already named ${max} identities in _meta["${META.session}"] (limits.identitiesPerConnection)`,
        );
      named.add(identity);
    }
    call.identity = identity;
  }

  /** Caller: capabilities, client info and log level where the codec keeps them (checked); where the
   *  request's channel can carry a question and the era asks that way, questions go on it. */
  private caller(call: ServerCall): void {
    call.enter();
    const channel = call.codec.questionChannel(call.relay.send ? call : undefined);
    if (channel) {
      call.ask = (method, params, signal) =>
        askOnChannel(call, { rev: call.rev, method, params, signal, count: call.asked++ });
      call.channel = channel;
    }
  }

  /** Params, parsed once by the method's descriptor (-32602 naming the path); a method of the tasks
   *  extension first needs the extension declared (-32021, tasks extension "Error Handling"). */
  private params(call: ServerCall, d: MethodDescriptor): JsonObject {
    if (d.needsTasksExtension && !call.codec.tasks.declared(call.clientCapabilities))
      throw extensionRequired(
        `${call.method} needs the io.modelcontextprotocol/tasks extension declared on the request`,
      );
    return d.params ? readParams(d.params, call.req.params) : call.params;
  }

  /** Tool: looked up once per call; its handle carries its task support, input schema and call. */
  private async tool(call: ServerCall, name: string): Promise<ToolHandle> {
    const resolve = this.opts.provider.resolveTool;
    if (!resolve) throw methodNotFound(call.method);
    const found = resolve.call(this.opts.provider, name, call);
    const handle = found instanceof Promise ? await found : found;
    if (!handle) throw invalidParams(`no tool named ${JSON.stringify(name)}`);
    return handle;
  }

  /** Strategy: the 2026-07-28 background round for a method that may answer input_required, to a client
   *  whose questions travel that way; a task where the client directs one; else direct. */
  private strategy(call: ServerCall, d: MethodDescriptor, params: JsonObject): Promise<JsonObject> {
    const how = call.codec.strategy(d.inputRequired === true, () => wantsTask(call, params));
    return STRATEGIES[how](call, params, this.rounds);
  }

  /** Spell: the result for the request's revision — initialize's is the one it negotiated — by its codec. */
  private spell(call: ServerCall, result: JsonObject): Outcome {
    const initialize = call.method === 'initialize';
    if (initialize && call.conn.revision) call.settle(call.conn.revision);
    const spelled = call.codec.spell(call.method, result, call.rev, () => ({
      serverInfo: { ...this.opts.serverInfo },
      listMaxAgeMs: this.opts.settings.duration('protoMessages.listMaxAge'),
      readMaxAgeMs: this.opts.settings.duration('protoMessages.readMaxAge'),
      // A profile's lists are its endpoint's, not every caller's (docs/gateway.md "Profiles").
      ...(call.profile !== undefined ? { scope: 'private' as const } : {}),
    }));
    return { response: resultResponse(call.id, spelled), rev: call.rev, session: call.codec.opensSession(call.method) };
  }

  /** A notification from the client: acted on where NOTIFICATION_HANDLERS has it, else ignored
   *  (JSON-RPC: a notification is never answered). */
  notify(conn: Conn, n: Notification): void {
    if (Object.hasOwn(NOTIFICATION_HANDLERS, n.method))
      NOTIFICATION_HANDLERS[n.method as keyof typeof NOTIFICATION_HANDLERS]?.(conn, n.params);
  }
}

/** The strategies by the name a request's codec gives (protocol/eras `strategy`). */
const STRATEGIES: Record<Strategy, (call: ServerCall, params: JsonObject, rounds: Rounds) => Promise<JsonObject>> = {
  background,
  task: (call, params) => Promise.resolve(task(call, params)),
  direct: (call, params) => direct(call, params),
};

/** A request the client cancelled is not answered (its span's error.type says so). */
const CANCELLED = { thrown: { name: 'cancelled', message: 'cancelled by the client' } };

/** A request aborted while running surfaces as the abort's own error, not what the handler made of it. */
function abortReason(err: unknown, request: Abort): unknown {
  if (isTypedError(err) || !request.aborted) return err;
  return new ProtocolError(
    CODES.InternalError,
    `Request cancelled: ${(request.reason as Error)?.message ?? 'aborted'}`,
  );
}
