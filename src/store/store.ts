// The one store interface (docs/team.md "The store"): what a team's replicas share, and what one person's
// gateway keeps in its state directory — key-value with expiry and compare-and-set, append-only streams,
// publish/subscribe. Two implementations: files (files.ts) and Redis (src/redis/, its own bundle). Every
// value is a string; a caller that keeps JSON says so where it reads it.

/** An entry of a stream: its id (`<ms>-<seq>`, increasing) and its value. */
export interface StreamEntry {
  readonly id: string;
  readonly value: string;
}

export interface SetOptions {
  /** Gone after this long (ms); none: kept until deleted. */
  readonly ttlMs?: number;
  /** Set only when the key holds nothing now. */
  readonly ifAbsent?: boolean;
}

export interface RangeOptions {
  /** Entries strictly after this id (oldest first) or strictly before it (newestFirst). */
  readonly after?: string;
  readonly before?: string;
  readonly limit: number;
  readonly newestFirst?: boolean;
}

export interface Store {
  /** `files` or `redis`: said in logs and /ready, never branched on by a caller. */
  readonly kind: string;
  /** What the store is, for a log line: never a password. */
  readonly where: string;

  get(key: string): Promise<string | undefined>;
  /** False when `ifAbsent` found the key taken. */
  set(key: string, value: string, o?: SetOptions): Promise<boolean>;
  /** Replace `expected` (undefined: the key holds nothing) by `next` (undefined: delete it), atomically
   *  with respect to every other writer of the store; false, and nothing written, when the key holds
   *  something else. */
  cas(key: string, expected: string | undefined, next: string | undefined, o?: { ttlMs?: number }): Promise<boolean>;
  del(key: string): Promise<boolean>;
  /** The keys that start with `prefix` (not yet expired), in no order. */
  keys(prefix: string): Promise<string[]>;

  /** Appends `value` to `stream`; the stream keeps about its newest `maxLen` entries. The new entry's id. */
  append(stream: string, value: string, o?: { maxLen?: number }): Promise<string>;
  range(stream: string, o: RangeOptions): Promise<StreamEntry[]>;

  /** Told to every subscriber of `channel`, in every process on the store, at most once each; none who
   *  is not subscribed now hears it later. */
  publish(channel: string, message: string): Promise<void>;
  /** `fn` hears each message published on `channel` from now on; the returned function stops it. */
  subscribe(channel: string, fn: (message: string) => void): Promise<() => Promise<void>>;

  /** Whether the store answers now. */
  readonly up: boolean;
  /** Told when the store goes away (false) and comes back (true): a replica re-announces itself. */
  onUp(fn: (up: boolean) => void): () => void;
  close(): Promise<void>;
}

/** A store that cannot be reached or refused a command: the message names the store, never a secret. */
export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreError';
  }
}

/** JSON read back from the store: undefined for nothing, or for a value that is not JSON (a hand-made
 *  key, a torn write). */
export function parseJson<T>(text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** Stream ids compared as `<ms>-<seq>`. */
export function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am - bm || as - bs;
}
