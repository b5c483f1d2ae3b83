// What the server serves, supplied by the gateway (or by a test). Everything is in the newest shape;
// the server spells it down at the edge.
import type { JsonObject } from '../protocol/jsonrpc';
import type { LogLevel } from '../protocol/meta';
import type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  ParamsOf,
  ReadResourceResult,
} from '../protocol/methods';
import type { Principal } from '../protocol/principal';
import type { Revision } from '../protocol/revisions';
import type { Span, TraceContext } from '../telemetry/trace';
import type { Abort } from '../wire/abort';

/** What one request knows about its caller, and how it talks back while it runs. */
export interface CallContext {
  readonly rev: Revision;
  readonly signal: AbortSignal;
  /** The same abort as `signal`, without building an AbortSignal (wire/abort.ts); absent where a
   *  caller made the context with a signal only. */
  readonly abort?: Abort;
  /** Who the request is from (docs/protocol.md "Client identity"). */
  readonly identity: string;
  /** The subject of the verified access token the request came with (docs/security.md "Two ways in"):
   *  its identity is the token's; none for the person and for stdio. */
  readonly principal?: Principal;
  /** Capabilities the client declared: per request (2026-07-28) or at initialize (legacy). */
  readonly clientCapabilities: JsonObject;
  /** The calling client's name (clientInfo: at initialize, or per request in 2026-07-28), to show a person
   *  on whose behalf a question comes. */
  readonly clientName?: string;
  /** The calling client's declared version (clientInfo.version; untrusted), for the activity record. */
  readonly clientVersion?: string;
  /** How the caller reached mcpx: HTTP, stdio (a standalone gateway), the stdio shim (a request carrying
   *  its header past the endpoint secret), or the editor (the palette and views). */
  readonly transport?: 'http' | 'stdio' | 'shim' | 'editor';
  /** The request's own `_meta` (trace context and the like travel in it). */
  readonly meta: JsonObject;
  /** The profile whose endpoint the request came to (docs/gateway.md "Profiles"); undefined: the default
   *  endpoint. */
  readonly profile?: string;
  /** While telemetry is on, this request's span: the parent of the upstream requests made for it
   *  (docs/gateway.md "Telemetry"). */
  readonly trace?: TraceContext;
  /** While telemetry is on, this request's SERVER span (the call chain's `recorded` step names the
   *  decision on it). */
  readonly span?: Span;
  /** The log level this request asked for: per request (2026-07-28) or set with logging/setLevel. */
  readonly logLevel?: LogLevel;
  /** 2026-07-28 HTTP: the Mcp-Param-* headers the request came with (lower-case names, raw values). */
  readonly paramHeaders?: Readonly<Record<string, string>>;
  /** Report progress, if the request asked for it (a progressToken). */
  progress(progress: number, total?: number, message?: string): void;
  /** Send a log message, if the client asked for this level or a more verbose one. */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /** Send the client a notification about this request even after it was answered: on the request's
   *  own stream while it runs, then on its connection where one can be pushed to (stdio, a legacy
   *  session's GET stream); nowhere otherwise. Absent where the caller has neither (the editor). */
  tell?(method: string, params: JsonObject): void;
  /** The client would take this call as a task: it declared the tasks extension on this 2026-07-28
   *  request, or asked for one (2025-11-25 `task`). An upstream that supports tasks is then asked for one
   *  too, so the work is not held in mcpx's memory alone (docs/protocol.md "Tasks"). */
  readonly wantsTask?: boolean;
  /** An upstream's task may be driven to its end by mcpx for this caller: it would take a task, or its
   *  era cannot be handed a server-directed one (the codec's `tasks.mayDrive`; docs/protocol.md "Tasks"). */
  readonly mayDriveTask?: boolean;
  /** The task this call runs as, once it is one (the activity record names it). */
  readonly taskId?: string;
  /** The upstream made this call a task: the client's call becomes one too, where it can (a 2026-07-28
   *  call in its eager window). Absent where the call cannot become a task. */
  becomeTask?(): void;
  /** Put a question (elicitation/create, sampling/createMessage, roots/list) to the calling client,
   *  where it can be asked on this request: a legacy client on stdio or in an HTTP session. Absent
   *  otherwise. Throws ProtocolError with the client's error, or when the question cannot be said in
   *  the client's revision. `key` is kept as the inputRequests key where it can be (a 2026-07-28
   *  upstream's own key, relayed as it was). */
  ask?(method: string, params: JsonObject, signal: AbortSignal, key?: string): Promise<JsonObject>;
}

/** What the provider delivers; the server declares exactly this and nothing more (docs/protocol.md
 *  "Capabilities declared only where delivered"). */
export interface ProviderCapabilities {
  tools?: boolean;
  prompts?: boolean;
  resources?: boolean;
  completions?: boolean;
  /** The provider sends log messages through CallContext.log. */
  logging?: boolean;
  /** Lists that really change, announced through onListChanged (docs/protocol.md "Capabilities declared only where delivered"). */
  listChanged?: { tools?: boolean; prompts?: boolean; resources?: boolean };
  /** Its tools' handles say their task support (ToolHandle.taskSupport): tools/call may become a task. */
  tasks?: boolean;
  /** Extensions it carries beyond tasks, each with its settings (declared where the revision has
   *  `extensions`: the edge drops them for one without). */
  extensions?: JsonObject;
}

