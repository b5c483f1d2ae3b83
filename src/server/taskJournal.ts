// Tasks and 2026-07-28 background calls that outlive a restart (docs/protocol.md "Tasks across a
// restart"): every change of a task — and of a background call a retry may come back for — is a record in
// the journal in the state directory (kit/journal.ts); at start the journal is read back. What had ended
// is held again with its id, owner and outcome; what was running is held as failed, the gateway having
// restarted (its upstream call died with the process). The requestState key lives beside it, so a retry
// made before the restart still verifies after it (docs/security.md "The task journal").
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Journal, type JournalRecord } from '../kit/journal';
import { CODES, ProtocolError, isTypedError } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import type { Era } from '../protocol/revisions';
import { BackgroundCall, type BackgroundCalls } from './mrtr';
import type { Task, TaskRecorder, Tasks, TaskStatus } from './tasks';

/** What a task, or a call, that was running when the gateway went away reads as after the restart. */
const RESTARTED = 'the gateway restarted while this call was running: its result is lost (call the tool again)';

const TERMINAL = new Set<TaskStatus>(['completed', 'failed', 'cancelled']);

/** An error as the journal keeps it: what the wire would carry. */
function errorRecord(e: unknown): JsonObject {
  if (isTypedError(e)) return e.toWire() as unknown as JsonObject;
  return { code: CODES.InternalError, message: `Internal error: ${e instanceof Error ? e.message : String(e)}` };
}

function errorOf(r: unknown, lost: string): ProtocolError {
  const e = (typeof r === 'object' && r !== null ? r : {}) as { code?: unknown; message?: unknown; data?: unknown };
  return new ProtocolError(
    typeof e.code === 'number' ? e.code : CODES.InternalError,
    typeof e.message === 'string' ? e.message : lost,
    e.data,
  );
}

const num = (v: unknown, d: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : d);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** An outcome is a result object or an error; anything else (a hand-edited line) reads as lost. */
const isEnded = (r: JournalRecord): boolean => isObject(r.result) || r.error !== undefined;

/** One record read back into `tasks` or `background`: what had ended as it ended, what was running as
 *  failed with `lost` (why its result is gone). `failed`: the fields that now say so, for the record. */
export function restoreRecord(
  r: JournalRecord,
  tasks: Tasks,
  background: BackgroundCalls,
  lost: string,
): { kept: boolean; failed?: Record<string, unknown> } {
  const now = Date.now();
  const identity = str(r.identity) ?? '';
  const method = str(r.method) ?? 'tools/call';
  const label = str(r.label) ?? method;
  const call = new BackgroundCall(method, label, identity, r.kind === 'call' ? r.id : undefined);
  const ended = isEnded(r);
  const outcome = ended
    ? r.error !== undefined
      ? { error: errorOf(r.error, lost) }
      : { result: r.result as JsonObject }
    : { error: new ProtocolError(CODES.InternalError, lost) };
  call.restoreOutcome(outcome, ended ? num(r.finishedAt ?? r.updatedAt, now) : now);
  if (r.kind === 'call') {
    call.rounds = num(r.rounds, 1);
    call.nonce = str(r.nonce);
    try {
      background.add(call);
    } catch {
      return { kept: false };
    }
    return { kept: true };
  }
  // Running at the end — or said to have ended with no outcome recorded: either way, lost.
  const restarted = !TERMINAL.has(r.status as TaskStatus) || (r.status !== 'cancelled' && !ended);
  const status = restarted ? 'failed' : (r.status as 'completed' | 'failed' | 'cancelled');
  const restored = {
    id: r.id,
    createdAt: num(r.createdAt, now),
    updatedAt: restarted ? now : num(r.updatedAt, now),
    status,
    statusMessage: restarted ? lost : str(r.statusMessage),
  };
  const info = { label, client: str(r.client), era: (str(r.era) ?? 'modern') as Era, identity };
  if (!tasks.restore(call, info, restored)) return { kept: false };
  if (!restarted) return { kept: true };
  return { kept: true, failed: { status, statusMessage: lost, updatedAt: now, error: errorRecord(outcome.error) } };
}

/** A task's fields as its record keeps them: all of them when it was made, its status since, its
 *  outcome once it ended (the journal merges them; a team's store keeps the whole record). */
