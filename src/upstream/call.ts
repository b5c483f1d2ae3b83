// One upstream call over a connection (upstream/connection.ts): its clock (pool.callTimeout, paused while
// the upstream's questions are answered, restarted by progress, bounded by pool.maxCallTime), its
// cancellation (the caller's signal or the clock, told to the upstream the era's way), its input_required
// rounds (2026-07-28 basic/patterns/mrtr: the questions relayed to whoever answers the call), a task the
// upstream makes of it (driven by upstream/tasks.ts), the result checked before it is relayed, and a
// whole list read page by page.
import { deadlines } from '../kit/deadlines';
import { CODES, ProtocolError } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { resultProblem } from '../protocol/methods';
import { holdsLazy, withoutLazy } from '../wire/lazy';
import { type LogLevel, atLeastLevel } from '../protocol/meta';
import { endSpan, metaOf, startSpan } from '../telemetry/mcp';
import { type Span, traceContextOf, tracing } from '../telemetry/trace';
import { Abort, type Aborts, listen } from '../wire/abort';
import { type Answerer, type Flight, type MetaOptions, type UpstreamConnection, UpstreamError } from './connection';
import { HttpUpstream } from './http';
import { type TaskOptions, driveTask, driverPort, needsExtension } from './tasks';

export interface RequestOptions extends MetaOptions {
  /** The caller's abort: an AbortSignal, or an Abort (wire/abort.ts) that builds none. */
  signal?: Aborts;
  timeoutMs?: number;
  /** What set `timeoutMs`, for the error that names it (pool.callTimeout unless the call asked for less). */
  timeoutSource?: string;
  /** Bound on input_required rounds (proto.askRounds). */
  askRounds?: number;
  /** Progress extends the timeout, but never past this from the start (pool.maxCallTime). */
  maxTotalMs?: number;
  /** Who answers a 2026-07-28 upstream's input_required for this request. Such a question belongs to this
   *  request exactly (it is its result), so it needs no attribution; defaults to hooks.onRequest. */
  onQuestion?: Answerer;
  /** Who this request is for: notifications that arrive on its own response stream (Streamable HTTP)
   *  reach the connection's hook with it (docs/protocol.md "Log messages relayed"). */
  related?: object;
  /** A tools/call that may be task-augmented upstream (upstream/tasks.ts). */
  task?: TaskOptions;
  /** A request of a call already in flight (driving its task): not counted again, so the call's questions
   *  are still attributed to it (gateway/call/inFlight.ts owner()). */
  partOfCall?: boolean;
  /** This call's CLIENT span while telemetry is on (set by `call` itself). */
  span?: Span;
}

/** A call's clock: `extend()` restarts it (progress from the upstream). */
interface CallClock {
  clear(): void;
  extend(): void;
}

/** Send one request and return its result; a JSON-RPC error becomes an UpstreamError. While telemetry is
 *  on, in a CLIENT span: its parent the trace context in `o.meta` (the client's call's span), and the
 *  upstream told this span as the request's parent in `_meta` (docs/gateway.md "Telemetry"). */
export function call(
  conn: UpstreamConnection,
  method: string,
  params: JsonObject = {},
  o: RequestOptions = {},
): Promise<JsonObject> {
  const tracer = tracing.tracer;
  if (!tracer) return exchange(conn, method, params, o);
  const span = startSpan(
    tracer,
    'client',
    { method, params, transport: conn.transport.kind === 'stdio' ? 'stdio' : 'http' },
    traceContextOf(o.meta),
  );
  span.set({ 'mcp.protocol.version': conn.negotiated.revision, 'mcpx.upstream.name': conn.name });
  return exchange(conn, method, params, { ...o, meta: { ...o.meta, ...metaOf(span) }, span }).then(
    (result) => {
      endSpan(span, { result });
      return result;
    },
    (e: unknown) => {
      endSpan(span, { thrown: e });
      throw e;
    },
  );
}

