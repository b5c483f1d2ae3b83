// The legacy era (2024-11-05..2025-11-25): a revision negotiated at initialize, capabilities and log
// level held by the connection, questions as server→client requests, sessions over Streamable HTTP,
// 2025-11-25 core tasks (client-directed, the `task` field).
import { downgradeResult } from '../downgrade';
import { isObject } from '../jsonrpc';
import { LATEST_LEGACY } from '../revisions';
import type { EraCodec } from './codec';

export const LEGACY: EraCodec = {
  era: 'legacy',
  handshake: 'initialize',
  caller: (_meta, conn) => ({
    capabilities: conn.clientCapabilities,
    clientInfo: conn.clientInfo,
    logLevel: conn.logLevel,
  }),
  identity: 'connection',
  questions: 'wire-request',
  sessions: true,
  listenAck: false,
  // An empty cursor is no cursor (docs/protocol.md "Pagination").
  cursor: (c) => (c === '' ? undefined : c),
  listEnds: (next) => typeof next !== 'string' || next === '',
  spell: (method, result, rev) => downgradeResult(method, result, rev),
  cancellation: () => 'notification',
  http: { headersRequired: false, batches: true, clientResponses: true, pushStream: true },
  tasks: {
    directedBy: 'client',
    fields: { ttl: 'ttl', poll: 'pollInterval' },
    toolErrorFails: true,
    get: 'task',
    cancel: 'task',
    onListen: false,
    collect: 'tasks/result',
    declared: () => true,
    created: (task) => ({ task }),
    createdOf: (result) => (isObject(result.task) ? result.task : undefined),
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
    logLevel: 'set-level',
    headers: () => undefined,
    paramHeaders: false,
    peerRequests: true,
    subscriptions: 'subscribe',
    rootsListChanged: true,
    extensions: 'per-connection',
  },
  // tools/list even where no `tools` capability was declared.
  listsUndeclaredTools: true,
  newest: LATEST_LEGACY,
  // A stdio client's request goes through the shim in the session its initialize opened.
  shimTravel: 'session',
};
