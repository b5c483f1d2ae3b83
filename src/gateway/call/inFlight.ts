// Upstream requests made on behalf of a client's call, and the calls in flight per (server, scope) they
// register: what arrives on a connection without naming a request — a legacy upstream's question, a log
// message — is matched to the calls there (docs/questions.md "Correlation, and the race that remains").
// Progress comes back under a token of mcpx's own, trace context goes upstream unchanged, and the
// upstream logs at the caller's level.
import { Abort, listen } from '../../wire/abort';
import type { Settings } from '../../config/settings';
import { CODES, ProtocolError } from '../../protocol/errors';
import { type JsonObject, isObject } from '../../protocol/jsonrpc';
import { type LogLevel, askedTimeoutMs, atLeastLevel, isLogLevel } from '../../protocol/meta';
import type { ResultOf } from '../../protocol/methods';
import { callerDeclares } from '../../protocol/questions';
import type { CallContext } from '../../server/provider';
import { type Pool, entryKey } from '../../upstream/pool';
import { extensionSet, narrowed } from './capabilities';
import { RunContext } from '../exec/runs';
import type { Asked } from '../inbox/questions';
import { ProgressRelay, type Report } from './progress';
import type { ClientSignIns } from './signIn';
import { SignInRequired } from '../../upstream/auth/errors';

/** Trace context passed upstream unchanged (docs/gateway.md "Pass-through"). */
const TRACE_KEYS = ['traceparent', 'tracestate', 'baggage'];

export interface CallDeps {
  pool: Pool;
  settings: Settings;
  passthrough: readonly string[];
  /** A question on its way to its answerer (routeQuestion, with the gateway's answerers). */
  ask(q: Asked): Promise<JsonObject>;
  /** Signing in through the calling client, where nobody here can (signInClient.ts). */
  signIns?: ClientSignIns;
  /** mcpx's own skills (catalogue/localSkills.ts): the requests of a call of theirs are answered here,
   *  in the process, as their server. */
  own?: { readonly name: string; request(method: string, params: JsonObject): Promise<JsonObject> };
}

/** One upstream request on behalf of a call. */
export interface CallRequest<M extends string = string> {
  server: string;
  ctx: CallContext;
  method: M;
  params: JsonObject;
  /** A shorter timeout than pool.callTimeout (mcpx_call's timeoutSec, a script's). */
  timeoutMs?: number;
  /** A tools/call: the tool's execution.taskSupport as its server listed it, where it did. */
  taskSupport?: string;
}

/** A listed tool's execution.taskSupport, where it has one. */
export function taskSupportOf(tool: JsonObject | undefined): string | undefined {
  const ex = tool?.execution;
  return isObject(ex) && typeof ex.taskSupport === 'string' ? ex.taskSupport : undefined;
}

/** A call in flight on a connection, and the signal of its end (however it ends). */
interface InFlight {
  ctx: CallContext;
  /** Aborted when the call ends; its AbortSignal is built only if a question asks for it. */
  ended: Abort;
  /** The script run it is a request of (mcpx_exec; docs/exec.md "Questions"). */
  run?: RunContext['run'];
  /** The upstream request's own abort: the caller's, or mcpx's when the upstream asks too much. */
  stop: Abort;
  /** Questions the upstream put to this call so far (its legacy wire requests). */
  asked: number;
}

export class Calls {
  private readonly inFlight = new Map<string, Set<InFlight>>();
  private readonly progress = new ProgressRelay();

  constructor(private readonly d: CallDeps) {}

