// One descriptor per method, both directions: who sends it, the revisions that define it and those mcpx
// answers it in, the params mcpx reads (zod: a failure names the path, "params.name: Required"), the
// result every revision requires, where a 2026-07-28 request's Mcp-Name comes from, whether it may answer
// input_required, whether it may be sent again on a new id, and whether it is a question to a client.
// Every table that used to say one of these things about a method reads this one.
import { z } from 'zod';
import { invalidParams } from './errors';
import type { JsonObject } from './jsonrpc';
import { callToolParamsOk, callToolResultOk } from './fastShapes';
import { RESULT, described, obj } from './shapes';
import { OLDEST, type Revision, type Span, inSpan } from './revisions';
import { MCP_NAME, type McpName } from './eras/names';
import { SKILL_RESULTS, skillGetParams } from './skills';

const all: Span = { since: '2024-11-05' };
const legacyOnly: Span = { since: '2024-11-05', removedIn: '2026-07-28' };
const modernOn: Span = { since: '2026-07-28' };
const coreTasks: Span = { since: '2025-11-25', removedIn: '2026-07-28' };

export interface MethodDescriptor {
  readonly kind: 'request' | 'notification';
  /** Who sends it: a client to a server (mcpx serves it, and sends it to upstreams), or a server to a
   *  client (a question mcpx puts to its clients and answers for its upstreams). */
  readonly from: 'client' | 'server';
  /** The revisions that define it. */
  readonly span: Span;
  /** What mcpx answers beyond `span` (docs/protocol.md "Accept liberally"); a removal is never widened. */
  readonly accepted?: Span;
  /** The params mcpx reads: parsed once, before the handler runs (-32602 naming the path). */
  readonly params?: z.ZodTypeAny;
  /** What every revision requires of a result (each revision's schema.ts): an upstream's result is relayed
   *  only in this shape (docs/security.md "Upstream results"). Fields a revision lacks are the downgrade
   *  edge's business; the 2026-07-28 envelope fields are mcpx's own to add. */
  readonly result?: z.ZodTypeAny;
  /** The params field a 2026-07-28 request's Mcp-Name header mirrors (streamable-http "Standard Request
   *  Headers"; the tasks extension's "Streamable HTTP: Routing Headers" for tasks/*); `optional`: an
   *  omission is tolerated, a contradiction is still -32020 (docs/protocol.md "Tasks"). */
  readonly mcpName?: McpName;
  /** May answer input_required (2026-07-28 basic/patterns/mrtr). */
  readonly inputRequired?: boolean;
  /** May be sent again on a new id when a 2026-07-28 stream breaks; never a tools/call (docs/protocol.md
   *  "A broken 2026-07-28 stream"). */
  readonly idempotent?: boolean;
  /** A 2026-07-28 client must have declared the tasks extension on the request (tasks extension "Error
   *  Handling": -32021 first, whatever the params). */
  readonly needsTasksExtension?: boolean;
}

const cursor = z.object({ cursor: z.string().optional() }).passthrough();
const taskId = z.object({ taskId: z.string() }).passthrough();

/** A list method: a cursor in, one page out, safe to send again. */
const list = <R extends z.ZodTypeAny>(result: R) =>
  ({ kind: 'request', from: 'client', span: all, params: cursor, result, idempotent: true }) as const;

