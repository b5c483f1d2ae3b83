// One handler per method. Each returns its result in the newest shape; server.spell() does the rest.
import type { Settings } from '../config/settings';
import type { Conn } from './conn';
import type { Incoming } from './incoming';
import { TASKS_EXTENSION } from '../protocol/tasks';
import type { Tasks } from './tasks';
import type { CallContext, Provider } from './provider';
import { downgradeCapabilities, downgradeImplementation } from '../protocol/downgrade';
import { invalidParams, methodNotFound } from '../protocol/errors';
import { type Id, type JsonObject, isObject } from '../protocol/jsonrpc';
import { type ClientNotification, type ClientRequest, METHODS, type ParamsOf, readParams } from '../protocol/methods';
import { isLogLevel } from '../protocol/meta';
import { LATEST_LEGACY, NEWEST_FIRST, type Revision, eraOf, isRevision } from '../protocol/revisions';
import { paginate } from './paging';
import { checkParamHeaders } from './paramCheck';

export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
}

/** What a handler may use beyond its request: the provider, the settings, who the server is, and the
 *  listen streams. */
export interface Services {
  provider: Provider;
  settings: Settings;
  serverInfo: ServerInfo;
  listen(ctx: HandlerContext, filter: JsonObject): Promise<JsonObject>;
  /** Every task of this server (tasks.ts). */
  tasks: Tasks;
}

export interface HandlerContext {
  call: CallContext;
  conn: Conn;
  services: Services;
  rev: Revision;
  id: Id;
  /** This request, where it can carry requests to the client (a legacy stream): a task's questions may
   *  ride it (tasks/result). */
  channel?: Incoming;
  /** A notification related to this request, on its own channel, spelled for its revision. */
  notify(method: string, params: JsonObject): void;
}

/** The handler of `M`: its params already parsed by the method's descriptor (protocol/methods.ts). */
type Handler<M extends ClientRequest> = (ctx: HandlerContext, params: ParamsOf<M>) => Promise<JsonObject>;
/** One handler for each of `K`, exactly: a method without one, or one without a method, fails to compile. */
export type Handlers<K extends ClientRequest> = { readonly [M in K]: Handler<M> };

const provider = (ctx: HandlerContext): Provider => ctx.services.provider;

/** What mcpx declares: exactly what the provider delivers (docs/protocol.md "Capabilities declared only where delivered"). listChanged and subscribe
 *  are not declared: nothing in this server sends those notifications yet. */
function serverCapabilities(p: Provider): JsonObject {
  const c = p.capabilities();
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
  if (c.tools && p.toolTaskSupport) {
    // Core tasks (spelled only to 2025-11-25) and the extension (only to 2026-07-28): the edge keeps
    // each for its revision (the revision table's ServerCapabilities).
    caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
    caps.extensions = { [TASKS_EXTENSION]: {} };
  }
  return caps;
}

/** A list method: the provider's whole list, one page of it per request. */
function list(
  key: string,
  get: (p: Provider) => ((ctx: CallContext) => Promise<JsonObject[]>) | undefined,
  method: string,
): (ctx: HandlerContext, params: ParamsOf<'tools/list'>) => Promise<JsonObject> {
  // The four list methods read the same params (a cursor): one handler serves any of them.
  return async (ctx, { cursor }) => {
    const fn = get(provider(ctx));
    if (!fn) throw methodNotFound(method);
    // An empty cursor is no cursor to a legacy client; in 2026-07-28 it is a cursor we never issued.
    const c = cursor === '' && eraOf(ctx.rev) === 'legacy' ? undefined : cursor;
    const items = await fn.call(provider(ctx), ctx.call);
    const { page, nextCursor } = paginate(method, items, c, ctx.services.settings.get<number>('mcp.pageSize'));
    return nextCursor === undefined ? { [key]: page } : { [key]: page, nextCursor };
  };
}

function need<K extends keyof Provider>(ctx: HandlerContext, key: K, method: string): NonNullable<Provider[K]> {
  const fn = provider(ctx)[key];
  if (!fn) throw methodNotFound(method);
  return fn as NonNullable<Provider[K]>;
}

