// 2026-07-28 multi round-trip requests (MRTR): a question a modern client must answer comes back as an
// `input_required` result; the call behind it runs on as a background call, and the client's retry
// carrying `inputResponses` and the signed `requestState` resumes it (2026-07-28 basic/patterns/mrtr; docs/questions.md "Who answers").
import { randomUUID } from 'node:crypto';
import { BoundedStore } from '../kit/store';
import { McpxError } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { Abort } from '../wire/abort';

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
  /** The task it became, if it did (the activity record names it). */
  taskId?: string;
  /** Told whenever a question opens or closes and when the call finishes (a task's status follows it). */
  onChange?: () => void;
  /** Told once when the call finishes (the task journal records a call a retry may come back for). */
  onFinish?: () => void;

  constructor(
    readonly method: string,
    /** What it is, for a person: the tool, prompt or resource it names. */
    readonly label = method,
    /** Whose call it is (CallContext.identity): the store's bound per identity counts it there. */
    readonly identity = '',
    /** A new call's id is random; a call read back from the journal keeps its own. */
    readonly id: string = randomUUID(),
  ) {}

  /** A call read back from the journal: it ended as `o`, at `at` (taskJournal.ts). */
  restoreOutcome(o: { result?: JsonObject; error?: unknown }, at: number): void {
    this.outcome = o;
    this.finishedAt = at;
  }

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
    this.onFinish?.();
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

/** The store of background calls, bounded in time (proto.askTTL) and in size: per identity
 *  (limits.backgroundPerIdentity) and in total (limits.inflight), on the one bounded store
 *  (kit/store.ts): at a bound the new call is refused, nothing held is evicted for it. A finished call's
 *  result is kept proto.askTTL after it finished; a call that asked and has had no request waiting on it
 *  for proto.askTTL is abandoned. A call still running for the request that started it, or for a retry,
 *  is never swept: pool.maxCallTime bounds it (docs/questions.md "Bounds"). */
export class BackgroundCalls {
  private readonly store: BoundedStore<BackgroundCall>;
  /** Told when a call comes or goes (the editor's Tasks view refreshes on it). */
  onChange?: () => void;
  /** Told when a call leaves the store (the task journal forgets it). */
  onGone?: (id: string) => void;

  constructor(ttlMs: () => number, limits: () => BackgroundLimits) {
    this.store = new BoundedStore({
      bounds: limits,
      refuse: {
        total: (n) =>
          new McpxError(
            'bound.background',
            `the gateway holds ${n} background calls (limits.inflight); retry when one has finished`,
          ),
        perIdentity: (n) =>
          new McpxError(
            'bound.background',
            `this client already has ${n} calls running or waiting for its input (limits.backgroundPerIdentity); retry when one has finished`,
          ),
      },
      sweep: {
        everyMs: 30_000,
        stale: (c, now) =>
          c.finishedAt !== undefined
            ? now - c.finishedAt > ttlMs()
            : c.rounds > 0 && c.attached === 0 && now - c.detachedAt > ttlMs(),
        swept: (c) => {
          c.abort.abort(new Error('abandoned: no retry within proto.askTTL'));
          this.onGone?.(c.id);
        },
      },
    });
  }

  /** Holds a new call, or refuses it (naming the setting) at a bound. */
  add(call: BackgroundCall): void {
    this.store.add(call.id, call.identity, call);
    this.onChange?.();
  }
  get(id: string): BackgroundCall | undefined {
    return this.store.get(id);
  }
  delete(id: string): void {
    if (!this.store.delete(id)) return;
    this.onGone?.(id);
    this.onChange?.();
  }
  get size(): number {
    return this.store.size;
  }
  list(): BackgroundCall[] {
    return this.store.values();
  }
  /** Cancel a call (the editor's Tasks view, /v1/tasks): its upstream work is aborted and it leaves the
   *  store. */
  cancel(id: string, reason = 'cancelled in the editor'): boolean {
    const c = this.store.get(id);
    if (!c) return false;
    c.abort.abort(new Error(reason));
    this.delete(id);
    return true;
  }
  sweep(now = Date.now()): void {
    this.store.sweep(now);
  }
  close(): void {
    for (const c of this.store.close()) c.abort.abort(new Error('the gateway is stopping'));
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