export const METHODS = {
  initialize: {
    kind: 'request',
    from: 'client',
    span: legacyOnly,
    params: z.object({ protocolVersion: z.string(), capabilities: obj, clientInfo: obj.optional() }).passthrough(),
  },
  ping: { kind: 'request', from: 'client', span: legacyOnly },
  'logging/setLevel': {
    kind: 'request',
    from: 'client',
    span: legacyOnly,
    params: z.object({ level: z.string() }).passthrough(),
  },
  'resources/subscribe': {
    kind: 'request',
    from: 'client',
    span: legacyOnly,
    params: z.object({ uri: z.string() }).passthrough(),
  },
  'resources/unsubscribe': {
    kind: 'request',
    from: 'client',
    span: legacyOnly,
    params: z.object({ uri: z.string() }).passthrough(),
  },
  'server/discover': { kind: 'request', from: 'client', span: modernOn, idempotent: true },
  'subscriptions/listen': { kind: 'request', from: 'client', span: modernOn, accepted: all },
  'tools/list': list(RESULT.listTools),
  'tools/call': {
    kind: 'request',
    from: 'client',
    span: all,
    params: z.object({ name: z.string(), arguments: obj.optional() }).passthrough(),
    result: RESULT.callTool,
    mcpName: MCP_NAME['tools/call'],
    inputRequired: true,
  },
  'prompts/list': list(RESULT.listPrompts),
  'prompts/get': {
    kind: 'request',
    from: 'client',
    span: all,
    params: z.object({ name: z.string(), arguments: z.record(z.string()).optional() }).passthrough(),
    result: RESULT.getPrompt,
    mcpName: MCP_NAME['prompts/get'],
    inputRequired: true,
    idempotent: true,
  },
  'resources/list': list(RESULT.listResources),
  'resources/read': {
    kind: 'request',
    from: 'client',
    span: all,
    params: z.object({ uri: z.string() }).passthrough(),
    result: RESULT.readResource,
    mcpName: MCP_NAME['resources/read'],
    inputRequired: true,
    idempotent: true,
  },
  'resources/templates/list': list(RESULT.listResourceTemplates),
  // The Skills extension's methods (SEP-2640), answered in every revision: the extension declares itself
  // through a legacy initialize as well (docs/protocol.md "Skills").
  'skills/list': list(SKILL_RESULTS.list),
  'skills/get': {
    kind: 'request',
    from: 'client',
    span: all,
    params: skillGetParams,
    result: SKILL_RESULTS.get,
    idempotent: true,
  },
  'completion/complete': {
    kind: 'request',
    from: 'client',
    span: all,
    params: z
      .object({ ref: obj, argument: z.object({ name: z.string(), value: z.string() }).passthrough() })
      .passthrough(),
    result: RESULT.complete,
    idempotent: true,
  },
  // Core tasks are honoured from any legacy client (docs/protocol.md "Accept liberally"); tasks/result and
  // tasks/list do not exist in the extension, and the SEP's -32601 overrides accepting liberally.
  'tasks/get': {
    kind: 'request',
    from: 'client',
    span: { since: '2025-11-25' },
    accepted: all,
    params: taskId,
    mcpName: MCP_NAME['tasks/get'],
    needsTasksExtension: true,
  },
  'tasks/result': {
    kind: 'request',
    from: 'client',
    span: coreTasks,
    accepted: legacyOnly,
    params: taskId,
    needsTasksExtension: true,
  },
  'tasks/list': { kind: 'request', from: 'client', span: coreTasks, accepted: legacyOnly, params: cursor },
  'tasks/cancel': {
    kind: 'request',
    from: 'client',
    span: { since: '2025-11-25' },
    accepted: all,
    params: taskId,
    mcpName: MCP_NAME['tasks/cancel'],
    needsTasksExtension: true,
  },
  // The tasks extension's own method (2026-07-28 only, and only to a client that declared it).
  'tasks/update': {
    kind: 'request',
    from: 'client',
    span: modernOn,
    params: taskId.extend({ inputResponses: obj }).passthrough(),
    mcpName: MCP_NAME['tasks/update'],
    needsTasksExtension: true,
  },
  'notifications/initialized': { kind: 'notification', from: 'client', span: legacyOnly },
  'notifications/cancelled': {
    kind: 'notification',
    from: 'client',
    span: all,
    params: z.object({ requestId: z.union([z.string(), z.number()]), reason: z.string().optional() }).passthrough(),
  },
  'notifications/progress': { kind: 'notification', from: 'client', span: legacyOnly },
  'notifications/roots/list_changed': { kind: 'notification', from: 'client', span: legacyOnly },
  // Questions a server may put to a client (docs/questions.md).
  'roots/list': { kind: 'request', from: 'server', span: all },
  'sampling/createMessage': { kind: 'request', from: 'server', span: all },
  'elicitation/create': { kind: 'request', from: 'server', span: { since: '2025-06-18' } },
} as const satisfies Record<string, MethodDescriptor>;

type MethodName = keyof typeof METHODS;
type Of<K extends 'request' | 'notification', F extends 'client' | 'server'> = {
  [M in MethodName]: (typeof METHODS)[M] extends { kind: K; from: F } ? M : never;
}[MethodName];
/** The requests a client sends a server: the server has one handler for each (server/handlers.ts). */
export type ClientRequest = Of<'request', 'client'>;
export type ClientNotification = Of<'notification', 'client'>;