  /** Run an upstream request on behalf of a call, registered as in flight on its (server, scope). */
  async request<M extends string>(r: CallRequest<M>): Promise<ResultOf<M>> {
    const { server, ctx, method, params, taskSupport } = r;
    const { pool, settings, passthrough } = this.d;
    if (server === this.d.own?.name) return (await this.d.own.request(method, params)) as ResultOf<M>;
    const def = pool.def(server);
    // A pass-through server sees the client's extensions (docs/protocol.md "Extensions across the gateway").
    const ext = passthrough.includes(server) ? extensionSet(ctx) : undefined;
    const scope = pool.scopeOf(def, ctx.identity, ext);
    const key = entryKey(server, scope);
    let set = this.inFlight.get(key);
    if (!set) this.inFlight.set(key, (set = new Set()));
    const call: InFlight = {
      ctx,
      ended: new Abort(),
      run: ctx instanceof RunContext ? ctx.run : undefined,
      stop: new Abort(),
      asked: 0,
    };
    set.add(call);
    // The upstream request ends with its caller, or when mcpx ends it (asked()).
    const caller = ctx.abort ?? ctx.signal;
    let offCaller: (() => void) | undefined;
    if (caller.aborted) call.stop.abort(caller.reason);
    else offCaller = listen(caller, () => call.stop.abort(caller.reason));
    // The host's progressToken is replaced upstream by one of mcpx's own, unique on that connection.
    const meta = forwardMeta(ctx);
    const token = this.progress.track(ctx, key);
    if (token) meta.progressToken = token;
    // Upstream logs at the host's level, or the gateway's own if that is more verbose.
    const own = settings.get<string>('log.level');
    const logLevel: LogLevel | undefined =
      ctx.logLevel && isLogLevel(own) && atLeastLevel(ctx.logLevel, own) ? own : ctx.logLevel;
    const send = () =>
      pool.request(server, ctx.identity, method, params, {
        signal: call.stop,
        // What the upstream sends on this request's own stream is this call's (log messages).
        related: call,
        meta,
        logLevel,
        ext,
        // A 2026-07-28 upstream's question is the result of this request: its call is known.
        onQuestion: (m, p, signal, inputKey) => {
          // A legacy wire request on this call's own stream counts against it; a 2026-07-28 round's
          // questions (they have a key) are bounded by the rounds.
          if (inputKey === undefined && !this.asked(call, server)) return Promise.reject(call.stop.reason);
          return this.d.ask({
            server,
            method: m,
            params: p,
            signal,
            owner: ctx,
            unowned: 'no call in flight',
            inputKey,
            conn: key,
            ended: call.ended.signal,
          });
        },
        // Pass-through: the client's own declarations, narrowed (docs/gateway.md "Pass-through").
        // Through the gateway's tools mcpx is the client, and declares what it can answer.
        clientCapabilities: passthrough.includes(server) ? narrowed(ctx) : undefined,
        // The shorter of a gateway tool's own (mcpx_call's timeoutSec) and the request's
        // `_meta["dev.mcpx/timeoutMs"]`; the pool clamps it to pool.callTimeout (docs/gateway.md "Timeouts, in order of precedence").
        requestedTimeoutMs: shorter(r.timeoutMs, askedTimeoutMs(ctx.meta)),
        // A client that would take a task gets one upstream too; a legacy client's call to a tool that
        // runs only as a task is driven here; a 2026-07-28 client without the extension gets the
        // upstream's -32021 (docs/protocol.md "Tasks": upstream).
        task:
          method === 'tools/call'
            ? {
                support: taskSupport,
                wanted: ctx.wantsTask === true,
                mayDrive: ctx.mayDriveTask === true,
                onCreated: () => ctx.becomeTask?.(),
              }
            : undefined,
      });
    try {
      return await this.signedIn(server, ctx, send);
    } finally {
      offCaller?.();
      if (token) this.progress.release(token);
      set.delete(call);
      if (set.size === 0) this.inFlight.delete(key);
      // A question of this call still waiting anywhere is withdrawn (docs/security.md "Questions belong to
      // their owner").
      call.ended.abort(new Error('the call ended'));
    }
  }

