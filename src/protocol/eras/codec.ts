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

/** Tasks as each era has them: 2025-11-25 core tasks (client-directed, the `task` field) or the 2026-07-28
 *  tasks extension (server-directed, declared per request). Both sides: mcpx serves tasks and drives an
 *  upstream's. */
interface TaskCodec {
  /** Who decides that a tools/call becomes a task: the client (it sends `task`) or the server (the eager
   *  window). A client that cannot be handed a server-directed task has its upstream's driven by mcpx. */
  readonly directedBy: 'client' | 'server';
  /** The Task's two fields each era names its own way (2025-11-25 schema Task; the extension's Task). */
  readonly fields: { readonly ttl: 'ttl' | 'ttlMs'; readonly poll: 'pollInterval' | 'pollIntervalMs' };
  /** A tool result with isError ends the task failed (2025-11-25 TaskStatus) or completed (the extension). */
  readonly toolErrorFails: boolean;
  /** tasks/get answers the Task, or the DetailedTask with the result inlined (the extension). */
  readonly get: 'task' | 'detailed';
  /** tasks/cancel answers the cancelled Task (a terminal one is -32602), or an empty acknowledgement. */
  readonly cancel: 'task' | 'empty';
  /** A task's changes are followed on a listen stream (the extension's taskIds filter and
   *  notifications/tasks), not by notifications/tasks/status (core). */
  readonly onListen: boolean;
  /** Where a finished task's result is collected: tasks/result (core) or tasks/get (the extension). */
  readonly collect: 'tasks/result' | 'tasks/get';
  /** Whether a request may use tasks at all: the extension must be declared on it (core: always). */
  declared(caps: JsonObject): boolean;
  /** The answer to a tools/call that became a task (CreateTaskResult), from the Task. */
  created(task: JsonObject): JsonObject;
  /** mcpx as a client: the Task in an upstream's answer to an augmented tools/call, if it made one. */
  createdOf(result: JsonObject): JsonObject | undefined;
  /** mcpx as a client: a tools/call's params asking for a task, and the capabilities that go with it. */
  augment(params: JsonObject): JsonObject;
  declare(caps: JsonObject): JsonObject;
  /** mcpx as a client: whether to ask this upstream for a task first (its capabilities, the tool's
   *  listed execution.taskSupport, whether the calling client would take one). */
  augmentFirst(upstreamCaps: JsonObject, support: string | undefined, wanted: boolean): boolean;
}

export interface EraCodec {
  /** For display and the era cache only: code asks the members below, never this. */
  readonly era: Era;
  /** How a peer states its revision: at initialize (legacy), or per request in `_meta` after
   *  server/discover (2026-07-28). The era probe tries them in turn. */
  readonly handshake: 'initialize' | 'discover';

  // ---- mcpx as a server --------------------------------------------------------------------------
  /** Where the caller's capabilities, client info and log level come from: the request's own `_meta`
   *  (2026-07-28 basic/index: checked, -32602 naming what is missing; undefined where it has none) or its
   *  connection. */
  caller(meta: JsonObject | undefined, conn: ConnectionState): Caller;
  /** A request that names no identity is its own (one made for it) or its connection's
   *  (docs/protocol.md "Client identity"). */
  readonly identity: 'per-request' | 'connection';
  /** How a question reaches the client while its request runs: a server→client request on the request's
   *  channel, or an input_required result the client answers with a retry (2026-07-28 basic/patterns/mrtr). */
  readonly questions: 'wire-request' | 'input-required';
  /** Streamable HTTP sessions: minted at initialize, ended by DELETE or a 404 (2025-03-26..2025-11-25). */
  readonly sessions: boolean;
  /** subscriptions/listen is acknowledged first (notifications/subscriptions/acknowledged); accepted
   *  liberally from legacy clients, which get no acknowledgement. */
  readonly listenAck: boolean;
  /** A list request's cursor as mcpx reads it: an empty one is no cursor to a legacy client, a cursor
   *  mcpx never issued to 2026-07-28. Both sides: mcpx as a client stops a list at `listEnds`. */
  cursor(c: string | undefined): string | undefined;
  listEnds(next: unknown): boolean;
  /** A result of `method`, built in the newest shape, spelled for `rev`: a copy without what `rev` lacks,
   *  in the 2026-07-28 envelope where the era has one. */
  spell(method: string, result: JsonObject, rev: Revision, envelope: () => EnvelopeOptions): JsonObject;
  /** How a request is cancelled: notifications/cancelled, or (2026-07-28 HTTP) closing its stream. */
  cancellation(transport: 'stdio' | 'http'): 'notification' | 'close-stream';
  /** Streamable HTTP: headers every request must carry and agree with its body (MCP-Protocol-Version,
   *  Mcp-Method, Mcp-Name per the method's descriptor: -32020 otherwise), whether a batch or a client's
   *  response may be posted, and whether a GET opens a push stream. */
  readonly http: {
    readonly headersRequired: boolean;
    readonly batches: boolean;
    readonly clientResponses: boolean;
    readonly pushStream: boolean;
  };
  readonly tasks: TaskCodec;

  // ---- mcpx as a client --------------------------------------------------------------------------
  readonly client: {
    /** The `_meta` entries of each request (2026-07-28: version, capabilities spelled for it, client info,
     *  log level); none for legacy, which declared them at initialize. */
    meta(o: { capabilities: JsonObject; clientInfo: JsonObject; logLevel?: LogLevel }): JsonObject;
    /** How a call's log level reaches the upstream: in each request, or by logging/setLevel. */
    readonly logLevel: 'per-request' | 'set-level';
    /** The headers of a request over Streamable HTTP beyond the transport's own (2026-07-28:
     *  MCP-Protocol-Version, Mcp-Method, Mcp-Name, a value `encode`d: wire/headers.ts); undefined where
     *  the era has none. */
    headers(method: string, params: JsonObject, encode: (value: string) => string): Record<string, string> | undefined;
    /** A tool's x-mcp-header annotations are honoured (2026-07-28 HTTP). */
    readonly paramHeaders: boolean;
    /** The upstream may send mcpx requests (2026-07-28 servers send none: docs/protocol.md "A request
     *  from a 2026-07-28 upstream"). */
    readonly peerRequests: boolean;
    /** How resource updates are followed: resources/subscribe, or a listen stream mcpx keeps open. */
    readonly subscriptions: 'subscribe' | 'listen';
    /** A change of mcpx's roots is announced (notifications/roots/list_changed; 2026-07-28 has none). */
    readonly rootsListChanged: boolean;
    /** Where a client's extensions reach the upstream: in each request (2026-07-28 `_meta`), or once at
     *  initialize for the whole connection, so clients that declare different ones need an instance each
     *  (docs/protocol.md "Extensions across the gateway"). */
    readonly extensions: 'per-request' | 'per-connection';
  };

  /** mcpx as a client: tools/list is asked of an upstream that declared no `tools` capability (legacy
   *  servers list tools undeclared; a 2026-07-28 server's capabilities from server/discover are whole). */
  readonly listsUndeclaredTools: boolean;
  /** The era's newest revision: what a person is shown as a task's or a call's revision (the editor's Tasks view). */
  readonly newest: Revision;
  // ---- the stdio shim ----------------------------------------------------------------------------
  /** How a stdio client's request reaches the gateway through the shim (docs/gateway.md "The stdio
   *  shim"): in the session the client's initialize opened, or alone with the headers its era requires. */
  readonly shimTravel: 'session' | 'alone';
}
