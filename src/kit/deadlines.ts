// One timer for every deadline: entries fall into slots of `resolutionMs` (a deadline fires up to one slot
// late, never early), and a single unref'd timer is armed for the earliest slot. Cancelling an entry is a
// Set delete; a call that ends before its deadline — nearly all of them — never touches a timer.

interface Deadline {
  /** The deadline will not fire (no effect once it has). */
  cancel(): void;
}

interface Entry {
  fn: () => void;
  slot: number;
}

export class DeadlineWheel {
  private readonly slots = new Map<number, Set<Entry>>();
  /** Slot numbers, a min-heap; a slot emptied by cancels stays here until it is reached, then is skipped. */
  private readonly heap: number[] = [];
  private timer?: NodeJS.Timeout;
  private armedFor?: number;

  constructor(private readonly resolutionMs = 20) {}

  /** Calls `fn` once, `ms` from now (rounded up to the wheel's resolution), unless cancelled first. */
  after(ms: number, fn: () => void): Deadline {
    const slot = Math.ceil((Date.now() + Math.max(0, ms)) / this.resolutionMs);
    const entry: Entry = { fn, slot };
    let set = this.slots.get(slot);
    if (!set) {
      set = new Set();
      this.slots.set(slot, set);
      push(this.heap, slot);
    }
    set.add(entry);
    if (this.armedFor === undefined || slot < this.armedFor) this.arm();
    return { cancel: () => this.cancel(entry) };
  }

  /** Deadlines waiting (a test counts them). */
  get pending(): number {
    let n = 0;
    for (const s of this.slots.values()) n += s.size;
    return n;
  }

  private cancel(entry: Entry): void {
    const set = this.slots.get(entry.slot);
    if (!set?.delete(entry) || set.size) return;
    this.slots.delete(entry.slot);
    if (this.slots.size === 0) this.disarm();
  }

  private arm(): void {
    while (this.heap.length && !this.slots.has(this.heap[0]!)) pop(this.heap);
    this.disarm();
    const next = this.heap[0];
    if (next === undefined) return;
    this.armedFor = next;
    this.timer = setTimeout(() => this.fire(), Math.max(0, next * this.resolutionMs - Date.now()));
    this.timer.unref();
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = undefined;
  }

  private fire(): void {
    this.timer = undefined;
    this.armedFor = undefined;
    const due = Math.floor(Date.now() / this.resolutionMs);
    const fns: Array<() => void> = [];
    while (this.heap.length && this.heap[0]! <= due) {
      const slot = pop(this.heap)!;
      for (const e of this.slots.get(slot) ?? []) fns.push(e.fn);
      this.slots.delete(slot);
    }
    this.arm();
    for (const fn of fns) {
      try {
        fn();
      } catch (e) {
        // A deadline's failure is its own: the others still fire, and this one surfaces as a timer's would.
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }
}

function push(heap: number[], v: number): void {
  heap.push(v);
  for (let i = heap.length - 1; i > 0; ) {
    const p = (i - 1) >> 1;
    if (heap[p]! <= heap[i]!) break;
    [heap[p], heap[i]] = [heap[i]!, heap[p]!];
    i = p;
  }
}

function pop(heap: number[]): number | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length === 0 || last === undefined) return top;
  heap[0] = last;
  for (let i = 0; ; ) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < heap.length && heap[l]! < heap[m]!) m = l;
    if (r < heap.length && heap[r]! < heap[m]!) m = r;
    if (m === i) break;
    [heap[m], heap[i]] = [heap[i]!, heap[m]!];
    i = m;
  }
  return top;
}

/** The process's wheel: the server's eager task window, proto.askTimeout on questions, and whatever else
 *  keeps a deadline per call. */
export const deadlines = new DeadlineWheel();
