// The tasks/* methods, per era (docs/protocol.md "Tasks"): 2025-11-25 core to legacy clients (get, list,
// result, cancel), the extension to 2026-07-28 clients that declared it (get, update, cancel) — the
// request's codec says which answer its era gets. The extension's declaration is checked by the pipeline
// (the descriptors' needsTasksExtension), before the params.
import { downgradeResult } from '../protocol/downgrade';
import { isObject } from '../protocol/jsonrpc';
import { META } from '../protocol/meta';
import { callerDeclares } from '../protocol/questions';
import type { ClientRequest } from '../protocol/methods';
import type { ServerCall } from './call';
import type { Handlers } from './handlers';
import { paginate } from './paging';
import { openChannel } from './taskChannels';
import type { Task } from './tasks';

/** The task named by params.taskId, as this caller may see it (one a stopped replica of the team left,
 *  taken in first). */
const taskOf = async (call: ServerCall, taskId: string): Promise<Task> => {
  const tasks = call.services.tasks;
  if (tasks.adopt && !tasks.find(taskId)) await tasks.adopt(taskId);
  return tasks.get(taskId, call.identity);
};

export const TASK_HANDLERS: Handlers<Extract<ClientRequest, `tasks/${string}`>> = {
  async 'tasks/get'(call, { taskId }) {
    return call.codec.tasks.get((await taskOf(call, taskId)).view(), call.rev, (m, p) => callerDeclares(call, m, p));
  },

  /** Only the caller's own tasks, oldest first, a page at a time (2025-11-25 "Listing Tasks"). */
  async 'tasks/list'(call, { cursor }) {
    const items = call.services.tasks.list(call.identity).map((t) => t.shape(call.codec));
    const { page, nextCursor } = paginate(
      'tasks/list',
      items,
      cursor !== '' ? cursor : undefined,
      call.services.settings.get<number>('mcp.pageSize'),
    );
    return nextCursor === undefined ? { tasks: page } : { tasks: page, nextCursor };
  },

  /** Blocks until the task ends, then answers what the call would have (2025-11-25 "Result Retrieval"),
   *  with the related-task key the result cannot otherwise carry. While it waits, the task's questions may
   *  ride this request's stream (2025-11-25 "Input Required Status"). */
  async 'tasks/result'(call, { taskId }) {
    const task = await taskOf(call, taskId);
    const leave = call.channel ? openChannel(task, call.channel) : undefined;
    try {
      await task.settled(call.signal);
    } finally {
      leave?.();
    }
    // Spelled for the client's revision, and copied to carry the task: a stored result is handed out
    // more than once, never edited.
    const r = downgradeResult('tools/call', task.outcome(), call.rev);
    return { ...r, _meta: { ...(isObject(r._meta) ? r._meta : {}), [META.relatedTask]: { taskId: task.id } } };
  },

  /** 2025-11-25: a terminal task is -32602 and the answer is the task, now cancelled. The extension: an
   *  empty acknowledgement, on a finished task too (docs/protocol.md "Tasks": a cancelled task stays
   *  cancelled in both eras). */
  async 'tasks/cancel'(call, { taskId }) {
    const task = await taskOf(call, taskId);
    const done = task.cancel('cancelled by the client');
    return call.codec.tasks.cancel(task.view(), done);
  },

  /** Answers key by key: an answered key leaves inputRequests before the acknowledgement; a key not
   *  outstanding is ignored (tasks extension "Task Update Requests"). */
  async 'tasks/update'(call, { taskId, inputResponses }) {
    (await taskOf(call, taskId)).call.deliver(inputResponses, false);
    return {};
  },
};