  /** `fn`, an upstream request for `ctx`; where it stops because nobody here can sign in, the calling
   *  client may (docs/gateway.md "Signing in through the calling client"), and once it has, `fn` runs
   *  again. */
  async signedIn<T>(server: string, ctx: CallContext, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (!(e instanceof SignInRequired) || !this.d.signIns) throw e;
      await this.d.signIns.through(server, ctx, e);
      return fn();
    }
  }

  /** End every call in flight on `server`, whatever its scope, with `why` (a server removed from the
   *  configuration): the upstream request is cancelled and the caller gets `why`. */
  endServer(server: string, why: ProtocolError): void {
    for (const [key, set] of this.inFlight)
      if (key.startsWith(entryKey(server, ''))) for (const call of set) call.stop.abort(why);
  }

  /** One more question from the upstream to `call`. Past proto.askRounds the call is failed, naming the
   *  setting, and so cancelled upstream: an upstream that asks again after every answer (or after every
   *  refusal) would hold the call, and whoever answers, until pool.maxCallTime (docs/security.md "Bounds"). */
  private asked(call: InFlight, server: string): boolean {
    const max = this.d.settings.get<number>('proto.askRounds');
    if (++call.asked <= max) return true;
    call.stop.abort(
      new ProtocolError(
        CODES.InternalError,
        `upstream ${server} asked more than ${max} questions in one call (proto.askRounds); the call was ended`,
      ),
    );
    return false;
  }

  /** Whose call a question arriving on (server, scope) without naming a request belongs to: attributed
   *  only when every request in flight there is a call of one client (one identity) — then to one of its
   *  calls that declared the capability (docs/questions.md "Correlation, and the race that remains").
   *  An mcpx_exec run counts as one call: its requests together, never beside another run or call, and
   *  nothing once the run has ended (docs/exec.md "Questions").
   *  `ended` ends when every call it could belong to has ended: it is withdrawn then, owned or not. */
  owner(
    server: string,
    scope: string,
    method: string,
    params: JsonObject,
  ): { owner?: CallContext; unowned: string; ended?: AbortSignal } {
    const calls = this.inFlight.get(entryKey(server, scope));
    if (!calls || calls.size === 0) return { unowned: 'no call in flight' };
    const all = [...calls];
    const ended = all.length === 1 ? all[0]!.ended.signal : allEnded(all.map((c) => c.ended.signal));
    if (this.d.pool.inflightOn(server, scope) !== calls.size)
      return { unowned: calls.size > 1 ? 'several calls share the connection' : 'no call in flight', ended };
    // A script run is one caller: its requests together, and nobody else's beside them (docs/exec.md
    // "Questions"). A run that has ended owns nothing.
    if (all.some((c) => c.run?.ended)) return { unowned: 'a call of a script run that has ended', ended };
    const run = all[0]!.run;
    if (all.some((c) => c.run !== run))
      return { unowned: 'a script run shares the connection with other calls', ended };
    const identity = all[0]!.ctx.identity;
    if (all.some((c) => c.ctx.identity !== identity))
      return { unowned: 'calls of several clients share the connection', ended };
    const owner = all.find((c) => callerDeclares(c.ctx, method, params)) ?? all[0]!;
    // Past the call's bound the question is nobody's, and withdrawn before anyone is asked.
    if (!this.asked(owner, server))
      return { unowned: 'its call asked too many questions (proto.askRounds)', ended: owner.stop.signal };
    return { owner: owner.ctx, unowned: 'no call in flight', ended };
  }

  /** An upstream's log message goes to the call it relates to, and to no other (docs/protocol.md "Log
   *  messages relayed"): the call whose request stream it arrived on (`related`), the call whose progress
   *  token it carries, or the one call in flight on the connection (as a question is attributed); its
   *  host hears it at the level it asked for (CallContext.log filters). Returns whether a call took it:
   *  one that relates to none is not any call's. */
  log(server: string, scope: string, p: JsonObject, related?: object): boolean {
    if (!isLogLevel(p.level)) return false;
    const key = entryKey(server, scope);
    const calls = this.inFlight.get(key);
    const token = isObject(p._meta) ? p._meta.progressToken : undefined;
    let ctx: CallContext | undefined;
    if (related !== undefined) ctx = calls?.has(related as InFlight) ? (related as InFlight).ctx : undefined;
    else if (token !== undefined) ctx = this.progress.callOf(token, key);
    else if (calls?.size === 1 && this.d.pool.inflightOn(server, scope) === 1) ctx = [...calls][0]!.ctx;
    if (!ctx) return false;
    ctx.log(p.level, p.data, typeof p.logger === 'string' ? p.logger : undefined);
    return true;
  }

  /** An upstream's notifications/progress, back to the call on (server, scope) that asked under mcpx's
   *  token; `sent` hears each report relayed (nothing for a token no call there holds). */
  relayProgress(server: string, scope: string, p: JsonObject, sent: (report: Report) => void): void {
    this.progress.relay(p, entryKey(server, scope), sent);
  }
}

const shorter = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b);

/** A signal that aborts once every one of `signals` has. */
function allEnded(signals: AbortSignal[]): AbortSignal {
  const ctl = new AbortController();
  let left = signals.length;
  const one = () => --left === 0 && ctl.abort(new Error('every call it could belong to ended'));
  for (const s of signals) {
    if (s.aborted) one();
    else s.addEventListener('abort', one, { once: true });
  }
  return ctl.signal;
}

/** `_meta` carried upstream: trace context, unchanged — but while telemetry is on the parent is the
 *  call's own span, which continues the client's trace (docs/gateway.md "Telemetry"). */
function forwardMeta(ctx: CallContext): JsonObject {
  const meta: JsonObject = {};
  for (const k of TRACE_KEYS) if (k in ctx.meta) meta[k] = ctx.meta[k];
  return ctx.trace ? Object.assign(meta, ctx.trace) : meta;
}
