// A replica's tasks and 2026-07-28 background calls in the team's store (docs/team.md "Tasks"): every
// change of a task — and of a call a retry may come back for — is its whole record under `task/<id>` or
// `call/<id>`, naming the replica that runs it. Running, a record is kept until it ends; ended, for
// proto.askTTL. Any replica finds a task's owner there (a request naming it is forwarded: ../transport/
// forward.ts); a replica that stopped leaves its running records failed, with the reason (reap), and a
// task it left is taken in by the replica asked for it (adopt) as the state directory's journal reads one
// back after a restart (server/taskJournal.ts).
import type { JournalRecord } from '../kit/journal';
import type { BackgroundCall, BackgroundCalls } from '../server/mrtr';
import { type TaskRecords, callFields, restoreRecord, taskFields } from '../server/taskJournal';
import type { Task, Tasks, TaskStatus } from '../server/tasks';
import { type Store, parseJson } from '../store/store';

const TERMINAL = new Set<TaskStatus>(['completed', 'failed', 'cancelled']);

/** What a task or call reads as when the replica running it stopped. */
const stoppedReason = (replica: string): string =>
  `the replica ${replica} that ran this call stopped while it was running: its result is lost (call the tool again)`;

type Rec = JournalRecord & { replica: string; kind: 'task' | 'call' };

const keyOf = (r: { kind: string; id: string }): string => `${r.kind}/${r.id}`;
const ended = (r: Rec): boolean =>
  r.kind === 'call' ? r.finishedAt !== undefined : TERMINAL.has(r.status as TaskStatus);

export interface SharedTasksOptions {
  store: Store;
  replica: string;
  /** proto.askTTL: how long an ended record is kept. */
  keepMs(): number;
  /** Whether replica `id` runs now (a task of a live one is its own to serve). */
  alive(id: string): Promise<boolean>;
  log(line: string): void;
}

export class SharedTasks implements TaskRecords {
  /** This replica's records, whole: each write is the whole record (the store holds no merge). */
  private readonly live = new Map<string, Rec>();
  /** Writes per key, one at a time, the latest last. */
  private readonly writing = new Map<string, Promise<void>>();
  private readonly dirty = new Set<string>();
  private closed = false;
  private failing = false;

  constructor(private readonly o: SharedTasksOptions) {
    // A store that comes back (a restart that lost its data) is given this replica's records again.
    o.store.onUp((up) => {
      if (up) for (const key of this.live.keys()) this.write(key);
    });
  }

  attach(tasks: Tasks, background: BackgroundCalls): void {
    tasks.recorder = this;
    tasks.adopt = (id) => this.adopt(id, tasks, background);
    background.onGone = (id) => this.gone(id);
  }

  task(t: Task, created: boolean): void {
    this.put('task', t.id, taskFields(t, created));
  }

  call(c: BackgroundCall): void {
    this.put('call', c.id, callFields(c));
  }

  gone(id: string): void {
    for (const kind of ['task', 'call'] as const) {
      const key = `${kind}/${id}`;
      if (!this.live.delete(key)) continue;
      this.dirty.delete(key);
      void this.o.store.del(key).catch((e: Error) => this.failed(e));
    }
  }

  close(): void {
    this.closed = true;
  }

  private put(kind: 'task' | 'call', id: string, fields: Record<string, unknown>): void {
    if (this.closed) return;
    const key = `${kind}/${id}`;
    const r = { ...this.live.get(key), ...fields, id, kind, replica: this.o.replica } as Rec;
    this.live.set(key, r);
    this.write(key);
  }

  /** The record written as it is now: after the write in flight, if any (only the latest matters). */
  private write(key: string): void {
    if (this.writing.has(key)) {
      this.dirty.add(key);
      return;
    }
    const r = this.live.get(key);
    if (!r) return;
    const p = this.o.store
      .set(key, JSON.stringify(r), ended(r) ? { ttlMs: this.o.keepMs() } : {})
      .then(() => {
        this.failing = false;
      })
      .catch((e: Error) => this.failed(e))
      .finally(() => {
        this.writing.delete(key);
        if (this.dirty.delete(key)) this.write(key);
      });
    this.writing.set(key, p);
  }

  private failed(e: Error): void {
    // Said once per outage: the records are written again when the store is back.
    if (!this.failing) this.o.log(`team: cannot record a task in the store: ${e.message}`);
    this.failing = true;
  }

  /** Resolves once every write begun so far has been made (tests, a replica stopping). */
  async flushed(): Promise<void> {
    while (this.writing.size) await Promise.all([...this.writing.values()]);
  }

  /** The replica that runs task (or background call) `id`, as the store says. */
  async ownerOf(id: string): Promise<string | undefined> {
    const r =
      parseJson<Rec>(await this.o.store.get(`task/${id}`)) ?? parseJson<Rec>(await this.o.store.get(`call/${id}`));
    return r?.replica;
  }

  /** Task `id`, left by a replica that has stopped, held here as it ended — failed, if it was running. */
  private async adopt(id: string, tasks: Tasks, background: BackgroundCalls): Promise<void> {
    const r = parseJson<Rec>(await this.o.store.get(`task/${id}`).catch(() => undefined));
    if (r?.kind !== 'task' || r.replica === this.o.replica || (await this.o.alive(r.replica))) return;
    if (tasks.find(id)) return;
    const { kept, failed } = restoreRecord(r, tasks, background, stoppedReason(r.replica));
    if (kept && failed)
      await this.o.store.set(keyOf(r), JSON.stringify({ ...r, ...failed }), { ttlMs: this.o.keepMs() });
  }

  /** Every running record of replica `id` (stopped) failed, with the reason; ended ones expire as they
   *  would have. */
  async reap(id: string): Promise<number> {
    let n = 0;
    const now = Date.now();
    for (const prefix of ['task/', 'call/']) {
      for (const key of await this.o.store.keys(prefix)) {
        const text = await this.o.store.get(key);
        const r = parseJson<Rec>(text);
        if (!r || r.replica !== id || ended(r)) continue;
        const lost = stoppedReason(id);
        const error = { code: -32603, message: lost };
        const next: Rec =
          r.kind === 'call'
            ? { ...r, finishedAt: now, updatedAt: now, error }
            : { ...r, status: 'failed', statusMessage: lost, updatedAt: now, error };
        // Only if nobody changed it meanwhile (its replica came back, another reaper).
        if (await this.o.store.cas(key, text, JSON.stringify(next), { ttlMs: this.o.keepMs() })) n++;
      }
    }
    return n;
  }
}
