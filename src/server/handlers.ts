// One handler per method, given the call (server/call.ts) and its params parsed by the method's
// descriptor. Each returns its result in the newest shape; the pipeline spells it for the revision.
import { downgradeCapabilities, downgradeImplementation } from '../protocol/downgrade';
import { listCacheScope } from '../protocol/envelope';
import { initializeRevision } from '../protocol/eras';
import { McpxError, invalidParams, methodNotFound } from '../protocol/errors';
import { type Id, type JsonObject, isObject } from '../protocol/jsonrpc';
import {
  type ClientNotification,
  type ClientRequest,
  METHODS,
  type ParamsOf,
  type ResultOf,
  readParams,
} from '../protocol/methods';
import { isLogLevel } from '../protocol/meta';
import { INPUT_ERROR_AS_RESULT, NEWEST_FIRST, inSpan } from '../protocol/revisions';
import { TASKS_EXTENSION } from '../protocol/tasks';
import type { ServerCall } from './call';
import type { Conn } from './conn';
import { paginate } from './paging';
import { checkParamHeaders } from './paramCheck';
import type { CallContext, Provider } from './provider';

/** The handler of `M`: its params already parsed by the method's descriptor, its result the descriptor's
 *  (protocol/methods.ts `ResultOf`). */
type Handler<M extends ClientRequest> = (call: ServerCall, params: ParamsOf<M>) => Promise<ResultOf<M>>;
/** One handler for each of `K`, exactly: a method without one, or one without a method, fails to compile. */
export type Handlers<K extends ClientRequest> = { readonly [M in K]: Handler<M> };

const provider = (call: ServerCall): Provider => call.services.provider;

/** What mcpx declares: exactly what the provider delivers (docs/protocol.md "Capabilities declared only
 *  where delivered"): listChanged for the lists the provider announces changes of, subscribe where it
 *  watches resources. */
function serverCapabilities(p: Provider, profile: string | undefined): JsonObject {
  const c = p.capabilities(profile);
  const caps: JsonObject = {};
  const lc = c.listChanged ?? {};
  if (c.tools) caps.tools = lc.tools ? { listChanged: true } : {};
  if (c.prompts) caps.prompts = lc.prompts ? { listChanged: true } : {};
  if (c.resources) {
    caps.resources = lc.resources ? { listChanged: true } : {};
    if (p.subscribe) (caps.resources as JsonObject).subscribe = true;
  }
  if (c.completions) caps.completions = {};
  if (c.logging) caps.logging = {};
  if (c.tools && c.tasks) {
    // Core tasks (spelled only to 2025-11-25) and the extension (only to 2026-07-28): the edge keeps
    // each for its revision (the revision table's ServerCapabilities).
    caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
    caps.extensions = { [TASKS_EXTENSION]: {} };
  }
  if (c.extensions) caps.extensions = { ...(caps.extensions as JsonObject | undefined), ...c.extensions };
  return caps;
}

/** A list method: the provider's whole list, one page of it per request. The four list methods read the
 *  same params (a cursor): one handler serves any of them. */
type ListMethod = 'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list' | 'skills/list';

function list<M extends ListMethod>(
  key: string,
  get: (p: Provider) => ((ctx: CallContext) => Promise<JsonObject[]>) | undefined,
  method: M,
): (call: ServerCall, params: ParamsOf<'tools/list'>) => Promise<ResultOf<M>> {
  return async (call, params) => {
    const fn = get(provider(call));
    if (!fn) throw methodNotFound(method);
    const items = await fn.call(provider(call), call);
    const page = paginate(
      method,
      items,
      call.codec.cursor(params.cursor),
      call.services.settings.get<number>('mcp.pageSize'),
    );
    const result: JsonObject =
      page.nextCursor === undefined ? { [key]: page.page } : { [key]: page.page, nextCursor: page.nextCursor };
    // A list that depends on who asks is not for sharing (docs/protocol.md "Cache hints on lists"): the
    // envelope narrows it to `private` (protocol/envelope.ts listCacheScope); legacy copies drop the field.
    if (listCacheScope(method, provider(call).listsPerCaller?.(method, call) === true) === 'private')
      result.cacheScope = 'private';
    // The page of the provider's items, under the key the descriptor's result names.
    return result as ResultOf<M>;
  };
}

function need<K extends keyof Provider>(call: ServerCall, key: K, method: string): NonNullable<Provider[K]> {
  const fn = provider(call)[key];
  if (!fn) throw methodNotFound(method);
  return fn as NonNullable<Provider[K]>;
}

