// Tasks: a tools/call whose result is collected later, in both eras' shapes (docs/protocol.md "Tasks").
// - 2025-11-25 core (client-directed): the client asks with `task`; tasks/get, tasks/list, tasks/result,
//   tasks/cancel; notifications/tasks/status (2025-11-25 basic/utilities/tasks).
// - 2026-07-28 extension (server-directed): mcpx decides; CreateTaskResult is flat; tasks/get inlines the
//   result, tasks/update answers inputRequests (tasks extension, specification/draft/tasks.md).
// The work behind a task is a BackgroundCall (mrtr.ts): the same call a 2026-07-28 retry resumes, so a
// call that outlives its eager window is promoted, not restarted.
import { randomUUID } from 'node:crypto';
import { BoundedStore } from '../kit/store';
import { type EraCodec, type TaskView, codecOfEra } from '../protocol/eras';
import { CODES, McpxError, ProtocolError, invalidParams } from '../protocol/errors';
import type { JsonObject } from '../protocol/jsonrpc';
import type { Era } from '../protocol/revisions';
import { TASKS_EXTENSION } from '../protocol/tasks';
import { PER_REQUEST } from './conn';
import type { BackgroundCall } from './mrtr';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** How long a task-supporting call may run, or take to ask, before it becomes a task (docs/protocol.md
 *  "Tasks": the eager window). */
export const EAGER_WINDOW_MS = 250;

