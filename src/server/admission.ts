// Requests in flight, bounded per identity and in total (docs/security.md "Bounds"): beyond
// limits.inflightPerIdentity a request waits in its identity's own queue, first come first served, and
// starts as one of that identity's requests ends; beyond limits.inflight (running and waiting together)
// a new request is refused. An identity waits only on its own requests, never on another's, so one
// client's flood cannot hold back another client's ping.
import { Counts } from '../kit/counts';
import { McpxError } from '../protocol/errors';
import { type Aborts, listen } from '../wire/abort';

export interface AdmissionLimits {
  perIdentity: number;
  total: number;
}

interface Waiter {
  start(): void;
}

export class Admission {
  private readonly running = new Counts();
  private readonly waiting = new Map<string, Waiter[]>();
  /** Running and waiting, every identity together. */
  private count = 0;

  constructor(private readonly limits: () => AdmissionLimits) {}

  /** Resolves with the release once the request may run; rejects when the gateway is full, or with the
   *  abort reason if `abort` fires while it waits. */
  acquire(identity: string, abort: Aborts): Promise<() => void> {
    const { perIdentity, total } = this.limits();
    if (this.count >= total)
      return Promise.reject(
        new McpxError('bound.inflight', `the gateway is at limits.inflight (${total}) requests in flight; retry`),
      );
    this.count++;
    if (this.running.get(identity) < perIdentity && !this.waiting.has(identity)) {
      this.running.add(identity);
      return Promise.resolve(this.releaser(identity));
    }
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(identity) ?? [];
      this.waiting.set(identity, queue);
      let unlisten = (): void => undefined;
      const onAbort = () => {
        const i = queue.indexOf(w);
        if (i === -1) return;
        queue.splice(i, 1);
        if (queue.length === 0) this.waiting.delete(identity);
        this.count--;
        reject(abort.reason);
      };
      const w: Waiter = {
        start: () => {
          unlisten();
          resolve(this.releaser(identity));
        },
      };
      queue.push(w);
      if (abort.aborted) return onAbort();
      unlisten = listen(abort, onAbort);
    });
  }

  private releaser(identity: string): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.count--;
      const queue = this.waiting.get(identity);
      const next = queue?.shift();
      if (next) {
        // The slot passes to the identity's next request; its running count stays.
        if (queue!.length === 0) this.waiting.delete(identity);
        next.start();
        return;
      }
      this.running.remove(identity);
    };
  }
}
