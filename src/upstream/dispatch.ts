// Calls to one upstream instance, dispatched fairly across the clients that make them (docs/security.md
// "Bounds", "Fair scheduling"): at most limits.upstreamInflight run on it at once, and past that a call
// waits in its caller identity's own queue (at most limits.upstreamQueuePerIdentity calls), the queues
// served round-robin as running calls end — so one client's backlog costs another client one turn, not
// the whole backlog. An identity with no call running on the upstream is never made to wait: the calls
// running (slow tools, questions waiting for a person) cannot all belong to one client and shut the others
// out. A waiting call whose caller cancels leaves its queue at once; nothing of one identity's queue is
// reachable from another's call.
import type { Settings } from '../config/settings';
import { Counts } from '../kit/counts';
import { McpxError } from '../protocol/errors';
import { type Aborts, listen } from '../wire/abort';

export interface DispatchLimits {
  /** Calls running on the upstream at once before calls wait (limits.upstreamInflight). */
  inflight: number;
  /** Calls one identity may have waiting (limits.upstreamQueuePerIdentity). */
  queuedPerIdentity: number;
}

export const dispatchLimits = (settings: Settings): DispatchLimits => ({
  inflight: settings.get<number>('limits.upstreamInflight'),
  queuedPerIdentity: settings.get<number>('limits.upstreamQueuePerIdentity'),
});

interface Waiter {
  start(): void;
}

export class Dispatch {
  /** Calls running on the upstream, per identity and in total. */
  private readonly running = new Counts();
  /** Each identity's waiting calls, first come first served within it. The map's order is the order the
   *  identities take turns: the one served moves to the back. */
  private readonly waiting = new Map<string, Waiter[]>();

  /** Undefined when the call runs now; else a promise that resolves when it is dispatched, or rejects
   *  with the abort's reason if its caller cancels first. Throws when its identity's queue is full. Every
   *  call that runs ends with exactly one `done(identity)`. */
  enter(server: string, identity: string, limits: DispatchLimits, abort?: Aborts): Promise<void> | undefined {
    if (this.mayRun(identity, limits.inflight)) {
      this.running.add(identity);
      return undefined;
    }
    const queue = this.waiting.get(identity) ?? [];
    if (queue.length >= limits.queuedPerIdentity)
      throw new McpxError(
        'bound.inflight',
        `upstream ${server}: this client has ${queue.length} calls waiting for it (limits.upstreamQueuePerIdentity; ${limits.inflight} calls run on it at once, limits.upstreamInflight); retry when one has been answered`,
      );
    if (abort?.aborted) return Promise.reject(abort.reason);
    this.waiting.set(identity, queue);
    return new Promise((resolve, reject) => {
      let unlisten = (): void => undefined;
      const w: Waiter = {
        start: () => {
          unlisten();
          resolve();
        },
      };
      queue.push(w);
      if (abort)
        unlisten = listen(abort, () => {
          const i = queue.indexOf(w);
          if (i === -1) return;
          queue.splice(i, 1);
          if (queue.length === 0 && this.waiting.get(identity) === queue) this.waiting.delete(identity);
          reject(abort.reason);
        });
      // Room made since (limits.upstreamInflight raised) is used now.
      this.fill(limits.inflight);
    });
  }

  /** A running call of `identity` ended: the next waiting calls are dispatched, a turn each — the
   *  identity's own next first if it now has none running, so that every identity waiting has a call
   *  running. */
  done(identity: string, limits: DispatchLimits): void {
    this.running.remove(identity);
    if (this.running.get(identity) === 0 && this.waiting.has(identity)) this.start(identity);
    this.fill(limits.inflight);
  }

  private fill(inflight: number): void {
    while (this.waiting.size > 0 && this.running.total < inflight)
      this.start(this.waiting.keys().next().value as string);
  }

  private mayRun(identity: string, inflight: number): boolean {
    if (this.running.total < inflight) return this.waiting.size === 0;
    return this.running.get(identity) === 0 && !this.waiting.has(identity);
  }

  /** `identity` starts its oldest waiting call, and goes to the back of the turns. */
  private start(identity: string): void {
    const queue = this.waiting.get(identity)!;
    const w = queue.shift()!;
    this.waiting.delete(identity);
    if (queue.length > 0) this.waiting.set(identity, queue);
    this.running.add(identity);
    w.start();
  }
}