async function exchange(
  conn: UpstreamConnection,
  method: string,
  params: JsonObject,
  o: RequestOptions,
): Promise<JsonObject> {
  conn.assertOpen();
  // One controller per call, aborted by the caller's signal or the clock, whichever comes first (one
  // listener and one timer: AbortSignal.any was the costliest allocation of a call). The request in
  // flight at that moment gets the era's cancellation notice.
  const signal = new Abort();
  const flight: Flight = { signal };
  let timedOut = false;
  const abort = (why: unknown) => {
    if (signal.aborted) return;
    signal.abort(why);
    conn.cancelNotice(flight, timedOut ? 'timed out' : 'cancelled by the caller');
  };
  const onCaller = () => abort(o.signal!.reason);
  let offCaller: (() => void) | undefined;
  if (o.signal?.aborted) onCaller();
  else if (o.signal) offCaller = listen(o.signal, onCaller);
  const clock = o.timeoutMs
    ? callClock(conn, o.timeoutMs, o.maxTotalMs ?? Infinity, () => {
        timedOut = true;
        abort(new Error('timeout'));
      })
    : undefined;
  const token = o.meta?.progressToken;
  if (clock && token !== undefined) conn.progressClocks.set(token, clock);
  if (!o.partOfCall) conn.inflight++;
  try {
    if (o.logLevel) await ensureLevel(conn, o.logLevel);
    const tasks = conn.codec.tasks;
    const t = method === 'tools/call' ? o.task : undefined;
    const declared = (): RequestOptions => withTasks(conn, o);
    let augmented = t !== undefined && tasks.augmentFirst(conn.negotiated.capabilities, t.support, t.wanted);
    let p = conn.withMeta(augmented ? tasks.augment(params) : params, augmented ? declared() : o);
    for (let round = 0; ; round++) {
      flight.id = conn.mintId();
      const id = flight.id;
      o.span?.set({ 'jsonrpc.request.id': String(id) });
      if (o.onQuestion && conn.transport.kind === 'http') conn.streamAskers.set(id, o.onQuestion);
      if (o.related && conn.transport.kind === 'http') conn.streamRelated.set(id, o.related);
      let result: JsonObject;
      try {
        result = await conn.once(method, p, flight);
      } catch (e) {
        // A "required" tool of a 2026-07-28 upstream, called for a client that may not declare the
        // extension: declared now, and the task driven here (docs/protocol.md "Tasks": upstream).
        if (!(t?.mayDrive && !augmented && e instanceof UpstreamError && needsExtension(e.code, e.data))) throw e;
        augmented = true;
        p = conn.withMeta(params, declared());
        continue;
      } finally {
        conn.streamAskers.delete(id);
        conn.streamRelated.delete(id);
      }
      flight.id = undefined; // answered: a cancellation while the next round is prepared names no request
      const type = result.resultType;
      const created = augmented ? tasks.createdOf(result) : undefined;
      if (created) {
        t?.onCreated?.();
        const driven = await drive(conn, created, {
          o: declared(),
          signal: signal.signal,
          alive: () => clock?.extend(),
        });
        return checked(conn, method, driven);
      }
      if (type === undefined || type === 'complete') return checked(conn, method, result);
      p = await nextRound(conn, { method, o, result, sent: p, round, signal: signal.signal });
    }
  } catch (e) {
    if (signal.aborted && !(e instanceof UpstreamError)) {
      // The caller's reason, where it is an error a client may be told (the call asked too much).
      const reason = o.signal?.aborted ? o.signal.reason : undefined;
      if (!timedOut && reason instanceof ProtocolError) throw reason;
      const why = timedOut
        ? `did not answer ${method} within ${o.timeoutMs} ms (${o.timeoutSource ?? 'pool.callTimeout'})`
        : 'cancelled';
      throw new ProtocolError(CODES.InternalError, `upstream ${conn.name} ${why}`);
    }
    throw e;
  } finally {
    clock?.clear();
    offCaller?.();
    if (token !== undefined) conn.progressClocks.delete(token);
    if (!o.partOfCall) conn.inflight--;
    // An HTTP session's GET stream (what the server sends unasked; where the era has one) opens after the
    // first request is answered, not at connect: a reconnection of a polled POST stream is then the only
    // GET in flight.
    conn.codec.client.answered(() => conn.transport instanceof HttpUpstream && conn.transport.openStream());
  }
}

/** A task the upstream made of a call, driven here to its end (tasks.ts): its requests carry what the call
 *  declared, and are children of its span where there is one. */
function drive(
  conn: UpstreamConnection,
  created: JsonObject,
  d: { o: RequestOptions; signal: AbortSignal; alive: () => void },
): Promise<JsonObject> {
  const { o } = d;
  const port = driverPort(conn, {
    answer: o.onQuestion ?? conn.hooks.onRequest,
    alive: d.alive,
    signal: d.signal,
    maxQuestions: o.askRounds ?? 8,
    request: (m, ps) =>
      call(conn, m, ps, {
        ...o,
        task: undefined,
        signal: undefined,
        meta: o.span && metaOf(o.span),
        span: undefined,
        partOfCall: true,
        timeoutMs: m === 'tasks/result' ? undefined : o.timeoutMs,
      }),
  });
  return driveTask(port, created, d.signal);
}

/** The params of the next round of an input_required answer (2026-07-28 basic/patterns/mrtr): its
 *  questions answered, its requestState carried back. A resultType mcpx did not ask for is not guessed at
 *  (docs/protocol.md "resultType from a 2026-07-28 upstream"); rounds are bounded by proto.askRounds. */
async function nextRound(
  conn: UpstreamConnection,
  r: { method: string; o: RequestOptions; result: JsonObject; sent: JsonObject; round: number; signal: AbortSignal },
): Promise<JsonObject> {
  const { method, o, result } = r;
  if (result.resultType !== 'input_required')
    throw new ProtocolError(
      CODES.InternalError,
      `upstream ${conn.name} answered ${method} with an unknown resultType ${JSON.stringify(result.resultType)}`,
    );
  if (r.round + 1 >= (o.askRounds ?? 8))
    throw new ProtocolError(
      CODES.InternalError,
      `upstream ${conn.name} was still asking for input after ${o.askRounds ?? 8} rounds (proto.askRounds)`,
    );
  const p: JsonObject = {
    ...r.sent,
    inputResponses: await inputResponses(conn, result, r.signal, o.onQuestion),
    ...(typeof result.requestState === 'string' ? { requestState: result.requestState } : {}),
  };
  if (typeof result.requestState !== 'string') delete p.requestState;
  return p;
}

