// One bounded store keyed by id, counted per identity: background calls, tasks and the broker's questions
// each hold their entries here (docs/security.md "Bounds"). At a bound the new entry is refused; nothing
// held is ever evicted for it, so one client's flood cannot end another's entry. An entry may stop
// counting while it is still held (a task that ended is kept for its result, no longer running). One
// sweeper per store removes what its owner calls stale.
import { Counts } from './counts';

interface StoreBounds {
  /** Counted entries of one identity. */
  perIdentity: number;
  /** Counted entries of every identity together. */
  total: number;
  /** Entries held, counted or not; none: only the counted ones are bounded. */
  held?: number;
}

/** The error each bound refuses `value` with: the owner's words, naming its setting. */
interface StoreRefusals<V> {
  perIdentity(max: number, value: V): Error;
  total(max: number, value: V): Error;
  held?(max: number, value: V): Error;
}

interface StoreOptions<V> {
  bounds: () => StoreBounds;
  refuse: StoreRefusals<V>;
  /** Stale entries leave on each sweep, every `sweepMs` (none: the owner removes its entries itself). */
  sweep?: { everyMs: number; stale(value: V, now: number): boolean; swept?(value: V): void };
}

interface Entry<V> {
  value: V;
  identity: string;
  counted: boolean;
}

export class BoundedStore<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly counts = new Counts();
  private readonly sweeper?: NodeJS.Timeout;

  constructor(private readonly o: StoreOptions<V>) {
    if (o.sweep) {
      this.sweeper = setInterval(() => this.sweep(), o.sweep.everyMs);
      this.sweeper.unref();
    }
  }

  /** Holds `value` under `key` for `identity`, or throws the refusal of the first bound it would pass. */
  add(key: string, identity: string, value: V): void {
    const { perIdentity, total, held } = this.o.bounds();
    if (held !== undefined && this.entries.size >= held) throw this.o.refuse.held!(held, value);
    if (this.counts.total >= total) throw this.o.refuse.total(total, value);
    if (this.counts.get(identity) >= perIdentity) throw this.o.refuse.perIdentity(perIdentity, value);
    this.entries.set(key, { value, identity, counted: true });
    this.counts.add(identity);
  }

  /** The entry stays held but no longer counts against its identity's or the total bound. */
  uncount(key: string): void {
    const e = this.entries.get(key);
    if (!e?.counted) return;
    e.counted = false;
    this.counts.remove(e.identity);
  }

  get(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Removes the entry; its value, if it was held. */
  delete(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    if (e.counted) this.counts.remove(e.identity);
    return e.value;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Counted entries of `identity`. */
  countOf(identity: string): number {
    return this.counts.get(identity);
  }

  values(): V[] {
    return [...this.entries.values()].map((e) => e.value);
  }

  /** Removes every stale entry now (the sweeper calls it; a test may, with its own clock). */
  sweep(now = Date.now()): void {
    const s = this.o.sweep;
    if (!s) return;
    for (const [key, e] of [...this.entries]) {
      if (!s.stale(e.value, now)) continue;
      this.delete(key);
      s.swept?.(e.value);
    }
  }

  /** Stops the sweeper and empties the store; what it held, for the owner to end. */
  close(): V[] {
    clearInterval(this.sweeper);
    const held = this.values();
    this.entries.clear();
    this.counts.clear();
    return held;
  }
}