/** Every request a client sends but the tasks/* (taskHandlers.ts). */
export const HANDLERS: Handlers<Exclude<ClientRequest, `tasks/${string}`>> = {
  async initialize(call, p) {
    const rev = initializeRevision(p.protocolVersion);
    call.conn.revision = rev;
    call.conn.clientCapabilities = p.capabilities;
    call.conn.clientInfo = p.clientInfo;
    const result: JsonObject = {
      protocolVersion: rev,
      capabilities: downgradeCapabilities(serverCapabilities(provider(call), call.profile), rev, p.capabilities),
      serverInfo: downgradeImplementation({ ...call.services.serverInfo }, rev),
    };
    const instructions = provider(call).instructions?.();
    if (instructions) result.instructions = instructions;
    return result;
  },

  async ping() {
    return {};
  },

  async 'server/discover'(call) {
    const result: JsonObject = {
      supportedVersions: [...NEWEST_FIRST],
      capabilities: downgradeCapabilities(serverCapabilities(provider(call), call.profile), call.rev),
    };
    const instructions = provider(call).instructions?.();
    if (instructions) result.instructions = instructions;
    return result;
  },

  async 'logging/setLevel'(call, { level }) {
    if (!isLogLevel(level)) throw invalidParams(`Invalid params: unknown log level ${JSON.stringify(level)}`);
    call.conn.logLevel = level;
    return {};
  },

  'tools/list': list('tools', (p) => p.listTools, 'tools/list'),
  'prompts/list': list('prompts', (p) => p.listPrompts, 'prompts/list'),
  'resources/list': list('resources', (p) => p.listResources, 'resources/list'),
  'resources/templates/list': list('resourceTemplates', (p) => p.listResourceTemplates, 'resources/templates/list'),
  'skills/list': list('skills', (p) => p.listSkills, 'skills/list'),

  async 'skills/get'(call, p) {
    return {
      skill: await need(call, 'getSkill', 'skills/get').call(provider(call), p.uri, call),
    } as ResultOf<'skills/get'>;
  },

  /** The tool was looked up once, by the pipeline (call.tool). Arguments its input schema refuses are a
   *  -32602 up to 2025-06-18 and an isError result from 2025-11-25 (server/tools "Error Handling"):
   *  spelled here, at the edge, whoever refused them. */
  async 'tools/call'(call, p) {
    const tool = call.tool!;
    const args = p.arguments ?? {};
    if (call.paramHeaders) checkParamHeaders(tool.inputSchema, args, call.paramHeaders);
    try {
      return await tool.call(args, call);
    } catch (e) {
      if (e instanceof McpxError && e.code === 'arguments.invalid' && inSpan(call.rev, INPUT_ERROR_AS_RESULT))
        return { content: [{ type: 'text', text: e.message }], isError: true };
      throw e;
    }
  },

  async 'prompts/get'(call, p) {
    return need(call, 'getPrompt', 'prompts/get').call(provider(call), p.name, p.arguments ?? {}, call);
  },

  async 'resources/read'(call, p) {
    return need(call, 'readResource', 'resources/read').call(provider(call), p.uri, call);
  },

  /** Legacy subscribe: succeeds even where no update will come (the reason is logged), since a
   *  subscription is a standing interest, not a lookup (docs/protocol.md "Resource subscriptions").
   *  Updates go on the connection's push channel (stdio, or the session's GET stream). */
  async 'resources/subscribe'(call, { uri }) {
    const fn = need(call, 'subscribe', 'resources/subscribe');
    const conn = call.conn;
    if (conn.watches.has(uri)) return {};
    const w = await fn.call(
      provider(call),
      uri,
      (u) => void conn.push?.({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: u } }),
      call,
    );
    conn.watches.set(uri, w.release);
    return {};
  },

  async 'resources/unsubscribe'(call, { uri }) {
    call.conn.watches.get(uri)?.();
    call.conn.watches.delete(uri);
    return {};
  },

  /** A long-lived stream of the change notifications the client opts in to (2026-07-28; accepted from
   *  legacy clients too). The acknowledgement comes first; the request stays open until the client
   *  closes it (HTTP) or cancels it (stdio), or mcpx ends it. */
  async 'subscriptions/listen'(call, params) {
    return call.services.listen(call, isObject(params.notifications) ? params.notifications : {});
  },

  async 'completion/complete'(call, params) {
    return need(call, 'complete', 'completion/complete').call(provider(call), params, call);
  },
};

/** The client notifications the server acts on; any other is read and ignored. */
export const NOTIFICATION_HANDLERS: { readonly [M in ClientNotification]?: (conn: Conn, params: unknown) => void } = {
  'notifications/initialized'(conn) {
    conn.initialized = true;
  },
  'notifications/cancelled'(conn, params) {
    let p: { requestId: Id; reason?: string };
    try {
      p = readParams(METHODS['notifications/cancelled'].params, params);
    } catch {
      return; // A malformed cancellation names nothing to cancel.
    }
    conn.cancel(p.requestId, p.reason ?? 'cancelled by the client');
  },
};
