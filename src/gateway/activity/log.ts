// The activity log (docs/gateway.md "Activity"): the sink the call gate hands every record to, the feed
// the editor's Activity view, GET /v1/activity and `mcpx activity` read, and the one writer of this
// gateway's file in `<state>/activity/` (files.ts names it). append() only queues: the record is shaped
// (shape.ts) and written on a later turn, so a call never waits for the disk. Every queue is bounded —
// what does not fit is counted and reported once — and a disk that refuses (full, read-only, EACCES) is
// reported once and tried again later: the gateway goes on without the log.
import { type FileHandle, mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { chmodSync } from 'node:fs';
import type { ServerDef } from '../../config/servers';
import type { Settings } from '../../config/settings';
import { redactorOf } from '../../config/redact';
import { ROTATIONS, fileOf, matchesFilter, newestFirst, prune, readActivity } from './files';
import type { ActivityStream } from '../shared';
import type { ActivityFeed, ActivityFilter, ActivityRecord, ActivitySink } from './record';
import { type ArgumentsMode, inMemory, lineOf, redactedArguments, stored } from './shape';

/** Records the feed keeps in memory, newest last, and the bytes they may hold together. */
const MEMORY_RECORDS = 1000;
const MEMORY_BYTES = 16 * 1024 * 1024;
/** Records queued between two turns of the event loop before more are dropped. */
const PENDING_RECORDS = 10_000;
/** How long after a failed write the disk is tried again. */
const RETRY_MS = 60_000;
/** Lines wait this long for the disk, so that one write takes every call of the moment: a crash loses at
 *  most this much of the log (docs/gateway.md "Activity"). */
const WRITE_EVERY_MS = 50;
/** How often old files are removed while the gateway runs (also at start and after each rotation). */
const PRUNE_EVERY_MS = 3_600_000;

/** What `GET /v1/activity` and `mcpx activity` read: the records on disk (every writer's), and those not
 *  yet written, newest first. */
export interface ActivityHistory {
  history(filter: ActivityFilter, limit: number): Promise<ActivityRecord[]>;
  /** The record as it is stored and shown outside the editor: no result; arguments per the setting. */
  shown(record: ActivityRecord): ActivityRecord;
}

export interface ActivityLogOptions {
  readonly settings: Settings;
  /** The configured servers, whose secrets are masked (config/redact.ts); read at each record. */
  readonly defs: () => Iterable<ServerDef>;
  /** Secrets of the gateway's own masked too: each listener's endpoint secret. */
  readonly secrets?: () => Iterable<string>;
  readonly log: (line: string) => void;
  /** `<state>/activity` and this process's writer name (files.ts); none: the feed in memory only. */
  readonly file?: { readonly dir: string; readonly writer: string };
  /** A team's replica: the records go to the stream every replica appends to, and are read from it,
   *  instead of a file (gateway/shared.ts; docs/team.md "Activity"). */
  readonly shared?: ActivityStream;
}

export class ActivityLog implements ActivitySink, ActivityFeed, ActivityHistory {
  /** `raw`: its arguments not yet redacted (shape.ts inMemory); they are when it is first read. */
  private readonly memory: Array<{ record: ActivityRecord; bytes: number; raw: boolean }> = [];
  private memoryBytes = 0;
  private readonly listeners = new Set<(r: ActivityRecord) => void>();
  private pending: ActivityRecord[] = [];
  private scheduled = false;
  /** Lines waiting for the disk, and their bytes. */
  private lines: Array<{ text: string; bytes: number }> = [];
  private lineBytes = 0;
  private writing?: Promise<void>;
  /** The next write, while lines wait for it (WRITE_EVERY_MS). */
  private timer?: NodeJS.Timeout;
  /** This writer's file, open for appending from its first write until a rotation, a failure or close. */
  private handle?: FileHandle;
  /** This writer's file's size, once known. */
  private size?: number;
  private dropped = 0;
  private dropReported = false;
  private failed?: { at: number; unwritten: number };
  private lastPrune = 0;
  private closed = false;

  constructor(private readonly o: ActivityLogOptions) {}

  private get enabled(): boolean {
    return !this.closed && this.o.settings.get<boolean>('activity.enabled');
  }
  /** False: a record appended now would be dropped, so the gate need not build one. */
  get recording(): boolean {
    return this.enabled;
  }
  private get mode(): ArgumentsMode {
    return this.o.settings.get<ArgumentsMode>('activity.arguments');
  }
  /** Each file's bound: the file and its rotations together within activity.maxBytes. */
  private get fileBytes(): number {
    return Math.floor(this.o.settings.get<number>('activity.maxBytes') / (ROTATIONS + 1));
  }
  private get oldest(): number {
    return Date.now() - this.o.settings.duration('activity.retention');
  }

  append(record: ActivityRecord): void {
    if (!this.enabled) return;
    if (this.pending.length >= PENDING_RECORDS) return this.drop(1, `${PENDING_RECORDS} records queued`);
    this.pending.push(record);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.process());
  }

  recent(filter: ActivityFilter = {}, limit = MEMORY_RECORDS): readonly ActivityRecord[] {
    this.process();
    const out: ActivityRecord[] = [];
    const redact = this.redactor();
    for (let i = this.memory.length - 1; i >= 0 && out.length < limit; i--) {
      const r = this.readable(this.memory[i]!, redact);
      if (matchesFilter(r, filter, filter.since ?? 0)) out.push(r);
    }
    return out;
  }

  onRecord(listener: (record: ActivityRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async history(filter: ActivityFilter, limit: number): Promise<ActivityRecord[]> {
    if (this.o.shared) return this.o.shared.read(filter, limit, this.oldest);
    const f = this.o.file;
    if (!f) return this.recent(filter, limit).map((r) => this.shown(r));
    await this.flushed();
    // What could not be written (a full disk) is still in memory: shown too, once.
    const onDisk = await readActivity(f.dir, filter, limit, this.oldest);
    if (!this.failed) return onDisk;
    const seen = new Set(onDisk.map((r) => JSON.stringify(r)));
    const extra = this.recent(filter, limit)
      .map((r) => this.shown(r))
      .filter((r) => !seen.has(JSON.stringify(r)));
    return newestFirst([...onDisk, ...extra]).slice(0, limit);
  }

  shown(record: ActivityRecord): ActivityRecord {
    return stored(record, this.mode, this.redactor()) as unknown as ActivityRecord;
  }

  /** Resolves once every record appended so far is written (or given up on). */
  async flushed(): Promise<void> {
    this.process();
    this.startWriting(true);
    while (this.writing) {
      await this.writing;
      this.startWriting(true);
    }
  }

  async close(): Promise<void> {
    await this.flushed();
    this.closed = true;
    this.listeners.clear();
    await this.closeFile();
  }

  private redactor(): (s: string) => string {
    return redactorOf(this.o.defs(), this.o.secrets?.() ?? []);
  }

  /** A kept record as readers see it: its arguments redacted. */
  private readable(e: { record: ActivityRecord; raw: boolean }, redact = this.redactor()): ActivityRecord {
    if (e.raw) {
      e.record = redactedArguments(e.record, redact);
      e.raw = false;
    }
    return e.record;
  }

  /** The queued records shaped: into memory, to the listeners, and to the disk's queue. */
  private process(): void {
    this.scheduled = false;
    if (!this.pending.length) return;
    const batch = this.pending;
    this.pending = [];
    const redact = this.redactor();
    const mode = this.mode;
    const max = this.fileBytes;
    for (const r of batch) {
      const kept = inMemory(r, redact);
      this.memory.push(kept);
      this.memoryBytes += kept.bytes;
      while (this.memory.length > MEMORY_RECORDS || (this.memoryBytes > MEMORY_BYTES && this.memory.length > 1))
        this.memoryBytes -= this.memory.shift()!.bytes;
      if (this.listeners.size) this.readable(kept, redact);
      for (const l of this.listeners) {
        try {
          l(kept.record);
        } catch (e) {
          // A reader's failure is its own: the log and the other readers go on.
          this.o.log(`activity: a reader failed: ${(e as Error).message}`);
        }
      }
      if (this.o.shared) this.o.shared.append(stored(r, mode, redact) as unknown as ActivityRecord);
      if (!this.o.file) continue;
      const line = lineOf(stored(r, mode, redact), max);
      // The queue for the disk holds at most one file's worth (a quarter of activity.maxBytes).
      if (!line) this.drop(1, `a record longer than ${max} bytes (a quarter of activity.maxBytes)`);
      else if (this.lineBytes + line.bytes > max) this.drop(1, `${max} bytes waiting for the disk`);
      else {
        this.lines.push(line);
        this.lineBytes += line.bytes;
      }
    }
    if (!this.o.file) this.recovered();
    this.startWriting(false);
  }

  /** The waiting lines written: now, or after WRITE_EVERY_MS (one write for every call of the moment). */
  private startWriting(now: boolean): void {
    if (this.writing || !this.lines.length) return;
    if (!now) {
      this.timer ??= setTimeout(() => this.startWriting(true), WRITE_EVERY_MS).unref();
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.write().finally(() => {
      this.writing = undefined;
      // What came while writing waits for the next write, not a write of its own at once.
      this.startWriting(false);
    });
  }

  private async closeFile(): Promise<void> {
    const h = this.handle;
    this.handle = undefined;
    await h?.close().catch(() => undefined);
  }

  private drop(n: number, why: string): void {
    this.dropped += n;
    if (this.dropReported) return;
    this.dropReported = true;
    this.o.log(`activity: records dropped (${why}); the count follows once the log catches up`);
  }

  /** Write what is queued now: one write, and more only across a rotation. */
  private async write(): Promise<void> {
    const f = this.o.file!;
    let waiting = this.lines.length;
    while (this.lines.length) {
      if (this.failed && Date.now() - this.failed.at < RETRY_MS) {
        this.failed.unwritten += this.lines.length;
        this.lines = [];
        this.lineBytes = 0;
        return;
      }
      const max = this.fileBytes;
      try {
        if (this.size === undefined || !this.handle) await this.openFile(f.dir, f.writer);
        // As many lines as the file still has room for; the rest after a rotation.
        let take = 0;
        let bytes = 0;
        while (take < this.lines.length && this.size! + bytes + this.lines[take]!.bytes <= max)
          bytes += this.lines[take++]!.bytes;
        if (take === 0) {
          await this.rotate(f.dir, f.writer);
          continue;
        }
        const chunk = this.lines
          .slice(0, take)
          .map((l) => l.text)
          .join('');
        await this.handle!.appendFile(chunk);
        this.lines = this.lines.slice(take);
        this.lineBytes -= bytes;
        this.size! += bytes;
        this.recovered();
        if (Date.now() - this.lastPrune > PRUNE_EVERY_MS) await this.prune(f.dir);
        // The lines that came during the write: a rotation's remainder goes on; new ones wait their turn.
        if (take >= waiting) return;
        waiting -= take;
      } catch (e) {
        await this.closeFile();
        this.failure(e as NodeJS.ErrnoException, fileOf(f.dir, f.writer));
      }
    }
  }

  /** The directory made owner-only, the file's size read, and a torn last line (a crash mid-write) ended
   *  so the next record starts a line of its own. */
  private async openFile(dir: string, writer: string): Promise<void> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    await this.prune(dir);
    const file = fileOf(dir, writer);
    let size = 0;
    try {
      size = (await stat(file)).size;
    } catch {
      // a new file
    }
    await this.closeFile();
    const h = await open(file, 'a+', 0o600);
    try {
      if (size > 0) {
        const last = Buffer.alloc(1);
        await h.read(last, 0, 1, size - 1);
        if (last[0] !== 0x0a) {
          await h.appendFile('\n');
          size++;
        }
      }
    } catch (e) {
      await h.close().catch(() => undefined);
      throw e;
    }
    this.handle = h;
    this.size = size;
  }

  /** The file becomes .1, .1 becomes .2 …, the last rotation is removed. */
  private async rotate(dir: string, writer: string): Promise<void> {
    await this.closeFile();
    await unlink(fileOf(dir, writer, ROTATIONS)).catch(() => undefined);
    for (let i = ROTATIONS - 1; i >= 0; i--)
      await rename(fileOf(dir, writer, i), fileOf(dir, writer, i + 1)).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e;
      });
    this.size = 0;
    await this.prune(dir);
  }

  private async prune(dir: string): Promise<void> {
    this.lastPrune = Date.now();
    await prune(dir, this.oldest);
  }

  /** A write refused: reported once, the queued lines counted as unwritten, the disk tried again later. */
  private failure(e: NodeJS.ErrnoException, file: string): void {
    const unwritten = this.lines.length;
    this.lines = [];
    this.lineBytes = 0;
    this.size = undefined;
    if (this.failed) {
      this.failed.at = Date.now();
      this.failed.unwritten += unwritten;
      return;
    }
    this.failed = { at: Date.now(), unwritten };
    this.o.log(
      `activity: cannot write ${file} (${e.code ?? e.message}); records stay in memory only and the log is tried again every ${RETRY_MS / 1000} s`,
    );
  }

  private recovered(): void {
    if (this.failed) {
      this.o.log(`activity: writing again; ${this.failed.unwritten} record(s) were not written`);
      this.failed = undefined;
    }
    if (this.dropReported && !this.lines.length) {
      this.o.log(`activity: ${this.dropped} record(s) were dropped`);
      this.dropped = 0;
      this.dropReported = false;
    }
  }
}
