// The 2026-07-28 era: the revision, capabilities, client info and log level in each request's `_meta`
// (basic/index), no sessions, questions as input_required rounds (basic/patterns/mrtr), headers that
// mirror the body (streamable-http "Standard Request Headers"), the envelope on every result, and the
// tasks extension (server-directed, declared per request).
import { downgradeClientCapabilities, downgradeResult } from '../downgrade';
import { envelope } from '../envelope';
import { invalidParams, toWireError } from '../errors';
import { type JsonObject, isObject } from '../jsonrpc';
import { META, type LogLevel, isLogLevel } from '../meta';
import { MODERN, type Revision } from '../revisions';
import { declaresTasks, withTasks } from '../tasks';
import type { EraCodec, TaskView } from './codec';
import { mcpNameOf } from './names';

/** The caller as the request's `_meta` states it; nothing is read from earlier requests. */
function caller(meta: JsonObject | undefined) {
  if (!meta) throw invalidParams(`Invalid params: params._meta is required in ${MODERN}`);
  const caps = meta[META.clientCapabilities];
  if (typeof meta[META.protocolVersion] !== 'string')
    throw invalidParams(`Invalid params: params._meta["${META.protocolVersion}"] is required`);
  if (!isObject(caps))
    throw invalidParams(`Invalid params: params._meta["${META.clientCapabilities}"] is required (an object)`);
  const level = meta[META.logLevel];
  if (level !== undefined && !isLogLevel(level))
    throw invalidParams(`Invalid params: unknown log level ${JSON.stringify(level)}`);
  return { capabilities: caps, clientInfo: meta[META.clientInfo], logLevel: level as LogLevel | undefined };
}

/** The Task as the tasks extension names its fields (ttlMs, pollIntervalMs). */
const shape = (t: TaskView): JsonObject => ({
  taskId: t.taskId,
  status: t.status,
  createdAt: t.createdAt,
  lastUpdatedAt: t.lastUpdatedAt,
  ttlMs: t.ttlMs,
  pollIntervalMs: t.pollMs,
  ...(t.statusMessage !== undefined ? { statusMessage: t.statusMessage } : {}),
});

/** The extension's DetailedTask as a client may read it (tasks/get and notifications/tasks answer exactly
 *  this): the result inlined, spelled for `rev` (a stored result is handed out more than once: a copy);
 *  the error as the wire would carry it; the open questions, never a kind the client did not declare
 *  (`asks`; 2026-07-28 mrtr: MUST). */
function detailed(t: TaskView, rev: Revision, asks: (method: string, params: JsonObject) => boolean): JsonObject {
  const out = shape(t);
  if (t.status === 'completed' && t.result) out.result = downgradeResult('tools/call', t.result, rev);
  if (t.status === 'failed') out.error = toWireError(t.error, rev) as unknown as JsonObject;
  if (t.status === 'input_required') {
    const inputRequests: JsonObject = {};
    for (const [k, q] of Object.entries(t.inputRequests ?? {})) {
      const r = q as { method: string; params: JsonObject };
      if (asks(r.method, r.params)) inputRequests[k] = q;
    }
    out.inputRequests = inputRequests;
  }
  return out;
}

export const MODERN_CODEC: EraCodec = {
  era: 'modern',
  handshake: 'discover',
  caller,
  identity: (_connection, fresh) => fresh(),
  questionChannel: () => undefined,
  // Questions are input_required rounds: a method that may answer one runs in a background call.
  strategy: (inputRequired) => (inputRequired ? 'background' : 'direct'),
  opensSession: () => false,
  acknowledge: (send) => send(),
  cursor: (c) => c,
  listEnds: (next) => typeof next !== 'string',
  spell: (method, result, rev, opts) => envelope(method, downgradeResult(method, result, rev), opts()),
  cancelsByNotice: (transport) => transport !== 'http',
  http: { pushStream: false },
  tasks: {
    declared: declaresTasks,
    mayDrive: (wanted) => wanted,
    fails: () => false,
    shape,
    get: detailed,
    cancel: () => ({}),
    followed: (taskIds) => taskIds,
    created: (task) => ({ resultType: 'task', ...task }),
    createdOf: (result) => (result.resultType === 'task' ? result : undefined),
    collect: () => undefined,
    pollOf: (task) => task.pollIntervalMs,
    augment: (params) => params,
    declare: withTasks,
    augmentFirst: (caps, _support, wanted) => wanted && declaresTasks(caps),
  },
  client: {
    meta: (o) => {
      const m: JsonObject = {
        [META.protocolVersion]: MODERN,
        [META.clientCapabilities]: downgradeClientCapabilities(o.capabilities, MODERN),
        [META.clientInfo]: o.clientInfo,
      };
      if (o.logLevel) m[META.logLevel] = o.logLevel;
      return m;
    },
    setsLevel: () => false,
    headers: (method, params, encode) => {
      const h: Record<string, string> = { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': method };
      const field = mcpNameOf(method)?.field;
      const v = field ? params[field] : undefined;
      if (typeof v === 'string') h['Mcp-Name'] = encode(v);
      return h;
    },
    paramHeaders: (transport) => transport === 'http',
    ignoresRequests: (strict) => strict,
    subscriptions: 'listen',
    rootsChanged: () => undefined,
    answered: () => undefined,
    sseFallback: () => false,
    listsTools: (caps) => isObject(caps.tools),
  },
  newest: MODERN,
  // A stdio client's request goes alone through the shim, with its own headers.
  shimTravel: 'alone',
  extensions: 'per-request',
};
