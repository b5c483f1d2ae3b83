// Which tools/call becomes a task, per the request's codec (docs/protocol.md "Tasks"):
// - server-directed (the 2026-07-28 extension), only for a client that declared it on the request; by the
//   tool's execution.taskSupport — the eager window for "optional"/"required", protoMessages.taskAfter
//   for a tool that declared nothing (never for a client that can answer questions inline), never for
//   "forbidden"; "required" without the extension is -32021 before anything runs. The window runs in the
//   background round (background.ts); `promote` makes the task.
// - client-directed (2025-11-25 core, honoured from any legacy client): by the `task` field; the task
//   strategy answers CreateTaskResult at once and runs the call in the background.
import { CODES, ProtocolError } from '../../protocol/errors';
import { type JsonObject, isObject, notificationMsg } from '../../protocol/jsonrpc';
import { META } from '../../protocol/meta';
import { UnsayableQuestion } from '../../protocol/questions';
import { TASK_STATUS_NOTIFICATION, hasField, inSpan } from '../../protocol/revisions';
import type { ServerCall } from '../call';
import { BackgroundCall, labelOf } from '../mrtr';
import { type Asking, askOnChannel } from '../questions';
import { channelOf } from '../taskChannels';
import { EAGER_WINDOW_MS, type Task, extensionRequired } from '../tasks';
import { runInBackground } from './work';

/** Questions a client answers inline when it declared them: such a client is never handed a task for a
 *  tool that declared no task support (docs/protocol.md "Tasks"). */
const INLINE_ANSWERS = ['elicitation', 'sampling'];

const toolName = (call: ServerCall): string => JSON.stringify(call.tool?.name ?? '');

/** A server-directed tools/call: its eager window (`ms` none: only its upstream making it a task ends
 *  it), or undefined when it never becomes a task. */
export function taskWindow(call: ServerCall): { ms?: number } | undefined {
  if (call.method !== 'tools/call' || !call.services.provider.capabilities().tasks) return undefined;
  const caps = call.clientCapabilities;
  const ext = call.codec.tasks.declared(caps);
  const support = call.tool?.taskSupport;
  if (support === 'required' && !ext)
    throw extensionRequired(`tool ${toolName(call)} runs only as a task (execution.taskSupport "required")`);
  if (!ext || support === 'forbidden') return undefined;
  if (support) return { ms: EAGER_WINDOW_MS };
  const inline = INLINE_ANSWERS.some((k) => k in caps);
  return { ms: inline ? undefined : call.services.settings.duration('protoMessages.taskAfter') };
}

/** The call outlived its window: the task store holds it from now on, and the request answers the task. */
export function promote(call: ServerCall, bg: BackgroundCall): JsonObject {
  const task = call.services.tasks.create(bg, {
    label: bg.label,
    era: call.codec.era,
    identity: call.identity,
    client: call.clientName,
  });
  return call.codec.tasks.created(task.shape(call.codec));
}

/** A client-directed tools/call: whether it runs as a task. A `task` field to a tool without task support
 *  is -32601 (2025-11-25 server/tools "Tool-Level Negotiation"); so is a 2025-11-25 call without one to a
 *  tool that requires it — a revision that never lists execution never sees that requirement, and its
 *  call runs inline (docs/protocol.md "Tasks": a client that omits a required task). */
export function wantsTask(call: ServerCall, params: JsonObject): boolean {
  if (!call.tool || !call.services.provider.capabilities().tasks) return false;
  const wants = isObject(params.task);
  if (!wants && !hasField('Tool', 'execution', call.rev)) return false;
  const support = call.tool.taskSupport;
  if (wants && support !== 'optional' && support !== 'required')
    throw new ProtocolError(CODES.MethodNotFound, `tool ${toolName(call)} does not support task-augmented calls`);
  if (!wants && support === 'required')
    throw new ProtocolError(
      CODES.MethodNotFound,
      `tool ${toolName(call)} must be called as a task (execution.taskSupport "required")`,
    );
  return wants;
}

/** The task strategy: a client-directed task starts; its CreateTaskResult answers at once, and its status
 *  changes reach a 2025-11-25 client that can be pushed to as notifications/tasks/status. */
export function task(call: ServerCall, params: JsonObject): JsonObject {
  const bg = new BackgroundCall('tools/call', labelOf('tools/call', call.req.params), call.identity);
  const conn = call.conn;
  const t = call.services.tasks.create(bg, {
    label: bg.label,
    era: call.codec.era,
    identity: call.identity,
    client: call.clientName,
  });
  if (inSpan(conn.revision ?? call.rev, TASK_STATUS_NOTIFICATION))
    t.onChange((x) => {
      if (conn.canPush) conn.push!(notificationMsg('notifications/tasks/status', x.shape(call.codec)));
    });
  const rev = call.rev;
  runInBackground(
    call,
    bg,
    params,
    (method, p, signal) => askForTask(t, call, { rev, method, params: p, signal, count: call.asked++ }),
    { task: true },
  );
  return call.codec.tasks.created(t.shape(call.codec));
}

/** A client-directed task's question: on the channel its client has open — the stdio pipe, or a
 *  tasks/result stream it opens within proto.askTimeout — with the related-task key (2025-11-25
 *  "Associating Task-Related Messages"); the task shows input_required meanwhile. No channel: the next
 *  answerer. */
async function askForTask(task: Task, origin: ServerCall, q: Asking & { readonly count: number }): Promise<JsonObject> {
  const { rev, method, signal } = q;
  task.asking++;
  task.refresh();
  try {
    const channel =
      origin.conn.transport === 'stdio' && !origin.conn.isClosed
        ? origin
        : await channelOf(task, origin.services.settings.duration('proto.askTimeout'), signal);
    if (!channel?.relay.send) throw new UnsayableQuestion(method, rev);
    return await askOnChannel(channel, { ...q, meta: { [META.relatedTask]: { taskId: task.id } } });
  } finally {
    task.asking--;
    task.refresh();
  }
}
