// 2026-07-28 background calls a client abandoned, on /v1/tasks beside its tasks (docs/security.md "Tasks
// belong to their owner"): a call that asked (input_required) and has no request waiting on it now — its
// client may never retry — listed to its owner, shown with its result once it has one, and cancelled
// there. Owner-only: a call is reached by the identity that made it, never by its id alone; another
// identity is told 404, the same as a call that never existed.
import type { JsonObject } from '../protocol/jsonrpc';
import type { BackgroundCall } from '../server/mrtr';

/** The server's store of background calls (server/mrtr.ts BackgroundCalls), as /v1/tasks uses it. */
export interface BackgroundBoard {
  list(): BackgroundCall[];
  get(id: string): BackgroundCall | undefined;
  cancel(id: string, reason?: string): boolean;
}

/** Asked, and nobody waits on it now: what its client left behind (until proto.askTTL sweeps it). */
const abandoned = (c: BackgroundCall): boolean => c.rounds > 0 && c.attached === 0;

/** `caller`'s abandoned calls, oldest first; every identity's for undefined (tasks.adminAccess). */
export function abandonedOf(board: BackgroundBoard, caller: string | undefined): BackgroundCall[] {
  return board.list().filter((c) => abandoned(c) && (caller === undefined || c.identity === caller));
}

/** The abandoned call `id` if `caller` owns it (any, for undefined). */
export function ownedCall(board: BackgroundBoard, id: string, caller: string | undefined): BackgroundCall | undefined {
  const c = board.get(id);
  return c && abandoned(c) && (caller === undefined || c.identity === caller) ? c : undefined;
}

/** Its status in a task's words (tasks.ts TaskStatus). */
const STATUS = {
  'waiting for input': 'input_required',
  running: 'working',
  completed: 'completed',
  failed: 'failed',
} as const;

/** One call as /v1/tasks shows a task (routes.ts rowOf), `kind` saying which it is. Never its identity. */
export function callRow(c: BackgroundCall): JsonObject {
  const p = c.progress;
  const o = c.finished;
  return {
    id: c.id,
    kind: 'background',
    label: c.label,
    client: null,
    era: 'modern',
    status: STATUS[c.status],
    statusMessage:
      o?.error !== undefined ? messageOf(o.error) : c.asking ? 'waiting for a retry with its answers' : null,
    createdAt: new Date(c.startedAt).toISOString(),
    updatedAt: new Date(c.finishedAt ?? c.detachedAt).toISOString(),
    progress: p ? (p.total === undefined ? { progress: p.progress } : { progress: p.progress, total: p.total }) : null,
  };
}

/** The row, with the result once it has one (collected here: its client never came back for it), or the
 *  questions it waits on. */
export function callDetail(c: BackgroundCall): JsonObject {
  const row = callRow(c);
  const o = c.finished;
  if (o?.result) row.result = o.result;
  if (o?.error !== undefined) row.error = { message: messageOf(o.error) };
  if (!o && c.asking) row.inputRequests = c.inputRequests();
  return row;
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));