/** The -32021 a client gets when the request needs the extension it did not declare. */
export function extensionRequired(why: string): ProtocolError {
  return new ProtocolError(CODES.MissingRequiredClientCapability, `Missing required client capability: ${why}`, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

/** What the journal knows of a task that ended (or was running when the gateway went away). */
export interface RestoredTask {
  id: string;
  createdAt: number;
  updatedAt: number;
  status: 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
}

export interface TaskInfo {
  /** What it runs, for a person: `tools/call <name>`. */
  label: string;
  /** The calling client's name, where it gave one. */
  client?: string;
  /** The era of the request that made it (a tool error fails a 2025-11-25 task, completes the extension's). */
  era: Era;
  identity: string;
}

/** One task: its work, whose it is, and its status as each era shows it. */
export class Task {
  readonly id: string;
  readonly createdAt: number;
  updatedAt: number;
  status: TaskStatus = 'working';
  statusMessage?: string;
  /** Questions put to a legacy client on its channel, not yet answered (the task shows input_required). */
  asking = 0;
  /** Set once by tasks/cancel or the editor: it stays cancelled whatever the work does (2025-11-25 "Task
   *  Cancellation": MUST remain cancelled; docs/protocol.md "Tasks": one reading for both eras). */
  private cancelled = false;
  private readonly listeners = new Set<(t: Task) => void>();
  /** The codec of the era that made it (read back from the journal by its era's name). */
  private readonly codec: EraCodec;

  constructor(
    readonly call: BackgroundCall,
    readonly info: TaskInfo,
    /** Retention after the task ends (proto.askTTL) and the suggested polling interval. */
    private readonly keepMs: number,
    readonly pollMs: number,
    /** A task read back from the journal (taskJournal.ts): its id, times and how it ended. */
    restored?: RestoredTask,
  ) {
    this.id = restored?.id ?? randomUUID(); // 122 random bits: unguessable (tasks extension "Security Considerations")
    this.createdAt = restored?.createdAt ?? Date.now();
    this.updatedAt = restored?.updatedAt ?? this.createdAt;
    this.codec = codecOfEra(info.era);
    if (restored) {
      this.cancelled = restored.status === 'cancelled';
      this.status = restored.status;
      this.statusMessage = restored.statusMessage;
    }
  }

  /** Its status follows its work from now on (once the store holds it). */
  follow(): void {
    this.call.onChange = () => this.refresh();
    this.refresh();
  }

  get terminal(): boolean {
    return TERMINAL.has(this.status);
  }

  /** When it ended, if it has. */
  get endedAt(): number | undefined {
    return this.terminal ? this.updatedAt : undefined;
  }

  /** A task started by an identity made for one request is reached by its id alone (the id is the
   *  credential); any other is reached only by its identity (docs/protocol.md "Task ownership"). */
  visibleTo(identity: string): boolean {
    return this.info.identity === identity || this.info.identity.startsWith(PER_REQUEST);
  }

  /** Listed to `identity` (tasks/list, /v1/tasks): only its own, never a task reached by id alone. */
  listedTo(identity: string): boolean {
    return this.info.identity === identity;
  }

  onChange(fn: (t: Task) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Cancels the work behind it; true if it was not already terminal. */
  cancel(reason: string): boolean {
    if (this.terminal) return false;
    this.cancelled = true;
    this.statusMessage = reason;
    this.call.abort.abort(new Error(reason));
    this.refresh();
    return true;
  }

  /** Status follows the work: its outcome, else its open questions. */
  refresh(): void {
    const was = this.status;
    const o = this.call.finished;
    let next: TaskStatus;
    if (this.cancelled) next = 'cancelled';
    else if (o) next = o.error !== undefined || this.codec.tasks.fails(o.result) ? 'failed' : 'completed';
    else next = this.call.asking + this.asking > 0 ? 'input_required' : 'working';
    if (next === was) return;
    this.status = next;
    // A failed task says why (the extension's "Task Execution Errors": SHOULD).
    if (next === 'failed' && o?.error !== undefined)
      this.statusMessage = o.error instanceof Error ? o.error.message : String(o.error);
    this.updatedAt = Date.now();
    for (const l of [...this.listeners]) l(this);
  }

  /** Retention from creation: while it runs, at least until now plus the retention; once ended, exactly
   *  when it is pruned. It changes over the task's life, which both eras allow. */
  ttl(now = Date.now()): number {
    return (this.endedAt ?? now) - this.createdAt + this.keepMs;
  }

  /** The task in plain data, for a codec to spell (protocol/eras: the Task, the DetailedTask). */
  view(): TaskView {
    const o = this.call.finished;
    return {
      taskId: this.id,
      status: this.status,
      createdAt: new Date(this.createdAt).toISOString(),
      lastUpdatedAt: new Date(this.updatedAt).toISOString(),
      ttlMs: this.ttl(),
      pollMs: this.pollMs,
      ...(this.statusMessage !== undefined ? { statusMessage: this.statusMessage } : {}),
      ...(o?.result ? { result: o.result } : {}),
      ...(this.status === 'failed' ? { error: o?.error } : {}),
      ...(this.status === 'input_required' ? { inputRequests: this.call.inputRequests() } : {}),
    };
  }

  /** The Task as `codec`'s era spells it. */
  shape(codec: EraCodec): JsonObject {
    return codec.tasks.shape(this.view());
  }

  /** Whatever the underlying request would have answered (2025-11-25 tasks/result): its result, or its
   *  error thrown. Only for a terminal task. */
  outcome(): JsonObject {
    if (this.cancelled) throw new McpxError('cancelled', `Task ${this.id} was cancelled`);
    const o = this.call.finished!;
    if (o.error !== undefined) throw o.error;
    return o.result!;
  }

  /** Resolves once the task is terminal (tasks/result blocks on it), or rejects with `signal`. */
  settled(signal: AbortSignal): Promise<void> {
    if (this.terminal) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const off = this.onChange((t) => {
        if (!t.terminal) return;
        off();
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
      const onAbort = () => {
        off();
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

export interface TaskLimits {
  /** Running tasks per identity (limits.tasksPerIdentity). */
  perIdentity: number;
  /** Running tasks in all (limits.inflight). */
  total: number;
  /** Tasks held, running or ended and kept (limits.tasks): an ended task's result is memory too. */
  held: number;
}

/** Every task of this server, bounded on the one bounded store (kit/store.ts): running ones per identity
 *  (limits.tasksPerIdentity) and in total (limits.inflight), and all held, ended ones included
 *  (limits.tasks). At a bound the new task is refused and nothing held is evicted for it. An ended task is
 *  kept proto.askTTL, then pruned (docs/security.md "Bounds"). */
/** Where a task's every change is recorded, so it outlives a restart (taskJournal.ts). */
export interface TaskRecorder {
  task(t: Task, created: boolean): void;
  gone(id: string): void;
}

export class Tasks {
  private readonly store: BoundedStore<Task>;
  private readonly watchers = new Set<(t: Task) => void>();
  /** Set once, before any task is made, when the server has a state directory. */
  recorder?: TaskRecorder;
  /** A team's replica takes in a task another replica left when it stopped (src/team/tasks.ts): asked
   *  before a task not held here is looked up. */
  adopt?: (id: string) => Promise<void>;

  constructor(
    private readonly keepMs: () => number,
    private readonly pollMs: () => number,
    limits: () => TaskLimits,
  ) {
    const bound = (n: number, why: string) => new McpxError('bound.tasks', why.replace('{n}', String(n)));
    this.store = new BoundedStore({
      bounds: limits,
      refuse: {
        held: (n) =>
          bound(
            n,
            'the gateway holds {n} tasks, running or kept after they ended (limits.tasks); retry when one is collected or expires (proto.askTTL)',
          ),
        total: (n) => bound(n, 'the gateway holds {n} running tasks (limits.inflight); retry when one has finished'),
        perIdentity: (n) =>
          bound(n, 'this client already has {n} running tasks (limits.tasksPerIdentity); retry when one has finished'),
      },
      sweep: {
        everyMs: 10_000,
        stale: (t, now) => t.endedAt !== undefined && now - t.endedAt > this.keepMs(),
        swept: (t) => {
          this.recorder?.gone(t.id);
          this.told(t);
        },
      },
    });
  }

  private told(t: Task): void {
    for (const w of this.watchers) w(t);
  }

  /** Told when any task is created, changes status, or is pruned (the editor's Tasks view, /v1/events). */
  onChange(fn: (t: Task) => void): () => void {
    this.watchers.add(fn);
    return () => this.watchers.delete(fn);
  }

  /** A new task over `call`, or an error naming the bound it would pass. */
  create(call: BackgroundCall, info: TaskInfo): Task {
    const task = new Task(call, info, this.keepMs(), this.pollMs());
    this.store.add(task.id, info.identity, task);
    call.taskId = task.id;
    task.follow();
    this.recorder?.task(task, true);
    // An ended task no longer counts as running; it is held until it is pruned.
    task.onChange((t) => {
      if (t.terminal) this.store.uncount(t.id);
      this.recorder?.task(t, false);
      this.told(t);
    });
    if (task.terminal) this.store.uncount(task.id);
    this.told(task);
    return task;
  }

  /** A task read back from the journal, ended: held (within limits.tasks) with its id, never running.
   *  False when the bound refuses it. */
  restore(call: BackgroundCall, info: TaskInfo, restored: RestoredTask): boolean {
    const task = new Task(call, info, this.keepMs(), this.pollMs(), restored);
    try {
      this.store.add(task.id, info.identity, task);
    } catch {
      return false;
    }
    this.store.uncount(task.id);
    task.follow();
    return true;
  }

  /** The task `id` as `identity` may see it, or -32602 — the same for one that never existed, one pruned
   *  and one of another identity (nothing says which). */
  get(id: unknown, identity: string): Task {
    const t = typeof id === 'string' ? this.store.get(id) : undefined;
    if (!t || !t.visibleTo(identity))
      throw invalidParams(`Invalid params: no task ${JSON.stringify(id)} (unknown, expired, or not yours)`);
    return t;
  }

  /** Tasks listed to `identity`, oldest first; `all` for local admin access (every task). */
  list(identity: string | undefined): Task[] {
    return this.store.values().filter((t) => identity === undefined || t.listedTo(identity));
  }

  find(id: string): Task | undefined {
    return this.store.get(id);
  }

  get size(): number {
    return this.store.size;
  }

  sweep(now = Date.now()): void {
    this.store.sweep(now);
  }

  close(): void {
    for (const t of this.store.close()) t.cancel('the gateway is stopping');
  }
}
