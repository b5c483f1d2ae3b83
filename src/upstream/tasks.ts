// mcpx as a task requestor (docs/protocol.md "Tasks": upstream): a tools/call is task-augmented where
// the upstream supports it and the call needs or wants it (the codec's tasks.augmentFirst, asked by
// upstream/call.ts), and the upstream's task is driven to its end here — polled at the upstream's
// interval, woken by its status notifications, its questions relayed to whoever answers the call, its
// states mapped onto the call (the client's task, or the inline answer). 2025-11-25 core tasks (`task`
// field, tasks/get, tasks/result) or the 2026-07-28 extension (declared per request; tasks/get inlines
// the result, tasks/update answers inputRequests): what differs is the codec's `tasks`.
import type { EraCodec } from '../protocol/eras';
import { CODES, ProtocolError } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { TASKS_EXTENSION } from '../protocol/tasks';
import { type Answerer, type UpstreamConnection, UpstreamError } from './connection';

/** What the caller knows of the call, for deciding whether to ask the upstream for a task. */
export interface TaskOptions {
  /** The tool's execution.taskSupport as a 2025-11-25 upstream listed it. */
  support?: string;
  /** The calling client would take a task (it declared the extension, or asked for one). */
  wanted: boolean;
  /** mcpx may ask for a task the client did not want, to make a "required" tool callable; false for a
   *  2026-07-28 client without the extension, which gets the upstream's -32021 as it is. */
  mayDrive: boolean;
  /** The upstream made the call a task. */
  onCreated?(): void;
}

/** A 2026-07-28 upstream's -32021 naming the tasks extension: the tool runs only as a task. */
export function needsExtension(code: number, data: unknown): boolean {
  if (code !== CODES.MissingRequiredClientCapability || !isObject(data)) return false;
  const req = data.requiredCapabilities;
  return isObject(req) && isObject(req.extensions) && TASKS_EXTENSION in req.extensions;
}

/** What the driver needs of the client. */
export interface DriverPort {
  name: string;
  /** How the upstream's era has tasks. */
  tasks: EraCodec['tasks'];
  request(method: string, params: JsonObject): Promise<JsonObject>;
  /** Answers one question of the task (the call's own answerer). */
  ask(method: string, params: JsonObject, key: string): Promise<JsonObject>;
  /** The upstream is alive: the call's clock starts again. */
  alive(): void;
  /** Calls `fn` when the upstream says the task changed (2025-11-25 notifications/tasks/status). */
  onStatus(taskId: string, fn: () => void): () => void;
  log(line: string): void;
  error(code: number, message: string, data?: unknown): Error;
  /** Most questions one task may ask (proto.askRounds, as for a call's input_required rounds). */
  maxQuestions: number;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
/** Bounds on the interval an upstream suggests: never busier than 50 ms, never slower than 5 s. */
const clampPoll = (v: unknown) =>
  typeof v === 'number' && Number.isFinite(v) ? Math.min(5000, Math.max(50, v)) : 1000;

/** What one call drives its task with: requests as part of the call, questions answered by the call's
 *  answerer (the call's clock paused meanwhile), the call's clock restarted by each poll. */
export function driverPort(
  conn: UpstreamConnection,
  c: {
    answer: Answerer;
    alive(): void;
    signal: AbortSignal;
    maxQuestions: number;
    request(method: string, params: JsonObject): Promise<JsonObject>;
  },
): DriverPort {
  return {
    name: conn.name,
    tasks: conn.codec.tasks,
    request: c.request,
    ask: async (method, params, key) => {
      conn.questionStarted();
      try {
        return await c.answer(method, params, c.signal, key);
      } finally {
        conn.questionEnded();
      }
    },
    alive: c.alive,
    onStatus: (taskId, fn) => {
      conn.taskWakers.set(taskId, fn);
      return () => conn.taskWakers.delete(taskId);
    },
    log: (line) => conn.hooks.log(line),
    error: (code, message, data) => new UpstreamError(conn.name, code, message, data),
    maxQuestions: c.maxQuestions,
  };
}

/** Drives the upstream task `created` (the Task of the tools/call answer, as the codec reads it) to its end, returning the tool result or
 *  throwing the call's error. Cancelling `signal` cancels the upstream task (tasks/cancel). */
export async function driveTask(port: DriverPort, created: JsonObject, signal: AbortSignal): Promise<JsonObject> {
  let task = created;
  const taskId = task.taskId;
  if (typeof taskId !== 'string' || taskId === '')
    throw new ProtocolError(CODES.InternalError, `upstream ${port.name} created a task without a taskId`);
  const cancel = () =>
    void port
      .request('tasks/cancel', { taskId })
      .catch((e: Error) => port.log(`[${port.name}] tasks/cancel ${taskId}: ${e.message}`));
  signal.addEventListener('abort', cancel, { once: true });
  let wake: (() => void) | undefined;
  const offStatus = port.onStatus(taskId, () => wake?.());
  const answered = new Set<string>();
  // Left before the task ended (a bound, a broken answer): the upstream is told to stop too.
  let ended = false;
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('cancelled');
      const status = String(task.status);
      ended = TERMINAL.has(status);
      const collect = port.tasks.collect(status);
      if (collect) {
        // 2025-11-25: tasks/result blocks until the end, and carries the task's questions meanwhile; what
        // it answers is the task's own outcome (a cancellation meanwhile goes by the signal).
        ended = true;
        return await port.request(collect, { taskId });
      }
      if (status === 'completed') {
        if (!isObject(task.result))
          throw new ProtocolError(
            CODES.InternalError,
            `upstream ${port.name} completed task ${taskId} without a result`,
          );
        return task.result;
      }
      if (status === 'failed') {
        const e = isObject(task.error) ? task.error : {};
        throw port.error(
          typeof e.code === 'number' ? e.code : CODES.InternalError,
          String(e.message ?? 'task failed'),
          e.data,
        );
      }
      if (status === 'cancelled')
        throw new ProtocolError(CODES.InternalError, `upstream ${port.name} cancelled task ${taskId}`);
      if (status === 'input_required' && isObject(task.inputRequests)) {
        for (const [key, r] of Object.entries(task.inputRequests)) {
          if (answered.has(key) || !isObject(r) || typeof r.method !== 'string') continue;
          if (answered.size >= port.maxQuestions)
            throw new ProtocolError(
              CODES.InternalError,
              `upstream ${port.name}: task ${taskId} asked more than ${port.maxQuestions} questions (proto.askRounds)`,
            );
          answered.add(key);
          // Each answer goes back on its own as soon as it is given; polling goes on meanwhile.
          void port
            .ask(r.method, isObject(r.params) ? r.params : {}, key)
            .then((answer) => port.request('tasks/update', { taskId, inputResponses: { [key]: answer } }))
            .catch((e: Error) => port.log(`[${port.name}] task ${taskId} question ${key}: ${e.message}`));
        }
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, clampPoll(port.tasks.pollOf(task)));
        signal.addEventListener('abort', done, { once: true });
        wake = done;
      });
      if (signal.aborted) continue;
      task = await port.request('tasks/get', { taskId });
      port.alive();
    }
  } finally {
    signal.removeEventListener('abort', cancel);
    offStatus();
    if (!ended && !signal.aborted) cancel();
  }
}
