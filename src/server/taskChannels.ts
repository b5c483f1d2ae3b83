// Requests a legacy client has open that can carry a client-directed task's questions: the stdio pipe of
// the request that started it, or a tasks/result stream (2025-11-25 "Input Required Status"). Kept beside
// the task, not in it: a task is the store's, a channel is a request's.
import { deadlines } from '../kit/deadlines';
import type { ServerCall } from './call';
import type { Task } from './tasks';

interface Open {
  calls: Set<ServerCall>;
  waiters: Set<() => void>;
}
const open = new WeakMap<Task, Open>();
const of = (task: Task): Open => {
  let o = open.get(task);
  if (!o) open.set(task, (o = { calls: new Set(), waiters: new Set() }));
  return o;
};

/** `call` can carry `task`'s questions while it is open; the returned function closes it. */
export function openChannel(task: Task, call: ServerCall): () => void {
  const o = of(task);
  o.calls.add(call);
  const waiters = o.waiters;
  o.waiters = new Set();
  for (const w of waiters) w();
  return () => o.calls.delete(call);
}

/** An open channel of `task`, waiting for one up to `ms` (a client polls, sees input_required, then calls
 *  tasks/result); undefined if none opens in time. */
export async function channelOf(task: Task, ms: number, signal: AbortSignal): Promise<ServerCall | undefined> {
  const o = of(task);
  const deadline = Date.now() + ms;
  for (;;) {
    for (const c of o.calls) if (!c.request.aborted) return c;
    const left = deadline - Date.now();
    if (left <= 0 || signal.aborted) return undefined;
    await new Promise<void>((resolve) => {
      const done = () => {
        timer.cancel();
        signal.removeEventListener('abort', done);
        o.waiters.delete(done);
        resolve();
      };
      const timer = deadlines.after(left, done);
      signal.addEventListener('abort', done, { once: true });
      o.waiters.add(done);
    });
  }
}
