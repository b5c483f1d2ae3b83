// 2026-07-28 multi round-trip requests (MRTR): a question a modern client must answer comes back as an
// `input_required` result; the call behind it runs on as a background call, and the client's retry
// carrying `inputResponses` and the signed `requestState` resumes it (2026-07-28 basic/patterns/mrtr; docs/questions.md "Who answers").
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { CODES, ProtocolError, invalidParams } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { Abort } from '../wire/abort';
import { PER_REQUEST } from './conn';
import { Counts } from './counts';

interface Outstanding {
  method: string;
  params: JsonObject;
  resolve(r: JsonObject): void;
  reject(e: Error): void;
}

/** What a round ends in: the call's outcome, or questions for the client. */
type Event = { kind: 'done'; result?: JsonObject; error?: unknown } | { kind: 'ask' } | { kind: 'task' };

/** One upstream call running on behind a modern client's requests: the gateway's task store holds it,
 *  collectable by id. */
export class BackgroundCall {
  readonly id = randomUUID();
  readonly abort = new Abort();
  readonly startedAt = Date.now();
  /** Rounds answered with input_required so far: counted here, never read from a requestState. */
  rounds = 0;
  /** The nonce of the one requestState that may resume this call now: the latest issued, not yet
   *  presented. A retry claims it; a new round issues the next (docs/security.md "requestState"). */
  nonce?: string;
  private next = 0;
  private readonly outstanding = new Map<string, Outstanding>();
  /** inputResponses that arrived before their question, matched by key when it is asked. */
  private readonly held = new Map<string, JsonObject>();
  /** Keys already given out in this call: a question asked again (its answer refused) gets a new one. */
  private readonly used = new Set<string>();
  private outcome?: { result?: JsonObject; error?: unknown };
  /** Whoever waits for the next settling: the round in progress, and the first request's clean-up. */
  private waiters = new Set<(e: Event) => void>();
  /** Waiters that a 'task' event ends. */
  private readonly windowed = new WeakSet<(e: Event) => void>();
  finishedAt?: number;
  /** Requests (rounds) waiting on it now, and when the last one stopped waiting: a call that asked is
   *  abandoned only after proto.askTTL with none waiting. */
  attached = 0;
  detachedAt = Date.now();
  /** The latest progress reported on it (the editor's Tasks view shows it). */
  progress?: { progress: number; total?: number };
  /** Told whenever a question opens or closes and when the call finishes (a task's status follows it). */
  onChange?: () => void;

  constructor(
    readonly method: string,
    /** What it is, for a person: the tool, prompt or resource it names. */
    readonly label = method,
    /** Whose call it is (CallContext.identity): the store's bound per identity counts it there. */
    readonly identity = '',
  ) {}

  /** Where it stands, for the editor's Tasks view. */
  get status(): 'waiting for input' | 'running' | 'completed' | 'failed' {
    if (this.outcome) return this.outcome.error === undefined ? 'completed' : 'failed';
    return this.outstanding.size ? 'waiting for input' : 'running';
  }

  /** The finished call's result, or its error's message. */
  get outcomeForShow(): JsonObject | string | undefined {
    if (!this.outcome) return undefined;
    return (
      this.outcome.result ??
      (this.outcome.error instanceof Error ? this.outcome.error.message : String(this.outcome.error))
    );
  }