/** A request declaring the tasks extension besides what it declares already (where the era declares it
 *  per request; else as it is). */
function withTasks(conn: UpstreamConnection, o: RequestOptions): RequestOptions {
  const caps = conn.codec.tasks.declare(o.clientCapabilities ?? conn.defaultCapabilities);
  return caps === (o.clientCapabilities ?? conn.defaultCapabilities) ? o : { ...o, clientCapabilities: caps };
}

/** Calls `onTimeout` after `ms` of time not spent on questions. `extend()` restarts the clock (progress
 *  from the upstream), never past `maxTotalMs` from the start. On the kit's deadline wheel (one timer for
 *  every call): it fires never before its time, and at most one slot (20 ms) after it. */
function callClock(conn: UpstreamConnection, ms: number, maxTotalMs: number, onTimeout: () => void): CallClock {
  const first = Date.now();
  let start = first;
  let pausedAtStart = conn.paused();
  let deadline: { cancel(): void };
  const check = () => {
    const now = Date.now();
    const elapsed = now - start - (conn.paused() - pausedAtStart);
    if ((elapsed >= ms && !conn.asking) || now - first >= maxTotalMs) return onTimeout();
    deadline = deadlines.after(Math.max(Math.min(ms - elapsed, maxTotalMs - (now - first)), 50), check);
  };
  deadline = deadlines.after(ms, check);
  return {
    clear: () => deadline.cancel(),
    extend: () => {
      start = Date.now();
      pausedAtStart = conn.paused();
    },
  };
}

/** 2026-07-28 input requests, answered by the same function as a legacy wire request. */
async function inputResponses(
  conn: UpstreamConnection,
  result: JsonObject,
  signal: AbortSignal,
  answer: Answerer = conn.hooks.onRequest,
): Promise<JsonObject> {
  const reqs = isObject(result.inputRequests) ? result.inputRequests : {};
  const out: JsonObject = {};
  const ctl = new AbortController();
  const s = AbortSignal.any([signal, ctl.signal]);
  conn.questionStarted();
  try {
    // Asked together, so a client asked in turn sees every question of the round at once.
    await Promise.all(
      Object.entries(reqs).map(async ([key, r]) => {
        if (!isObject(r) || typeof r.method !== 'string') return;
        out[key] = await answer(r.method, isObject(r.params) ? r.params : {}, s, key);
      }),
    );
  } finally {
    conn.questionEnded();
  }
  return out;
}

/** The level an upstream logs at, where the era sets it by logging/setLevel: lowered when a call wants
 *  more, never raised again (each host still gets only what it asked for). */
async function ensureLevel(conn: UpstreamConnection, level: LogLevel): Promise<void> {
  if (!conn.codec.client.setsLevel(conn.negotiated.capabilities)) return;
  if (conn.level && atLeastLevel(level, conn.level)) return;
  conn.level = level;
  await call(conn, 'logging/setLevel', { level }).catch((e: Error) =>
    conn.hooks.log(`[${conn.name}] logging/setLevel ${level}: ${e.message}`),
  );
}

/** A result is relayed only in the shape every revision requires of it; an invalid one is an error
 *  naming the upstream, never passed on (docs/security.md "Upstream results"). */
function checked(conn: UpstreamConnection, method: string, result: JsonObject): JsonObject {
  // The check written once passes nearly every result as it is; for the schema, long strings left
  // undecoded (wire/lazy.ts) are checked as what they are, strings, without decoding them.
  const problem = resultProblem(method, result, () => (holdsLazy(result) ? withoutLazy(result, () => '') : result));
  if (problem === undefined) return result;
  throw new ProtocolError(
    CODES.InternalError,
    `upstream ${conn.name} returned an invalid ${method} result: ${problem}`,
  );
}

/** A whole list, page by page, to where the era reads its end (docs/protocol.md "Pagination"). */
export async function listAll(
  conn: UpstreamConnection,
  method: string,
  key: string,
  o: RequestOptions = {},
): Promise<JsonObject[]> {
  const items: JsonObject[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const r = await call(conn, method, cursor === undefined ? {} : { cursor }, o);
    if (Array.isArray(r[key]))
      items.push(...(method === 'tools/list' ? conn.screenTools(r[key] as JsonObject[]) : (r[key] as JsonObject[])));
    const next = r.nextCursor;
    if (conn.codec.listEnds(next)) return items;
    cursor = next as string;
  }
  throw new ProtocolError(CODES.InternalError, `upstream ${conn.name}: ${method} did not end after 1000 pages`);
}
