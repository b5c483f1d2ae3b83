// Requests in flight on one connection: one map id -> pending, ids minted here and never reused, one
// close(cause) that settles everything. Abort listeners are added once and removed on every exit.
import type { Id, Response } from '../protocol/jsonrpc';
import { type Aborts, listen } from './abort';
/** The peer went away: every request in flight is rejected with this. */
export class TransportClosed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransportClosed';
  }
}

interface Pending {
  resolve(r: Response): void;
  reject(e: Error): void;
  cleanup(): void;
}

const noop = (): void => undefined;

export class Correlator {
  private readonly pending = new Map<Id, Pending>();
  private closed?: Error;

  get size(): number {
    return this.pending.size;
  }

  /** Register `id` before the request is written; the promise settles with its response. */
  wait(id: Id, signal?: Aborts): Promise<Response> {
    if (this.closed) return Promise.reject(this.closed);
    return new Promise<Response>((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(id);
        reject(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'));
      };
      if (signal?.aborted) return onAbort();
      const cleanup = signal ? listen(signal, onAbort) : noop;
      this.pending.set(id, {
        resolve: (r) => {
          cleanup();
          resolve(r);
        },
        reject: (e) => {
          cleanup();
          reject(e);
        },
        cleanup,
      });
    });
  }

  /** Route a response; false when nothing waits for its id (late, or never ours). */
  settle(r: Response): boolean {
    if (r.id === undefined) return false;
    const p = this.pending.get(r.id);
    if (!p) return false;
    this.pending.delete(r.id);
    p.resolve(r);
    return true;
  }

  forget(id: Id): void {
    this.pending.get(id)?.cleanup();
    this.pending.delete(id);
  }

  close(cause: Error = new TransportClosed('connection closed')): void {
    if (this.closed) return;
    this.closed = cause;
    for (const p of this.pending.values()) p.reject(cause);
    this.pending.clear();
  }
}
