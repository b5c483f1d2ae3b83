// What differs between the eras, as one interface: every question code used to answer by testing the
// era is a member here, answered as data or a pure function by legacy.ts (2024-11-05..2025-11-25) and
// modern.ts (2026-07-28). A request's codec is chosen once (index.ts `codecFor`) and travels with it.
import type { EnvelopeOptions } from '../envelope';
import type { JsonObject } from '../jsonrpc';
import type { LogLevel } from '../meta';
import type { Era, Revision } from '../revisions';

/** What a connection knows of its client: from initialize and logging/setLevel (legacy). */
interface ConnectionState {
  readonly clientCapabilities: JsonObject;
  readonly clientInfo?: unknown;
  readonly logLevel?: LogLevel;
}

/** What one request says of its caller, wherever the era keeps it. */
interface Caller {
  readonly capabilities: JsonObject;
  readonly clientInfo: unknown;
  readonly logLevel?: LogLevel;
}

/** A task as the server holds it, in plain data: what each era spells its Task and DetailedTask from. */
export interface TaskView {
  readonly taskId: string;
  readonly status: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  readonly ttlMs: number;
  readonly pollMs: number;
  readonly statusMessage?: string;
  /** Its result, once completed (the tools/call result in the newest shape). */
  readonly result?: JsonObject;
  /** Its error, once failed (what the wire would carry is chosen per revision). */
  readonly error?: unknown;
  /** The questions it waits on, by key, while input_required. */
  readonly inputRequests?: JsonObject;
}

/** Tasks as each era has them: 2025-11-25 core tasks (client-directed, the `task` field) or the 2026-07-28
 *  tasks extension (server-directed, declared per request). Both sides: mcpx serves tasks and drives an
 *  upstream's. */
interface TaskCodec {
  /** Whether a request may use tasks at all: the extension must be declared on it (core: always). */
  declared(caps: JsonObject): boolean;
  /** Whether mcpx may drive an upstream's task to its end for a caller (`wanted`: it would take one): a
   *  legacy caller cannot be handed a server-directed task, so mcpx drives it; a 2026-07-28 caller that
   *  did not declare the extension gets the upstream's -32021 (docs/protocol.md "Tasks"). */
  mayDrive(wanted: boolean): boolean;
  /** A tool result with isError ends the task failed (2025-11-25 TaskStatus) or completed (the extension). */
  fails(result: JsonObject | undefined): boolean;
  /** The Task, its two fields named each era's way (2025-11-25 schema Task; the extension's Task). */
  shape(task: TaskView): JsonObject;
  /** tasks/get's answer: the Task, or the DetailedTask with the result inlined (the extension), spelled
   *  for `rev`, its questions only those the client declared (`asks`: protocol/questions.ts). */
  get(task: TaskView, rev: Revision, asks: (method: string, params: JsonObject) => boolean): JsonObject;
  /** tasks/cancel's answer: the cancelled Task (a terminal one is -32602), or an empty acknowledgement. */
  cancel(task: TaskView, ended: boolean): JsonObject;
  /** The tasks a listen stream's filter follows (the extension's taskIds); none where tasks are followed
   *  by notifications/tasks/status instead (core). */
  followed(taskIds: unknown): unknown;
  /** The answer to a tools/call that became a task (CreateTaskResult), from the Task. */
  created(task: JsonObject): JsonObject;
  /** mcpx as a client: the Task in an upstream's answer to an augmented tools/call, if it made one. */
  createdOf(result: JsonObject): JsonObject | undefined;
  /** mcpx as a client: the method that collects an upstream task of this status now, if one does
   *  (core: tasks/result once it has ended or asks; the extension reads tasks/get). */
  collect(status: string): 'tasks/result' | undefined;
  /** mcpx as a client: a poll interval in a Task as the era names it. */
  pollOf(task: JsonObject): unknown;
  /** mcpx as a client: a tools/call's params asking for a task, and the capabilities that go with it. */
  augment(params: JsonObject): JsonObject;
  declare(caps: JsonObject): JsonObject;
  /** mcpx as a client: whether to ask this upstream for a task first (its capabilities, the tool's
   *  listed execution.taskSupport, whether the calling client would take one). */
  augmentFirst(upstreamCaps: JsonObject, support: string | undefined, wanted: boolean): boolean;
}

/** How a request is run, as the server's strategies name them (server/strategies/). */
export type Strategy = 'direct' | 'background' | 'task';

/** Every member is behaviour the code calls without testing which era it has (the MCP SDK's WireCodec):
 *  what differs between the eras is answered here, once. */
export interface EraCodec {
  /** For display and the era cache only: code asks the members below, never this. */
  readonly era: Era;
  /** How a peer states its revision: at initialize (legacy), or per request in `_meta` after
   *  server/discover (2026-07-28). Read only within protocol/eras/ and by the era probe's table. */
  readonly handshake: 'initialize' | 'discover';