export type ListKind = 'tools' | 'prompts' | 'resources';

/** An upstream's log message that relates to no call (docs/protocol.md "Log messages relayed"). */
export interface UnrelatedLog {
  level: LogLevel;
  data: unknown;
  logger?: string;
  /** Only this identity's connections hear it (an identity-scoped upstream's); everyone's otherwise. */
  identity?: string;
}
export type TaskSupport = 'required' | 'optional' | 'forbidden';

/** A tool as one call finds it, looked up once per call: what the server decides with (task support, the
 *  input schema whose x-mcp-header annotations the request's headers must match) and the call itself. */
export interface ToolHandle {
  readonly name: string;
  /** Its execution.taskSupport as listed to this caller (2025-11-25 server/tools "Tool-Level
   *  Negotiation"); undefined where it declares none or mcpx does not know (a 2026-07-28 upstream's). */
  readonly taskSupport?: TaskSupport;
  /** Its input schema as listed to this caller; undefined for a tool it does not list. */
  readonly inputSchema?: JsonObject;
  call(args: JsonObject, ctx: CallContext): Promise<CallToolResult>;
}

export interface Provider {
  /** What it delivers, to the clients of `profile`'s endpoint (undefined: the default endpoint). */
  capabilities(profile?: string): ProviderCapabilities;
  /** Whether it serves a profile of this name at /mcp/<secret>/<name> (docs/gateway.md "Profiles"). */
  hasProfile?(name: string): boolean;
  /** Who a profile's endpoint admits (docs/gateway.md "Profiles", `access`): the scopes a token must
   *  carry there, and whether `principal` (a token's caller; none: the person) matches its subjects and
   *  claims. Undefined: a profile with no such rule. */
  profileAccess?(name: string, principal?: Principal): { scopes: readonly string[]; admitted: boolean } | undefined;
  instructions?(): string | undefined;
  listTools?(ctx: CallContext): Promise<JsonObject[]>;
  /** The tool a tools/call names, or undefined for none (the server answers -32602 "no tool named ...").
   *  Answered at once where nothing needs looking up (every tools/call asks it). */
  resolveTool?(name: string, ctx: CallContext): ToolHandle | undefined | Promise<ToolHandle | undefined>;
  listPrompts?(ctx: CallContext): Promise<JsonObject[]>;
  getPrompt?(name: string, args: Record<string, string>, ctx: CallContext): Promise<GetPromptResult>;
  listResources?(ctx: CallContext): Promise<JsonObject[]>;
  listResourceTemplates?(ctx: CallContext): Promise<JsonObject[]>;
  /** Whether the list `method` answers depends on the caller (an identity's own upstream instance): its
   *  cacheScope is then `private`, never `public` (docs/protocol.md "Cache hints on lists"). */
  listsPerCaller?(method: string, ctx: CallContext): boolean;
  /** The skills its offered servers serve (the Skills extension, SEP-2640 skills/list), as entries. */
  listSkills?(ctx: CallContext): Promise<JsonObject[]>;
  /** One skill's entry by its SKILL.md URI (SEP-2640 skills/get): -32602 for one it does not serve. */
  getSkill?(uri: string, ctx: CallContext): Promise<JsonObject>;
  /** Throws the resource-not-found error (errors.resourceNotFound) for an unknown URI. */
  readResource?(uri: string, ctx: CallContext): Promise<ReadResourceResult>;
  /** The params as the method's descriptor read them (protocol/methods.ts: ref and argument checked). */
  complete?(params: ParamsOf<'completion/complete'>, ctx: CallContext): Promise<CompleteResult>;
  /** Watch a resource: `deliver` is called with `uri` whenever it changes, until `release`.
   *  `deliverable` says whether updates will arrive at all (and `reason` why not). */
  subscribe?(
    uri: string,
    deliver: (uri: string) => void,
    ctx: CallContext,
  ): Promise<{ deliverable: boolean; reason?: string; release(): void }>;
  /** Register the one listener the server uses to announce list changes to its clients: `reaches` says
   *  which endpoints' clients (a profile's name; undefined for the default endpoint) are told. */
  onListChanged?(listener: (kind: ListKind, reaches?: (profile: string | undefined) => boolean) => void): void;
  /** Register the one listener the server uses to pass on log messages that relate to no call. */
  onLog?(listener: (entry: UnrelatedLog) => void): void;
  /** An identity made for one 2026-07-28 request has ended with its call: what the provider keeps for
   *  it alone (an upstream instance of a `scope: "identity"` server) may go. */
  identityEnded?(identity: string): void;
  /** A listen stream that asked for list changes is about to be acknowledged: whatever the provider
   *  needs to hear them is in place when this resolves. */
  listening?(): Promise<void>;
  /** The endpoint secret of a listener serving it: kept out of what it records, as a configured secret is
   *  (an agent may pass the gateway's URL or its Bearer header on as an argument). */
  endpointSecret?(secret: string): void;
}