/** The params a handler of `M` receives: parsed by its descriptor's schema, else the raw object. */
export type ParamsOf<M extends MethodName> = (typeof METHODS)[M] extends { params: infer S extends z.ZodTypeAny }
  ? z.infer<S>
  : JsonObject;

/** The result a handler of `M` returns and an upstream's answer to `M` is checked to be (its descriptor's
 *  `result`, in the newest shape; the edge spells it down): as vscode-languageserver's ProtocolRequestType
 *  carries its result. A method whose result mcpx does not check is any JSON object. */
export type ResultOf<M extends string> = M extends MethodName
  ? (typeof METHODS)[M] extends { result: infer S extends z.ZodTypeAny }
    ? z.infer<S>
    : JsonObject
  : JsonObject;

/** The results the provider hands the server, by their descriptors. */
export type CallToolResult = ResultOf<'tools/call'>;
export type GetPromptResult = ResultOf<'prompts/get'>;
export type ReadResourceResult = ResultOf<'resources/read'>;
export type CompleteResult = ResultOf<'completion/complete'>;

/** The descriptor of `method`, or undefined: own rows only, so a method named like an Object.prototype
 *  member ("__proto__") is no method. */
export function methodOf(method: string): MethodDescriptor | undefined {
  return Object.hasOwn(METHODS, method) ? (METHODS as Record<string, MethodDescriptor>)[method] : undefined;
}

/** A question (server→client request) by name, or undefined. */
export function questionOf(method: string): MethodDescriptor | undefined {
  const d = methodOf(method);
  return d?.from === 'server' && d.kind === 'request' ? d : undefined;
}

/** The checks written once for the schemas read on every call (fastShapes.ts): a value they pass is used
 *  as it is; any other goes to the schema. */
const FAST_PARAMS = new Map<z.ZodTypeAny, (v: unknown) => boolean>([[METHODS['tools/call'].params, callToolParamsOk]]);
const FAST_RESULTS: Readonly<Record<string, (v: unknown) => boolean>> = { 'tools/call': callToolResultOk };

/** Parse params with a schema; a mismatch is -32602 naming the first bad path. */
export function readParams<T extends z.ZodTypeAny>(schema: T, params: unknown): z.infer<T> {
  if (FAST_PARAMS.get(schema)?.(params ?? {})) return (params ?? {}) as z.infer<T>;
  const r = schema.safeParse(params ?? {});
  if (r.success) return r.data;
  const i = r.error.issues[0]!;
  throw invalidParams(`Invalid params: ${['params', ...i.path].join('.')}: ${i.message}`);
}

/** What is wrong with an upstream's result to `method` ("content must be an array"), or undefined when it
 *  has the shape every revision requires (or the method has no shape checked). One safeParse. */
export function resultProblem(
  method: string,
  result: unknown,
  /** What the schema reads instead of `result`, when the quick check does not settle it. */
  forSchema: () => unknown = () => result,
): string | undefined {
  if (Object.hasOwn(FAST_RESULTS, method) && FAST_RESULTS[method]!(result)) return undefined;
  const schema = methodOf(method)?.result;
  if (!schema) return undefined;
  const r = schema.safeParse(forSchema());
  return r.success ? undefined : described(r.error.issues[0]!, result);
}

/** The methods a client may send, as plain JSON (GET /v1/protocol): each one's span, flattened, with what
 *  else its descriptor says. */
export function methodTable(): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  for (const [name, d] of Object.entries(METHODS as Record<string, MethodDescriptor>)) {
    if (d.from !== 'client') continue;
    const row: JsonObject = { ...d.span, kind: d.kind };
    if (d.accepted) row.accepted = d.accepted;
    if (d.mcpName) row.mcpName = d.mcpName;
    if (d.inputRequired) row.inputRequired = true;
    if (d.idempotent) row.idempotent = true;
    out[name] = row;
  }
  return out;
}

/** Whether a client's request or notification is answered for a request of revision `rev`. */
export function methodAnswered(method: string, rev: Revision): boolean {
  const d = methodOf(method);
  if (d?.from !== 'client') return false;
  if (d.span.removedIn && !inSpan(rev, { since: OLDEST, removedIn: d.span.removedIn })) return false;
  return inSpan(rev, d.accepted ?? d.span);
}
