// The tasks/* methods, per era (docs/protocol.md "Tasks"): 2025-11-25 core to legacy clients (get, list,
// result, cancel), the extension to 2026-07-28 clients that declared it (get, update, cancel).
import { downgradeResult } from '../protocol/downgrade';
import { invalidParams } from '../protocol/errors';
import { isObject } from '../protocol/jsonrpc';
import { eraOf } from '../protocol/revisions';
import type { ClientRequest } from '../protocol/methods';
import type { HandlerContext, Handlers } from './handlers';
import { paginate } from './paging';
import { META } from '../protocol/meta';
import type { Task } from './tasks';

const modern = (ctx: HandlerContext) => eraOf(ctx.rev) === 'modern';

/** The task named by params.taskId, as this caller may see it. */
const taskOf = (ctx: HandlerContext, taskId: string): Task => ctx.services.tasks.get(taskId, ctx.call.identity);

export const TASK_HANDLERS: Handlers<Extract<ClientRequest, `tasks/${string}`>> = {
  async 'tasks/get'(ctx, params) {
    const task = taskOf(ctx, params.taskId);
    return modern(ctx) ? task.detailedFor(ctx.call.clientCapabilities, ctx.rev) : task.legacyShape();
  },

  /** Only the caller's own tasks, oldest first, a page at a time (2025-11-25 "Listing Tasks"). */
  async 'tasks/list'(ctx, params) {
    const cursor = params.cursor !== '' ? params.cursor : undefined;
    const items = ctx.services.tasks.list(ctx.call.identity).map((t) => t.legacyShape());
    const { page, nextCursor } = paginate(
      'tasks/list',
      items,
      cursor,
      ctx.services.settings.get<number>('mcp.pageSize'),
    );
    return nextCursor === undefined ? { tasks: page } : { tasks: page, nextCursor };
  },

  /** Blocks until the task ends, then answers what the call would have (2025-11-25 "Result Retrieval"),
   *  with the related-task key the result cannot otherwise carry. While it waits, the task's questions may
   *  ride this request's stream (2025-11-25 "Input Required Status"). */
  async 'tasks/result'(ctx, params) {
    const task = taskOf(ctx, params.taskId);
    const leave = ctx.channel ? task.openChannel(ctx.channel) : undefined;
    try {
      await task.settled(ctx.call.signal);
    } finally {
      leave?.();
    }
    // Spelled for the client's revision: a copy (a stored result is handed out more than once).
    const r = downgradeResult('tools/call', task.outcome(), ctx.rev);
    return { ...r, _meta: { ...(isObject(r._meta) ? r._meta : {}), [META.relatedTask]: { taskId: task.id } } };
  },

  /** 2025-11-25: a terminal task is -32602 and the answer is the task, now cancelled. The extension: an
   *  empty acknowledgement, on a finished task too (docs/protocol.md "Tasks": a cancelled task stays
   *  cancelled in both eras). */
  async 'tasks/cancel'(ctx, params) {
    const task = taskOf(ctx, params.taskId);
    const done = task.cancel('cancelled by the client');
    if (modern(ctx)) return {};
    if (!done) throw invalidParams(`Invalid params: task ${task.id} has already ended (${task.status})`);
    return task.legacyShape();
  },

  /** Answers key by key: an answered key leaves inputRequests before the acknowledgement; a key not
   *  outstanding is ignored (tasks extension "Task Update Requests"). */
  async 'tasks/update'(ctx, params) {
    const task = taskOf(ctx, params.taskId);
    task.call.deliver(params.inputResponses, false);
    return {};
  },
};