/** Every request a client sends but the tasks/* (taskHandlers.ts). */
export const HANDLERS: Handlers<Exclude<ClientRequest, `tasks/${string}`>> = {
  async initialize(ctx, p) {
    // Every legacy lifecycle page: a version the server does not support gets one it does (counter-offer),
    // never -32022, which a legacy client cannot read (docs/protocol.md "Legacy initialize with an unsupported version").
    const rev: Revision =
      isRevision(p.protocolVersion) && eraOf(p.protocolVersion) === 'legacy' ? p.protocolVersion : LATEST_LEGACY;
    ctx.conn.revision = rev;
    ctx.conn.clientCapabilities = p.capabilities;
    ctx.conn.clientInfo = p.clientInfo;
    const info = ctx.services.serverInfo;
    const result: JsonObject = {
      protocolVersion: rev,
      capabilities: downgradeCapabilities(serverCapabilities(provider(ctx)), rev),
      serverInfo: downgradeImplementation({ ...info }, rev),
    };
    const instructions = provider(ctx).instructions?.();
    if (instructions) result.instructions = instructions;
    return result;
  },

  async ping() {
    return {};
  },

  async 'server/discover'(ctx) {
    const result: JsonObject = {
      supportedVersions: [...NEWEST_FIRST],
      capabilities: downgradeCapabilities(serverCapabilities(provider(ctx)), ctx.rev),
    };
    const instructions = provider(ctx).instructions?.();
    if (instructions) result.instructions = instructions;
    return result;
  },

  async 'logging/setLevel'(ctx, { level }) {
    if (!isLogLevel(level)) throw invalidParams(`Invalid params: unknown log level ${JSON.stringify(level)}`);
    ctx.conn.logLevel = level;
    return {};
  },

  'tools/list': list('tools', (p) => p.listTools, 'tools/list'),
  'prompts/list': list('prompts', (p) => p.listPrompts, 'prompts/list'),
  'resources/list': list('resources', (p) => p.listResources, 'resources/list'),
  'resources/templates/list': list('resourceTemplates', (p) => p.listResourceTemplates, 'resources/templates/list'),

  async 'tools/call'(ctx, p) {
    const fn = need(ctx, 'callTool', 'tools/call');
    if (ctx.call.paramHeaders) await checkParamHeaders(provider(ctx), p.name, p.arguments ?? {}, ctx.call);
    return fn.call(provider(ctx), p.name, p.arguments ?? {}, ctx.call);
  },

  async 'prompts/get'(ctx, p) {
    const fn = need(ctx, 'getPrompt', 'prompts/get');
    return fn.call(provider(ctx), p.name, p.arguments ?? {}, ctx.call);
  },

  async 'resources/read'(ctx, p) {
    const fn = need(ctx, 'readResource', 'resources/read');
    return fn.call(provider(ctx), p.uri, ctx.call);
  },

  /** Legacy subscribe: succeeds even where no update will come (the reason is logged), since a
   *  subscription is a standing interest, not a lookup (docs/protocol.md "Resource subscriptions"). Updates go on the connection's
   *  push channel (stdio, or the session's GET stream). */
  async 'resources/subscribe'(ctx, { uri }) {
    const fn = need(ctx, 'subscribe', 'resources/subscribe');
    if (ctx.conn.watches.has(uri)) return {};
    const conn = ctx.conn;
    const w = await fn.call(
      provider(ctx),
      uri,
      (u) => void conn.push?.({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: u } }),
    );
    conn.watches.set(uri, w.release);
    return {};
  },

  async 'resources/unsubscribe'(ctx, { uri }) {
    ctx.conn.watches.get(uri)?.();
    ctx.conn.watches.delete(uri);
    return {};
  },

  /** A long-lived stream of the change notifications the client opts in to (2026-07-28; accepted from
   *  legacy clients too). The acknowledgement comes first; the request stays open until the client
   *  closes it (HTTP) or cancels it (stdio), or mcpx ends it. */
  async 'subscriptions/listen'(ctx, params) {
    const filter = isObject(params.notifications) ? params.notifications : {};
    return ctx.services.listen(ctx, filter);
  },

  async 'completion/complete'(ctx, params) {
    const fn = need(ctx, 'complete', 'completion/complete');
    return fn.call(provider(ctx), params, ctx.call);
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
