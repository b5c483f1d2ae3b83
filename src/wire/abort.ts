// An abort that builds no AbortSignal until something needs one. Node 20 spends ~5 us creating an
// AbortSignal (an EventTarget given another prototype: a map migration each time) and ~1 us on each
// addEventListener/removeEventListener pair; a forwarded call used to create two and listen on both.
// Code that only asks "aborted?" or wants a callback uses `aborted`, `reason` and `listen()`; code that
// hands a signal to a platform API (fetch, AbortSignal.any) reads `signal`, which is then built and
// follows this abort from that moment (already aborted if it is).

/** Either kind of abort a caller may hand down: both have `aborted` and `reason`; `listen()` subscribes. */
export type Aborts = AbortSignal | Abort;

export class Abort {
  aborted = false;
  reason: unknown = undefined;
  private ctl?: AbortController;
  private listeners?: Array<(reason: unknown) => void>;

  /** A real AbortSignal, built on first use. */
  get signal(): AbortSignal {
    if (!this.ctl) {
      this.ctl = new AbortController();
      if (this.aborted) this.ctl.abort(this.reason);
    }
    return this.ctl.signal;
  }

  /** Like AbortController.abort: once; the reason defaults to the same AbortError. */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const ls = this.listeners;
    this.listeners = undefined;
    if (ls) for (const fn of ls) fn(reason);
    this.ctl?.abort(reason);
  }

  /** Calls `fn` when aborted (not if already aborted: check `aborted` first, as with a signal). */
  onAbort(fn: (reason: unknown) => void): () => void {
    if (this.aborted) return noop;
    (this.listeners ??= []).push(fn);
    return () => {
      const ls = this.listeners;
      const i = ls ? ls.indexOf(fn) : -1;
      if (i >= 0) ls!.splice(i, 1);
    };
  }
}

const noop = (): void => undefined;

/** Calls `fn` once when `src` aborts; the returned function removes it. */
export function listen(src: Aborts, fn: () => void): () => void {
  if (src instanceof Abort) return src.onAbort(fn);
  src.addEventListener('abort', fn, { once: true });
  return () => src.removeEventListener('abort', fn);
}

/** The AbortSignal of either kind (built now for an Abort). */
export function signalOf(src: Aborts): AbortSignal;
export function signalOf(src: Aborts | undefined): AbortSignal | undefined;
export function signalOf(src: Aborts | undefined): AbortSignal | undefined {
  return src instanceof Abort ? src.signal : src;
}