  // ---- mcpx as a server --------------------------------------------------------------------------
  /** Where the caller's capabilities, client info and log level come from: the request's own `_meta`
   *  (2026-07-28 basic/index: checked, -32602 naming what is missing; undefined where it has none) or its
   *  connection. */
  caller(meta: JsonObject | undefined, conn: ConnectionState): Caller;
  /** Who a request that names no identity is from: its connection's (`connection`), or one made for it
   *  alone (`fresh`; docs/protocol.md "Client identity"). */
  identity(connection: string, fresh: () => string): string;
  /** The channel a question to the client rides while its request runs: the request's own, where it can
   *  carry a request (legacy); none where questions are input_required results (2026-07-28
   *  basic/patterns/mrtr). */
  questionChannel<T>(channel: T | undefined): T | undefined;
  /** How a request is run: in a 2026-07-28 background round where its method may answer input_required, as
   *  a task where a legacy client asked for one (`wantsTask`, read only then), else directly. */
  strategy(inputRequired: boolean, wantsTask: () => boolean): Strategy;
  /** Streamable HTTP: a successful `method` opens a session (legacy initialize, 2025-03-26..2025-11-25). */
  opensSession(method: string): boolean;
  /** subscriptions/listen is acknowledged first (notifications/subscriptions/acknowledged, sent by `send`);
   *  accepted liberally from legacy clients, which get no acknowledgement. */
  acknowledge(send: () => void): void;
  /** A list request's cursor as mcpx reads it: an empty one is no cursor to a legacy client, a cursor
   *  mcpx never issued to 2026-07-28. Both sides: mcpx as a client stops a list at `listEnds`. */
  cursor(c: string | undefined): string | undefined;
  listEnds(next: unknown): boolean;
  /** A result of `method`, built in the newest shape, spelled for `rev`: a copy without what `rev` lacks,
   *  in the 2026-07-28 envelope where the era has one. */
  spell(method: string, result: JsonObject, rev: Revision, envelope: () => EnvelopeOptions): JsonObject;
  /** Whether a request is cancelled with notifications/cancelled (else, 2026-07-28 HTTP, by closing its
   *  stream). */
  cancelsByNotice(transport: 'stdio' | 'http'): boolean;
  /** Streamable HTTP: whether a GET opens a push stream (a legacy session's). */
  readonly http: { readonly pushStream: boolean };
  readonly tasks: TaskCodec;

  // ---- mcpx as a client --------------------------------------------------------------------------
  readonly client: {
    /** The `_meta` entries of each request (2026-07-28: version, capabilities spelled for it, client info,
     *  log level); none for legacy, which declared them at initialize. */
    meta(o: { capabilities: JsonObject; clientInfo: JsonObject; logLevel?: LogLevel }): JsonObject;
    /** Whether a call's log level is set by logging/setLevel on an upstream of these capabilities (legacy,
     *  where it logs); 2026-07-28 states it in each request. */
    setsLevel(upstreamCaps: JsonObject): boolean;
    /** The headers of a request over Streamable HTTP beyond the transport's own (2026-07-28:
     *  MCP-Protocol-Version, Mcp-Method, Mcp-Name, a value `encode`d: wire/headers.ts); undefined where
     *  the era has none. */
    headers(method: string, params: JsonObject, encode: (value: string) => string): Record<string, string> | undefined;
    /** Whether a tool's x-mcp-header annotations are honoured over this transport (2026-07-28 HTTP). */
    paramHeaders(transport: 'stdio' | 'http' | 'sse'): boolean;
    /** Whether a request the upstream sends mcpx is left unanswered: 2026-07-28 servers send none, and one
     *  that does is not answered while that revision is held strictly (docs/protocol.md "A request from a
     *  2026-07-28 upstream"). */
    ignoresRequests(strict: boolean): boolean;
    /** How resource updates are followed: resources/subscribe, or a listen stream mcpx keeps open. */
    readonly subscriptions: 'subscribe' | 'listen';
    /** A change of mcpx's roots announced (`notify`: notifications/roots/list_changed; 2026-07-28 has none). */
    rootsChanged(notify: () => void): void;
    /** Once a request is answered: the session's GET stream for what the upstream sends unasked is opened
     *  (`open`), where the era has one. */
    answered(open: () => void): void;
    /** Whether an initialize refused over Streamable HTTP with `status` is tried again over the deprecated
     *  HTTP+SSE transport: a status that is no 2026-07-28 error (400, 404, 405; 2026-07-28
     *  streamable-http "Backward Compatibility"). */
    sseFallback(status: number | undefined): boolean;
    /** Whether tools/list is asked of an upstream of these capabilities (legacy servers list tools
     *  undeclared; a 2026-07-28 server's capabilities from server/discover are whole). */
    listsTools(upstreamCaps: JsonObject): boolean;
  };

  /** The era's newest revision: what a person is shown as a task's or a call's revision (the editor's Tasks view). */
  readonly newest: Revision;
  // ---- the stdio shim ----------------------------------------------------------------------------
  /** How a stdio client's request reaches the gateway through the shim (docs/gateway.md "The stdio
   *  shim"): in the session the client's initialize opened, or alone with the headers its era requires. */
  readonly shimTravel: 'session' | 'alone';
  /** Where a client's extensions reach an upstream: in each request (2026-07-28 `_meta`), or once at
   *  initialize for the whole connection, so clients that declare different ones need an instance each
   *  (docs/protocol.md "Extensions across the gateway"). */
  readonly extensions: 'per-request' | 'per-connection';
}