export function taskFields(t: Task, created: boolean): Record<string, unknown> {
  const fields: Record<string, unknown> = { status: t.status, updatedAt: t.updatedAt };
  if (t.statusMessage !== undefined) fields.statusMessage = t.statusMessage;
  if (created)
    Object.assign(fields, {
      kind: 'task',
      method: t.call.method,
      label: t.info.label,
      client: t.info.client,
      era: t.info.era,
      identity: t.info.identity,
      createdAt: t.createdAt,
    });
  const o = t.call.finished;
  if (t.terminal && o) Object.assign(fields, outcomeFields(o));
  return fields;
}

/** A background call's record, with its outcome once it finished. */
export function callFields(c: BackgroundCall): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    kind: 'call',
    method: c.method,
    label: c.label,
    identity: c.identity,
    rounds: c.rounds,
    nonce: c.nonce,
    updatedAt: Date.now(),
  };
  const o = c.finished;
  if (o) Object.assign(fields, { finishedAt: c.finishedAt }, outcomeFields(o));
  return fields;
}

const outcomeFields = (o: { result?: JsonObject; error?: unknown }): Record<string, unknown> =>
  o.error !== undefined ? { error: errorRecord(o.error) } : o.result !== undefined ? { result: o.result } : {};

/** What the server records its tasks and background calls through: the state directory's journal
 *  (below), or a team's store (src/team/tasks.ts). */
export interface TaskRecords extends TaskRecorder {
  /** Holds again what there is to hold, and records `tasks` and `background` from now on. */
  attach(tasks: Tasks, background: BackgroundCalls): void;
  call(c: BackgroundCall): void;
  /** Nothing more is recorded. */
  close(): void;
}

export class TaskJournal implements TaskRecords {
  private readonly journal: Journal;

  constructor(
    dir: string,
    /** proto.askTTL: how long an ended task, or an abandoned call, is kept. */
    private readonly keepMs: () => number,
    log?: (line: string) => void,
    /** The file within `dir`: the daemon's tasks.jsonl, or an editor window's own. */
    file = 'tasks.jsonl',
  ) {
    this.journal = new Journal(join(dir, file), {
      log,
      expired: (r) => {
        const now = Date.now();
        const ended = r.kind === 'call' ? num(r.finishedAt, num(r.updatedAt, 0)) : this.endedAt(r);
        return ended !== undefined && ended + this.keepMs() < now;
      },
    });
  }

  private endedAt(r: JournalRecord): number | undefined {
    return TERMINAL.has(r.status as TaskStatus) ? num(r.updatedAt, 0) : undefined;
  }

  /** Holds again what the journal read at open — tasks in `tasks`, background calls in `background` —
   *  and records both from now on. */
  attach(tasks: Tasks, background: BackgroundCalls): void {
    this.restore(tasks, background);
    tasks.recorder = this;
    background.onGone = (id) => this.gone(id);
  }

  private restore(tasks: Tasks, background: BackgroundCalls): void {
    for (const r of this.journal.records()) {
      const { kept, failed } = restoreRecord(r, tasks, background, RESTARTED);
      if (kept && failed) this.journal.put(r.id, failed);
      else if (kept && r.kind === 'call' && !isEnded(r)) this.call(background.get(r.id)!);
      if (!kept) this.journal.drop(r.id);
    }
  }

  /** A task made, or changed: its record (an ended one with its outcome). */
  task(t: Task, created: boolean): void {
    this.journal.put(t.id, taskFields(t, created));
  }

  /** A background call that issued a requestState (a retry may come for it): its record, and its
   *  outcome once it finishes. */
  call(c: BackgroundCall): void {
    this.journal.put(c.id, callFields(c));
  }

  gone(id: string): void {
    this.journal.drop(id);
  }

  /** Nothing more is recorded: what runs now reads as running at the next start (then failed). */
  close(): void {
    this.journal.close();
  }
}

/** The requestState key of this state directory (owner-only), made on first need: a state issued before a
 *  restart verifies after it (docs/security.md "requestState"). */
export function stateKey(dir: string): Buffer {
  const file = join(dir, 'request-state-key');
  try {
    const k = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
    if (k.length >= 32) return k;
  } catch {
    // none yet (or unreadable): a new one below
  }
  const k = randomBytes(32);
  writeFileSync(file, k.toString('base64url'), { mode: 0o600 });
  chmodSync(file, 0o600);
  return k;
}
