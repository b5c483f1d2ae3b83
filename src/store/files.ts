// The store on local files (docs/team.md "The store"): one owner-only directory — `kv/` a file per key
// (its value and expiry, replaced whole through a rename), `streams/` a JSON-lines file per stream,
// `bus/` a JSON-lines file per channel that every process on the directory tails. Compare-and-set and
// appends take a lock file per key (O_EXCL; one left by a dead process is broken after LOCK_STALE_MS),
// so several processes on one directory agree. For one machine: a team's replicas use Redis.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import { appendFile, open, readFile, readdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type RangeOptions, type SetOptions, type Store, StoreError, type StreamEntry, compareIds } from './store';

/** A lock older than this was left by a process that died holding it. */
const LOCK_STALE_MS = 10_000;
/** How long a writer waits for a lock before the operation fails. */
const LOCK_WAIT_MS = 10_000;
/** How often a subscriber looks for new messages from other processes. */
const POLL_MS = 50;
/** A channel's file past this is started afresh (what is in it was heard already). */
const BUS_BYTES = 1024 * 1024;

/** A key as a file name: nothing that is a path or hidden. */
const enc = (key: string): string =>
  encodeURIComponent(key).replace(/[.*!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const dec = (name: string): string => decodeURIComponent(name);

interface KvFile {
  v: string;
  exp?: number;
}

export class FileStore implements Store {
  readonly kind = 'files';
  readonly up = true;
  /** This instance's messages are not heard back from the bus file (they were delivered at once). */
  private readonly origin = randomBytes(8).toString('hex');
  private readonly local = new Map<string, Set<(m: string) => void>>();
  private readonly pollers = new Map<string, { timer: NodeJS.Timeout; offset: number; rest: string }>();
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly tails = new Map<string, { size: number; last: string; count: number }>();
  private closed = false;

  constructor(readonly dir: string) {
    for (const d of ['', 'kv', 'streams', 'bus', 'locks']) {
      mkdirSync(join(dir, d), { recursive: true, mode: 0o700 });
      chmodSync(join(dir, d), 0o700);
    }
  }

  get where(): string {
    return `files at ${this.dir}`;
  }

  onUp(): () => void {
    return () => undefined;
  }

  // ---- key-value

  async get(key: string): Promise<string | undefined> {
    return (await this.read(key))?.v;
  }

  async set(key: string, value: string, o: SetOptions = {}): Promise<boolean> {
    return this.locked(`kv/${key}`, async () => {
      if (o.ifAbsent && (await this.read(key)) !== undefined) return false;
      await this.write(key, value, o.ttlMs);
      return true;
    });
  }

  async cas(key: string, expected: string | undefined, next: string | undefined, o: { ttlMs?: number } = {}) {
    return this.locked(`kv/${key}`, async () => {
      if ((await this.read(key))?.v !== expected) return false;
      if (next === undefined) await unlink(this.kvFile(key)).catch(() => undefined);
      else await this.write(key, next, o.ttlMs);
      return true;
    });
  }

  async del(key: string): Promise<boolean> {
    return this.locked(`kv/${key}`, async () => {
      const had = (await this.read(key)) !== undefined;
      await unlink(this.kvFile(key)).catch(() => undefined);
      return had;
    });
  }

  async keys(prefix: string): Promise<string[]> {
    const out: string[] = [];
    for (const name of await readdir(join(this.dir, 'kv'))) {
      if (name.endsWith('.tmp')) continue;
      const key = dec(name);
      if (key.startsWith(prefix) && (await this.read(key)) !== undefined) out.push(key);
    }
    return out;
  }

  private kvFile(key: string): string {
    return join(this.dir, 'kv', enc(key));
  }

  /** The key's value, or undefined when it has none or it expired (an expired file is left for the next
   *  writer: removing it here could remove a value written since). */
  private async read(key: string): Promise<KvFile | undefined> {
    let text: string;
    try {
      text = await readFile(this.kvFile(key), 'utf8');
    } catch {
      return undefined;
    }
    try {
      const f = JSON.parse(text) as KvFile;
      if (typeof f.v !== 'string' || (f.exp !== undefined && f.exp <= Date.now())) return undefined;
      return f;
    } catch {
      return undefined;
    }
  }

  private async write(key: string, value: string, ttlMs?: number): Promise<void> {
    const file = this.kvFile(key);
    const tmp = `${file}.${this.origin}.tmp`;
    const body: KvFile = ttlMs === undefined ? { v: value } : { v: value, exp: Date.now() + ttlMs };
    await writeFile(tmp, JSON.stringify(body), { mode: 0o600 });
    await rename(tmp, file);
  }

  // ---- streams

  async append(stream: string, value: string, o: { maxLen?: number } = {}): Promise<string> {
    return this.locked(`stream/${stream}`, async () => {
      const file = this.streamFile(stream);
      const tail = await this.tailOf(stream);
      const [ms, seq] = tail.last.split('-').map(Number) as [number, number];
      const now = Date.now();
      const id = now > ms ? `${now}-0` : `${ms}-${seq + 1}`;
      const line = `${JSON.stringify({ id, v: value })}\n`;
      await appendFile(file, line, { mode: 0o600 });
      tail.size += Buffer.byteLength(line);
      tail.last = id;
      tail.count++;
      const max = o.maxLen;
      // Trimmed like Redis's MAXLEN ~: now and then, to the newest maxLen.
      if (max !== undefined && tail.count > max + Math.max(16, max >> 2)) {
        const kept = (await this.entries(stream)).slice(-max);
        const text = kept.map((e) => `${JSON.stringify({ id: e.id, v: e.value })}\n`).join('');
        const tmp = `${file}.${this.origin}.tmp`;
        await writeFile(tmp, text, { mode: 0o600 });
        await rename(tmp, file);
        this.tails.set(stream, { size: Buffer.byteLength(text), last: id, count: kept.length });
      }
      return id;
    });
  }

  async range(stream: string, o: RangeOptions): Promise<StreamEntry[]> {
    let all = await this.entries(stream);
    if (o.after !== undefined) all = all.filter((e) => compareIds(e.id, o.after!) > 0);
    if (o.before !== undefined) all = all.filter((e) => compareIds(e.id, o.before!) < 0);
    return o.newestFirst ? all.slice(-o.limit).reverse() : all.slice(0, o.limit);
  }

  private streamFile(stream: string): string {
    return join(this.dir, 'streams', `${enc(stream)}.jsonl`);
  }

  /** The stream's last id and length, read again when another process wrote since. */
  private async tailOf(stream: string): Promise<{ size: number; last: string; count: number }> {
    const size = await stat(this.streamFile(stream)).then(
      (s) => s.size,
      () => 0,
    );
    const known = this.tails.get(stream);
    if (known && known.size === size) return known;
    const all = await this.entries(stream);
    const t = { size, last: all.at(-1)?.id ?? '0-0', count: all.length };
    this.tails.set(stream, t);
    return t;
  }

  private async entries(stream: string): Promise<StreamEntry[]> {
    let text: string;
    try {
      text = await readFile(this.streamFile(stream), 'utf8');
    } catch {
      return [];
    }
    const out: StreamEntry[] = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        const e = JSON.parse(line) as { id?: unknown; v?: unknown };
        if (typeof e.id === 'string' && typeof e.v === 'string') out.push({ id: e.id, value: e.v });
      } catch {
        // a torn last line (a crash mid-write): skipped
      }
    }
    return out;
  }

  // ---- publish/subscribe

  async publish(channel: string, message: string): Promise<void> {
    for (const fn of this.local.get(channel) ?? []) setImmediate(() => fn(message));
    const file = this.busFile(channel);
    await appendFile(file, `${JSON.stringify({ o: this.origin, m: message })}\n`, { mode: 0o600 });
    const size = (await stat(file)).size;
    if (size > BUS_BYTES) await unlink(file).catch(() => undefined);
  }

  async subscribe(channel: string, fn: (message: string) => void): Promise<() => Promise<void>> {
    const set = this.local.get(channel) ?? new Set();
    set.add(fn);
    this.local.set(channel, set);
    if (!this.pollers.has(channel)) await this.poll(channel);
    return async () => {
      set.delete(fn);
      if (set.size) return;
      this.local.delete(channel);
      clearInterval(this.pollers.get(channel)?.timer);
      this.pollers.delete(channel);
    };
  }

  private busFile(channel: string): string {
    return join(this.dir, 'bus', `${enc(channel)}.jsonl`);
  }

  /** Tails the channel's file from its end now: what other processes publish from here on. */
  private async poll(channel: string): Promise<void> {
    const file = this.busFile(channel);
    const size = async () =>
      stat(file).then(
        (s) => s.size,
        () => 0,
      );
    const p = { timer: undefined as unknown as NodeJS.Timeout, offset: await size(), rest: '' };
    let busy = false;
    p.timer = setInterval(() => {
      if (busy) return;
      busy = true;
      void this.readBus(file, p, channel).finally(() => (busy = false));
    }, POLL_MS);
    p.timer.unref();
    this.pollers.set(channel, p);
  }

  private async readBus(file: string, p: { offset: number; rest: string }, channel: string): Promise<void> {
    const size = await stat(file).then(
      (s) => s.size,
      () => 0,
    );
    // Started afresh (BUS_BYTES): read it from its start.
    if (size < p.offset) {
      p.offset = 0;
      p.rest = '';
    }
    if (size === p.offset) return;
    const h = await open(file, 'r').catch(() => undefined);
    if (!h) return;
    try {
      const buf = Buffer.alloc(size - p.offset);
      await h.read(buf, 0, buf.length, p.offset);
      p.offset = size;
      const lines = (p.rest + buf.toString('utf8')).split('\n');
      p.rest = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const e = JSON.parse(line) as { o?: unknown; m?: unknown };
          if (e.o === this.origin || typeof e.m !== 'string') continue;
          for (const fn of this.local.get(channel) ?? []) fn(e.m);
        } catch {
          // not a message: skipped
        }
      }
    } finally {
      await h.close();
    }
  }

  // ---- locks

  /** `fn` alone on `name`: in this process (a promise chain) and across processes (a lock file). */
  private locked<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.chains.get(name) ?? Promise.resolve();
    const run = prev.then(
      () => this.withLockFile(name, fn),
      () => this.withLockFile(name, fn),
    );
    const settled = run.catch(() => undefined);
    this.chains.set(name, settled);
    void settled.then(() => {
      if (this.chains.get(name) === settled) this.chains.delete(name);
    });
    return run;
  }

  private async withLockFile<T>(name: string, fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreError(`the store (${this.where}) is closed`);
    const lock = join(this.dir, 'locks', `${enc(name)}.lock`);
    const until = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        await (await open(lock, 'wx', 0o600)).close();
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const age = await stat(lock).then(
          (s) => Date.now() - s.mtimeMs,
          () => 0,
        );
        if (age > LOCK_STALE_MS) await unlink(lock).catch(() => undefined);
        else if (Date.now() > until) throw new StoreError(`the store (${this.where}) is locked: ${name}`);
        else await new Promise((r) => setTimeout(r, 2));
      }
    }
    try {
      return await fn();
    } finally {
      await unlink(lock).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.pollers.values()) clearInterval(p.timer);
    this.pollers.clear();
    this.local.clear();
  }
}
