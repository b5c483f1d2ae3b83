// An append-only journal of keyed records in one owner-only file (JSON lines): each line is a record's
// new fields, merged over what the key held; a line `{ "id", "gone": true }` ends the key. The live
// records are rewritten (compacted) at open and whenever the file holds more than twice their number of
// lines plus `slack`, so the file stays bounded by what its owner keeps. Each line is one write of a whole
// line (O_APPEND); a crash mid-write can leave only the last line torn, which is skipped when read. No
// fsync: a record lost to a power cut is a task lost, never a journal that fails to load
// (docs/security.md "The task journal").
import { appendFileSync, chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export type JournalRecord = { id: string } & Record<string, unknown>;

export interface JournalOptions {
  /** Told what was skipped or moved aside (never a record's content). */
  log?: (line: string) => void;
  /** Lines allowed beyond twice the live records before the file is compacted. */
  slack?: number;
  /** A record the owner no longer wants at open (expired): dropped from the compacted file. */
  expired?: (r: JournalRecord) => boolean;
}

/** The journal at `file`; its live records are read (and the file compacted) when it opens. */
export class Journal {
  private readonly live = new Map<string, JournalRecord>();
  private lines = 0;
  private closed = false;
  private readonly slack: number;

  constructor(
    readonly file: string,
    private readonly o: JournalOptions = {},
  ) {
    this.slack = o.slack ?? 64;
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    chmodSync(dirname(file), 0o700);
    this.load();
    this.compact();
  }

  /** The live records at open, oldest first. */
  records(): JournalRecord[] {
    return [...this.live.values()];
  }

  /** Records `fields` of `id` (a new key, or new fields of one held). */
  put(id: string, fields: Record<string, unknown>): void {
    if (this.closed) return;
    const r = { ...this.live.get(id), ...fields, id };
    this.live.set(id, r);
    this.write({ ...fields, id });
  }

  /** Ends `id`: it is not read back. */
  drop(id: string): void {
    if (this.closed || !this.live.delete(id)) return;
    this.write({ id, gone: true });
  }

  /** Nothing more is written (the owner stops; what is running now is read back as it was last written). */
  close(): void {
    this.closed = true;
  }

  private write(line: JournalRecord): void {
    try {
      appendFileSync(this.file, `${JSON.stringify(line)}\n`, { mode: 0o600 });
      this.lines++;
    } catch (e) {
      this.o.log?.(`mcpx: cannot write the journal ${this.file}: ${(e as Error).message}`);
      return;
    }
    if (this.lines > 2 * this.live.size + this.slack) this.compact();
  }

  /** Rewrites the file with only the live records: a new file renamed over the old, so a crash leaves
   *  either one whole. */
  private compact(): void {
    const tmp = `${this.file}.tmp`;
    try {
      writeFileSync(tmp, [...this.live.values()].map((r) => `${JSON.stringify(r)}\n`).join(''), { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, this.file);
      this.lines = this.live.size;
    } catch (e) {
      this.o.log?.(`mcpx: cannot compact the journal ${this.file}: ${(e as Error).message}`);
    }
  }

  private load(): void {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      this.moveAside(`cannot read it (${(e as Error).message})`);
      return;
    }
    const lines = text.split('\n');
    // The text after the last newline is a line cut short by a crash (or nothing).
    const torn = lines.pop() ?? '';
    if (torn !== '') this.o.log?.(`mcpx: the journal ${this.file} ends in a torn record (a crash mid-write); skipped`);
    for (const [i, line] of lines.entries()) {
      if (line === '') continue;
      const r = parseRecord(line);
      if (!r) {
        this.live.clear();
        this.moveAside(`line ${i + 1} is not a record`);
        return;
      }
      if (r.gone === true) this.live.delete(r.id);
      else this.live.set(r.id, { ...this.live.get(r.id), ...r });
    }
    for (const [id, r] of this.live) if (this.o.expired?.(r)) this.live.delete(id);
  }

  private moveAside(why: string): void {
    const aside = `${this.file}.unreadable-${Date.now()}`;
    try {
      renameSync(this.file, aside);
      this.o.log?.(`mcpx: the journal ${this.file} is unreadable (${why}); moved aside to ${aside}, starting empty`);
    } catch (e) {
      this.o.log?.(
        `mcpx: the journal ${this.file} is unreadable (${why}) and cannot be moved aside: ${(e as Error).message}`,
      );
    }
  }
}

function parseRecord(line: string): JournalRecord | undefined {
  try {
    const v: unknown = JSON.parse(line);
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { id?: unknown }).id === 'string')
      return v as JournalRecord;
  } catch {
    // not JSON: the caller says so
  }
  return undefined;
}
