// The legacy era (2024-11-05..2025-11-25): a revision negotiated at initialize, capabilities and log
// level held by the connection, questions as server→client requests, sessions over Streamable HTTP,
// 2025-11-25 core tasks (client-directed, the `task` field).
import { downgradeResult } from '../downgrade';
import { invalidParams } from '../errors';
import { type JsonObject, isObject } from '../jsonrpc';
import { LATEST_LEGACY } from '../revisions';
import type { EraCodec, TaskView } from './codec';

/** The statuses of a refused initialize that send mcpx to HTTP+SSE (the codec's `client.sseFallback`). */
const SSE_FALLBACK = new Set([400, 404, 405]);

/** The statuses a 2025-11-25 task's outcome is collected in by tasks/result: ended, or asking (tasks/result
 *  carries its questions). */
const COLLECTED = new Set(['completed', 'failed', 'cancelled', 'input_required']);

/** The Task as 2025-11-25 names its fields (schema Task: ttl, pollInterval). */
const shape = (t: TaskView): JsonObject => ({
  taskId: t.taskId,
  status: t.status,
  createdAt: t.createdAt,
  lastUpdatedAt: t.lastUpdatedAt,
  ttl: t.ttlMs,
  pollInterval: t.pollMs,
  ...(t.statusMessage !== undefined ? { statusMessage: t.statusMessage } : {}),
});

export const LEGACY: EraCodec = {
  era: 'legacy',
  handshake: 'initialize',
  caller: (_meta, conn) => ({
    capabilities: conn.clientCapabilities,
    clientInfo: conn.clientInfo,
    logLevel: conn.logLevel,
  }),
  identity: (connection) => connection,
  questionChannel: (channel) => channel,
  // Core tasks are the client's to ask for (2025-11-25 `task`).
  strategy: (_inputRequired, wantsTask) => (wantsTask() ? 'task' : 'direct'),
  opensSession: (method) => method === 'initialize',
  acknowledge: () => undefined,
  // An empty cursor is no cursor (docs/protocol.md "Pagination").
  cursor: (c) => (c === '' ? undefined : c),
  listEnds: (next) => typeof next !== 'string' || next === '',
  spell: (method, result, rev) => downgradeResult(method, result, rev),
  cancelsByNotice: () => true,
  http: { pushStream: true },
  tasks: {
    declared: () => true,
    mayDrive: () => true,
    fails: (result) => result?.isError === true,
    shape,
    get: shape,
    cancel: (t, ended) => {
      if (!ended) throw invalidParams(`Invalid params: task ${t.taskId} has already ended (${t.status})`);
      return shape(t);
    },
    followed: () => undefined,
    created: (task) => ({ task }),
    createdOf: (result) => (isObject(result.task) ? result.task : undefined),
    collect: (status) => (COLLECTED.has(status) ? 'tasks/result' : undefined),
    pollOf: (task) => task.pollInterval,
    augment: (params) => ({ ...params, task: {} }),
    declare: (caps) => caps,
    // A 2025-11-25 upstream's tool that requires a task, or supports one for a client that wants it
    // (2025-11-25 server/tools "Tool-Level Negotiation").
    augmentFirst: (caps, support, wanted) =>
      isObject(caps.tasks) &&
      isObject(caps.tasks.requests) &&
      (support === 'required' || (support === 'optional' && wanted)),
  },
  client: {
    meta: () => ({}),
    setsLevel: (caps) => 'logging' in caps,
    headers: () => undefined,
    paramHeaders: () => false,
    ignoresRequests: () => false,
    subscriptions: 'subscribe',
    rootsChanged: (notify) => notify(),
    answered: (open) => open(),
    sseFallback: (status) => status !== undefined && SSE_FALLBACK.has(status),
    // tools/list even where no `tools` capability was declared.
    listsTools: () => true,
  },
  newest: LATEST_LEGACY,
  // A stdio client's request goes through the shim in the session its initialize opened.
  shimTravel: 'session',
  extensions: 'per-connection',
};
