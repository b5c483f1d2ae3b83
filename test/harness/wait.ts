// Waiting in tests (docs/style.md "Tests"): for the condition a test waits for, never for a fixed time.
// `until` checks a predicate until it holds; `stays` checks that one keeps holding through a window — the
// one wait bounded by time on purpose, for a test that asserts something does not happen.
import assert from 'node:assert/strict';

export interface UntilOptions {
  /** What is awaited, named in the failure (default: the predicate's source). */
  what?: string;
  /** How long at most, in ms: a bound for a failing test, never a measurement. */
  timeout?: number;
  /** How often to check, in ms. */
  every?: number;
}

type Maybe<T> = T | undefined | null | false;

/** Resolves with the predicate's first truthy value (it may be async); fails after `timeout` naming `what`. */
export async function until<T>(pred: () => Maybe<T> | Promise<Maybe<T>>, o: UntilOptions = {}): Promise<T> {
  const { timeout = 20_000, every = 20 } = o;
  const end = Date.now() + timeout;
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > end) assert.fail(`not within ${timeout} ms: ${o.what ?? sourceOf(pred)}`);
    await tick(every);
  }
}

/** Resolves with the first value `get` returns that `done` accepts (a task polled until it ends); `get` is
 *  usually a request, so it is asked every 100 ms unless told. */
export function untilValue<T>(get: () => Promise<T>, done: (v: T) => boolean, o: UntilOptions = {}): Promise<T> {
  const checks = { what: 'a value accepted', every: 100, ...o };
  return until(async () => {
    const v = await get();
    return done(v) ? { v } : undefined;
  }, checks).then((r) => r.v);
}

export interface StaysOptions {
  /** The window, in ms, through which the predicate must hold at every check. */
  for: number;
  /** What must keep holding, named in the failure (default: the predicate's source). */
  what?: string;
  every?: number;
}

/** Resolves once `pred` held at every check through `for` ms; fails the first time it does not. */
export async function stays(pred: () => unknown, o: StaysOptions): Promise<void> {
  const end = Date.now() + o.for;
  for (;;) {
    if (!(await pred())) assert.fail(`stopped holding: ${o.what ?? sourceOf(pred)}`);
    if (Date.now() >= end) return;
    await tick(o.every ?? 20);
  }
}

/** One turn of the event loop: what is already queued runs, and no time is waited for. */
export const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

const tick = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const sourceOf = (f: () => unknown): string => f.toString().replace(/\s+/g, ' ').slice(0, 160);
