// Which tools/call becomes a task, per era (docs/protocol.md "Tasks"):
// - 2026-07-28: server-directed, only for a client that declared the extension on the request; by the
//   tool's execution.taskSupport — the eager window for "optional"/"required", protoMessages.taskAfter
//   for a tool that declared nothing (never for a client that can answer questions inline), never for
//   "forbidden"; "required" without the extension is -32021 before anything runs.
// - legacy (2025-11-25 core, honoured from any legacy client): client-directed, by the `task` field.
import type { Settings } from '../config/settings';
import { CODES, ProtocolError } from '../protocol/errors';
import { type JsonObject, isObject, notificationMsg } from '../protocol/jsonrpc';
import { META, clientNameOf } from '../protocol/meta';
import { UnsayableQuestion } from '../protocol/questions';
import { type Revision, TASK_STATUS_NOTIFICATION, hasField, inSpan } from '../protocol/revisions';
import type { Incoming } from './incoming';
import { BackgroundCall, labelOf } from './mrtr';
import type { Provider, TaskSupport } from './provider';
import type { Rounds, TaskWindow } from './rounds';
import { declaresTasks } from '../protocol/tasks';
import { EAGER_WINDOW_MS, type Task, type Tasks, extensionRequired } from './tasks';

const paramsOf = (inc: Incoming): JsonObject => (isObject(inc.req.params) ? inc.req.params : {});
const toolOf = (inc: Incoming): string => String(paramsOf(inc).name ?? '');

/** Questions a client answers inline when it declared them: such a client is never handed a task for a
 *  tool that declared no task support (docs/protocol.md "Tasks"). */
const INLINE_ANSWERS = ['elicitation', 'sampling'];

export class TaskCalls {
  constructor(
    private readonly provider: Provider,
    private readonly settings: Settings,
    private readonly tasks: Tasks,
    private readonly rounds: Rounds,
  ) {}

  private support(inc: Incoming, identity: string): TaskSupport | undefined | Promise<TaskSupport | undefined> {
    return this.provider.toolTaskSupport?.(toolOf(inc), identity);
  }

  /** A 2026-07-28 tools/call: how it may become a task, or undefined when it never will. */
  async window(inc: Incoming, identity: string): Promise<TaskWindow | undefined> {
    if (inc.req.method !== 'tools/call' || !this.provider.toolTaskSupport) return undefined;
    const meta = paramsOf(inc)._meta;
    const caps = isObject(meta) && isObject(meta[META.clientCapabilities]) ? meta[META.clientCapabilities] : {};
    const ext = declaresTasks(caps as JsonObject);
    const s = this.support(inc, identity);
    const support = s instanceof Promise ? await s : s;
    if (support === 'required' && !ext)
      throw extensionRequired(
        `tool ${JSON.stringify(toolOf(inc))} runs only as a task (execution.taskSupport "required")`,
      );
    if (!ext || support === 'forbidden') return undefined;
    const promote = (call: BackgroundCall): JsonObject => {
      const task = this.tasks.create(call, {
        label: call.label,
        era: 'modern',
        identity,
        client: clientNameOf(isObject(meta) ? meta[META.clientInfo] : undefined),
      });
      return { resultType: 'task', ...task.modernShape() };
    };
    if (support) return { ms: EAGER_WINDOW_MS, promote };
    const inline = INLINE_ANSWERS.some((k) => k in (caps as JsonObject));
    return { ms: inline ? undefined : this.settings.duration('protoMessages.taskAfter'), promote };
  }

  /** A legacy tools/call: whether it runs as a task. A `task` field to a tool without task support is
   *  -32601 (2025-11-25 server/tools "Tool-Level Negotiation"); so is a 2025-11-25 call without one to a
   *  tool that requires it — a revision that never lists execution never sees that requirement, and its
   *  call runs inline (docs/protocol.md "Tasks": a client that omits a required task). */
  async legacyWantsTask(inc: Incoming, rev: Revision, identity: string): Promise<boolean> {
    if (!this.provider.toolTaskSupport) return false;
    const wants = isObject(paramsOf(inc).task);
    if (!wants && !hasField('Tool', 'execution', rev)) return false;
    const s = this.support(inc, identity);
    const support = s instanceof Promise ? await s : s;
    const name = JSON.stringify(toolOf(inc));
    if (wants && support !== 'optional' && support !== 'required')
      throw new ProtocolError(CODES.MethodNotFound, `tool ${name} does not support task-augmented calls`);
    if (!wants && support === 'required')
      throw new ProtocolError(
        CODES.MethodNotFound,
        `tool ${name} must be called as a task (execution.taskSupport "required")`,
      );
    return wants;
  }

  /** Starts a legacy task: its CreateTaskResult answers at once; its status changes reach a 2025-11-25
   *  client that can be pushed to as notifications/tasks/status. */
  legacyTask(inc: Incoming, rev: Revision, identity: string, start: (call: BackgroundCall, task: Task) => void): Task {
    const call = new BackgroundCall('tools/call', labelOf('tools/call', inc.req.params), identity);
    const conn = inc.conn;
    const task = this.tasks.create(call, {
      label: call.label,
      era: 'legacy',
      identity,
      client: clientNameOf(conn.clientInfo),
    });
    if (inSpan(conn.revision ?? rev, TASK_STATUS_NOTIFICATION))
      task.onChange((t) => {
        if (conn.canPush) conn.push!(notificationMsg('notifications/tasks/status', t.legacyShape()));
      });
    start(call, task);
    return task;
  }

  /** A legacy task's question: on the channel its client has open — the stdio pipe, or a tasks/result
   *  stream it opens within proto.askTimeout — with the related-task key (2025-11-25 "Associating
   *  Task-Related Messages"); the task shows input_required meanwhile. No channel: the next answerer. */
  async askLegacy(
    task: Task,
    origin: Incoming,
    rev: Revision,
    method: string,
    params: JsonObject,
    signal: AbortSignal,
    count: number,
  ): Promise<JsonObject> {
    task.asking++;
    task.refresh();
    try {
      const channel =
        origin.conn.transport === 'stdio' && !origin.conn.isClosed
          ? origin
          : await task.channel(this.settings.duration('proto.askTimeout'), signal);
      if (!channel?.send) throw new UnsayableQuestion(method, rev);
      return await this.rounds.askOnChannel(channel, rev, method, params, signal, count, {
        [META.relatedTask]: { taskId: task.id },
      });
    } finally {
      task.asking--;
      task.refresh();
    }
  }
}
