// The 2026-07-28 era: the revision, capabilities, client info and log level in each request's `_meta`
// (basic/index), no sessions, questions as input_required rounds (basic/patterns/mrtr), headers that
// mirror the body (streamable-http "Standard Request Headers"), the envelope on every result, and the
// tasks extension (server-directed, declared per request).
import { downgradeClientCapabilities, downgradeResult } from '../downgrade';
import { envelope } from '../envelope';
import { invalidParams } from '../errors';
import { type JsonObject, isObject } from '../jsonrpc';
import { META, type LogLevel, isLogLevel } from '../meta';
import { MODERN } from '../revisions';
import { declaresTasks, withTasks } from '../tasks';
import type { EraCodec } from './codec';
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

export const MODERN_CODEC: EraCodec = {
  era: 'modern',
  handshake: 'discover',
  caller,
  identity: 'per-request',
  questions: 'input-required',
  sessions: false,
  listenAck: true,
  cursor: (c) => c,
  listEnds: (next) => typeof next !== 'string',
  spell: (method, result, rev, opts) => envelope(method, downgradeResult(method, result, rev), opts()),
  cancellation: (transport) => (transport === 'http' ? 'close-stream' : 'notification'),
  http: { headersRequired: true, batches: false, clientResponses: false, pushStream: false },
  tasks: {
    directedBy: 'server',
    fields: { ttl: 'ttlMs', poll: 'pollIntervalMs' },
    toolErrorFails: false,
    get: 'detailed',
    cancel: 'empty',
    onListen: true,
    collect: 'tasks/get',
    declared: declaresTasks,
    created: (task) => ({ resultType: 'task', ...task }),
    createdOf: (result) => (result.resultType === 'task' ? result : undefined),
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
    logLevel: 'per-request',
    headers: (method, params, encode) => {
      const h: Record<string, string> = { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': method };
      const field = mcpNameOf(method)?.field;
      const v = field ? params[field] : undefined;
      if (typeof v === 'string') h['Mcp-Name'] = encode(v);
      return h;
    },
    paramHeaders: true,
    peerRequests: false,
    subscriptions: 'listen',
    rootsListChanged: false,
    extensions: 'per-request',
  },
  // tools/list even where no `tools` capability was declared.
  listsUndeclaredTools: false,
  newest: MODERN,
  // A stdio client's request goes alone through the shim, with its own headers.
  shimTravel: 'alone',
};