  /** The handler's question: answered by a later retry (or a held response). */
  ask(method: string, params: JsonObject, signal: AbortSignal, preferred?: string): Promise<JsonObject> {
    // The upstream's own key where it has one and it is free (docs/protocol.md "inputRequests keys"); else one of ours.
    const key =
      preferred && !this.outstanding.has(preferred) && !this.used.has(preferred)
        ? preferred
        : `${method.split('/')[0]}-${++this.next}`;
    this.used.add(key);
    const held = this.held.get(key);
    if (held) {
      this.held.delete(key);
      return Promise.resolve(held);
    }
    return new Promise<JsonObject>((resolve, reject) => {
      const onAbort = () => {
        this.outstanding.delete(key);
        this.onChange?.();
        reject(signal.reason instanceof Error ? signal.reason : new Error('withdrawn'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.outstanding.set(key, {
        method,
        params,
        resolve: (r) => (signal.removeEventListener('abort', onAbort), resolve(r)),
        reject: (e) => (signal.removeEventListener('abort', onAbort), reject(e)),
      });
      this.wake({ kind: 'ask' });
      this.onChange?.();
    });
  }

  run(work: Promise<JsonObject>): void {
    work.then(
      (result) => this.finish({ result }),
      (error: unknown) => this.finish({ error }),
    );
  }

  private finish(o: { result?: JsonObject; error?: unknown }): void {
    this.outcome = o;
    this.finishedAt = Date.now();
    for (const q of this.outstanding.values()) q.reject(new Error('the call ended'));
    this.outstanding.clear();
    this.wake({ kind: 'done', ...o });
    this.onChange?.();
  }

  /** Its upstream made it a task: whoever waits on its window stops waiting (it becomes a task now). */
  becomeTask(): void {
    if (!this.outcome) this.wake({ kind: 'task' });
  }

  /** The finished call's outcome; undefined while it runs. */
  get finished(): { result?: JsonObject; error?: unknown } | undefined {
    return this.outcome;
  }

  /** Questions open now. */
  get asking(): number {
    return this.outstanding.size;
  }

  private wake(e: Event): void {
    const waiters = this.waiters;
    this.waiters = new Set();
    for (const w of waiters) {
      // Becoming a task ends only a wait that has a window to end (rounds.ts TaskWindow).
      if (e.kind === 'task' && !this.windowed.has(w)) this.waiters.add(w);
      else w(e);
    }
  }

  /** Deliver a retry's inputResponses: answered keys leave; unknown keys are held (they may match a
   *  question not asked yet) — keys that never match are ignored. A task's tasks/update holds nothing:
   *  a key not outstanding is ignored at once (tasks extension "Task Update Requests"). */
  deliver(responses: JsonObject, holdUnknown = true): number {
    let delivered = 0;
    for (const [key, value] of Object.entries(responses)) {
      if (!isObject(value)) continue;
      const q = this.outstanding.get(key);
      if (q) {
        this.outstanding.delete(key);
        q.resolve(value);
        delivered++;
        this.onChange?.();
      } else if (holdUnknown && this.held.size < 64) {
        this.held.set(key, value);
        delivered++;
      }
    }
    return delivered;
  }

  /** Wait until the call finishes or has a question outstanding. */
  settle(): Promise<Event> {
    return this.waitSettle().settled;
  }

  /** settle(), and a way to stop waiting (a cancelled retry): its waiter leaves at once. */
  waitSettle(windowed = false): { settled: Promise<Event>; stop(): void } {
    if (this.outcome) return { settled: Promise.resolve({ kind: 'done', ...this.outcome }), stop: () => undefined };
    if (this.outstanding.size) return { settled: Promise.resolve({ kind: 'ask' }), stop: () => undefined };
    let waiter!: (e: Event) => void;
    const settled = new Promise<Event>((resolve) => {
      waiter = resolve;
      this.waiters.add(resolve);
      if (windowed) this.windowed.add(resolve);
    });
    return { settled, stop: () => this.waiters.delete(waiter) };
  }

  /** Whoever waits for the next settling now (a test counts them). */
  get waiting(): number {
    return this.waiters.size;
  }

  /** The questions still open, keyed as the client must answer them. A missing key is asked again. */
  inputRequests(): JsonObject {
    const out: JsonObject = {};
    for (const [k, q] of this.outstanding) out[k] = { method: q.method, params: q.params };
    return out;
  }
}

/** How many background calls the store holds: per identity, and in total. */
export interface BackgroundLimits {
  perIdentity: number;
  total: number;
}

/** The task store for background calls, bounded in time (proto.askTTL) and in size: per identity
 *  (limits.backgroundPerIdentity) and in total (limits.inflight). At a bound the new call is refused;
 *  nothing held is ever evicted for it, so one client's flood cannot end another's call
 *  (docs/security.md "Bounds"). */
export class BackgroundCalls {
  private readonly calls = new Map<string, BackgroundCall>();
  private readonly perIdentity = new Counts();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly ttlMs: () => number,
    private readonly limits: () => BackgroundLimits,
  ) {
    this.sweeper = setInterval(() => this.sweep(), 30_000);
    this.sweeper.unref();
  }

  /** Told when a call comes or goes (the editor's Tasks view refreshes on it). */
  onChange?: () => void;

  /** Holds a new call, or refuses it (-32603 naming the setting) at a bound. */
  add(call: BackgroundCall): void {
    const { perIdentity, total } = this.limits();
    if (this.calls.size >= total)
      throw new ProtocolError(
        CODES.InternalError,
        `the gateway holds ${total} background calls (limits.inflight); retry when one has finished`,
      );
    if (this.perIdentity.get(call.identity) >= perIdentity)
      throw new ProtocolError(
        CODES.InternalError,
        `this client already has ${perIdentity} calls running or waiting for its input (limits.backgroundPerIdentity); retry when one has finished`,
      );
    this.calls.set(call.id, call);
    this.perIdentity.add(call.identity);
    this.onChange?.();
  }
  get(id: string): BackgroundCall | undefined {
    return this.calls.get(id);
  }
  delete(id: string): void {
    const c = this.calls.get(id);
    if (!c) return;
    this.forget(c);
    this.onChange?.();
  }

  private forget(c: BackgroundCall): void {
    this.calls.delete(c.id);
    this.perIdentity.remove(c.identity);
  }
  get size(): number {
    return this.calls.size;
  }
  list(): BackgroundCall[] {
    return [...this.calls.values()];
  }
  /** Cancel a call (the editor's Tasks view): its upstream work is aborted and it leaves the store. */
  cancel(id: string): boolean {
    const c = this.calls.get(id);
    if (!c) return false;
    c.abort.abort(new Error('cancelled in the editor'));
    this.delete(id);
    return true;
  }

  /** A finished call's result is kept proto.askTTL after it finished; a call that asked and has had no
   *  request waiting on it for proto.askTTL is abandoned. A call still running for the request that
   *  started it, or for a retry, is never swept: pool.maxCallTime bounds it (docs/questions.md "Bounds"). */
  sweep(now = Date.now()): void {
    const ttl = this.ttlMs();
    for (const c of [...this.calls.values()]) {
      const stale =
        c.finishedAt !== undefined
          ? now - c.finishedAt > ttl
          : c.rounds > 0 && c.attached === 0 && now - c.detachedAt > ttl;
      if (stale) {
        c.abort.abort(new Error('abandoned: no retry within proto.askTTL'));
        this.forget(c);
      }
    }
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const c of this.calls.values()) c.abort.abort(new Error('the gateway is stopping'));
    this.calls.clear();
    this.perIdentity.clear();
  }
}

/** The request binding: the method and a SHA-256 of its params without _meta, inputResponses and
 *  requestState (docs/questions.md "requestState"), over a canonical form at most `maxDepth` deep. */
export function bindingOf(method: string, params: JsonObject, maxDepth: number): string {
  const { _meta: _m, inputResponses: _i, requestState: _s, ...rest } = params;
  void _m;
  void _i;
  void _s;
  return `${method}:${createHash('sha256').update(canonical(rest, maxDepth)).digest('base64url')}`;
}

/** JSON with sorted keys, so equal params hash equally whatever their key order; deeper than `left`
 *  levels is -32602 (limits.paramsDepth), so the recursion is bounded. */
function canonical(v: unknown, left: number): string {
  if (typeof v === 'object' && v !== null && left <= 0)
    throw invalidParams('Invalid params: params are nested too deeply (limits.paramsDepth)');
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, left - 1)).join(',')}]`;
  if (isObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k], left - 1)}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

interface StatePayload {
  c: string; // call id
  b: string; // binding
  e: number; // expiry (ms since epoch)
  n: string; // nonce: the call accepts only its latest, once
  i: string; // the identity the call is for: only it may present the state
}

/** base64url(payload).HMAC-SHA256 under a key made per process and never persisted. Single-use: the
 *  call behind it accepts only the latest state it issued, once (docs/security.md "requestState"). */
export class RequestStates {
  private readonly key = randomBytes(32);

  sign(p: StatePayload): string {
    const body = Buffer.from(JSON.stringify(p)).toString('base64url');
    return `${body}.${createHmac('sha256', this.key).update(body).digest('base64url')}`;
  }

  /** A fresh nonce for the next state of a call. */
  nonce(): string {
    return randomBytes(12).toString('base64url');
  }

  /** The payload of a state presented by `identity` with the request whose binding `binding()` computes,
   *  or a -32602 saying exactly what is wrong. The MAC is checked first: nothing of the request is hashed
   *  before. A state issued to a named identity is refused from any other (docs/security.md
   *  "requestState"); one issued to a client that named none is its bearer's. */
  verify(state: string, binding: () => string, identity: string): StatePayload {
    const [body, mac] = state.split('.');
    if (!body || !mac) throw invalidParams('Invalid params: requestState is not one mcpx issued');
    const want = createHmac('sha256', this.key).update(body).digest();
    const got = Buffer.from(mac, 'base64url');
    if (got.length !== want.length || !timingSafeEqual(got, want)) {
      throw invalidParams(
        'Invalid params: requestState failed verification (tampered with, or issued by another mcpx process)',
      );
    }
    const p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as StatePayload;
    if (Date.now() > p.e)
      throw invalidParams(`Invalid params: requestState expired at ${new Date(p.e).toISOString()} (proto.stateTTL)`);
    if (!p.i.startsWith(PER_REQUEST) && p.i !== identity)
      throw invalidParams('Invalid params: requestState was issued to another client (its identity differs)');
    if (p.b !== binding())
      throw invalidParams('Invalid params: requestState was issued for a different request (method or params differ)');
    return p;
  }
}

/** What a call is, for a person (the editor's Tasks view, /v1/tasks): the tool, prompt or resource it
 *  names, and for the gateway's mcpx_call the server and tool it calls. */
export function labelOf(method: string, params: unknown): string {
  const p = isObject(params) ? params : {};
  const named = p.name ?? p.uri;
  if (typeof named !== 'string') return method;
  const a = isObject(p.arguments) ? p.arguments : {};
  const via = named === 'mcpx_call' && typeof a.server === 'string' ? ` ${a.server}/${String(a.tool)}` : '';
  return `${method} ${named}${via}`;
}
