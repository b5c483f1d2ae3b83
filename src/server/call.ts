// One request as the server runs it, from the transport to the provider and back: its revision and codec,
// who it is from, what its caller declared, its abort, its progress token and the relay it talks back
// through. The pipeline (server.ts) fills it step by step; it *is* the CallContext a provider receives and
// the context a handler gets, with its methods on the prototype (a request builds one object, not a dozen
// closures).
import type { Policy } from '../config/policy';
import type { Settings } from '../config/settings';
import { downgradeNotification } from '../protocol/downgrade';
import { type EraCodec, codecFor } from '../protocol/eras';
import {
  type Id,
  type JsonObject,
  type Notification,
  type Request,
  type Response,
  isObject,
  notificationMsg,
} from '../protocol/jsonrpc';
import { META, type LogLevel, atLeastLevel, clientNameOf } from '../protocol/meta';
import type { Principal } from '../protocol/principal';
import type { Revision } from '../protocol/revisions';
import type { Span, TraceContext } from '../telemetry/trace';
import type { Abort } from '../wire/abort';
import { type Conn, PER_REQUEST } from './conn';
import type { BackgroundCall } from './mrtr';
import type { CallContext, Provider, ToolHandle } from './provider';
import type { Tasks } from './tasks';
import type { Json } from '../wire/raw';

export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
}

/** What a handler may use beyond its request: the provider, the settings, who the server is, the listen
 *  streams and the tasks. */
export interface Services {
  provider: Provider;
  settings: Settings;
  serverInfo: ServerInfo;
  policy: Policy;
  listen(call: ServerCall, filter: JsonObject): Promise<JsonObject>;
  /** Every task of this server (tasks.ts). */
  tasks: Tasks;
}

/** How a request talks back while it runs, as its transport offers: notifications on its own channel, a
 *  request to the client where the channel can carry one (legacy stdio, a legacy HTTP session whose
 *  client accepts SSE), and its Mcp-Param-* headers (2026-07-28 HTTP: lower-case names without the prefix). */
export interface Channel {
  emit(n: Notification): void;
  send?(req: Request): void;
  paramHeaders?: Record<string, string>;
}

/** What comes back to the runner. */
export interface Outcome {
  /** Absent when the client cancelled the request: nothing is sent for it. */
  response: Response | undefined;
  /** The response's JSON, serialized once by the runner for its size check; writers send it. */
  text?: Json;
  /** The revision the response was spelled for (picks the HTTP status). */
  rev: Revision;
  /** Set when the request opens a session where its era has them (a legacy initialize: HTTP mints one
   *  when it succeeded). */
  session?: boolean;
}

export class ServerCall implements CallContext {
  /** The request's revision and its codec: the transport's, until the revision step reads the request. */
  rev: Revision;
  codec: EraCodec;
  /** Who the request is from (the identity step; docs/protocol.md "Client identity"). */
  identity = '';
  /** What its caller declared (the caller step: per request in 2026-07-28, else the connection's). */
  clientCapabilities: JsonObject = {};
  logLevel?: LogLevel;
  private clientInfo?: unknown;
  /** The request's own `_meta` (trace context and the like travel in it). */
  readonly meta: JsonObject;
  /** The work's abort: the request's, or the background call's that outlives it. */
  abort: Abort;
  /** tools/call: the tool, looked up once (its task support, input schema and call). */
  tool?: ToolHandle;
  /** The background call the work runs in, once a strategy moved it there. */
  background?: BackgroundCall;
  /** The work outlives this request (a background call or a task): its identity ends with the work. */
  detached = false;
  declare ask?: CallContext['ask'];
  /** This request, where it can carry requests to the client: a task's questions may ride it (tasks/result). */
  declare channel?: ServerCall;
  wantsTask?: boolean;
  declare becomeTask?: () => void;
  /** Questions this call has put to its client on a channel so far (proto.askRounds bounds them). */
  asked = 0;
  /** The request's SERVER span, while telemetry is on (server.ts `handle`). */
  span?: Span;
  private done = false;
  private lastProgress = -Infinity;

  /** The request's own abort (a cancellation, a closed connection). */
  readonly request: Abort;
  readonly relay: Channel;
  readonly services: Services;

  constructor(
    readonly conn: Conn,
    readonly req: Request,
    o: { rev: Revision; request: Abort; relay: Channel; services: Services },
  ) {
    this.rev = o.rev;
    this.codec = codecFor(o.rev);
    this.request = o.request;
    this.relay = o.relay;
    this.services = o.services;
    this.abort = o.request;
    this.meta = isObject(req.params) && isObject(req.params._meta) ? req.params._meta : {};
  }

  get id(): Id {
    return this.req.id;
  }
  get method(): string {
    return this.req.method;
  }
  /** The params as they came (the requestState binding hashes these). */
  get params(): JsonObject {
    return isObject(this.req.params) ? this.req.params : {};
  }
  /** Built only when read (most calls only need `abort`). */
  get signal(): AbortSignal {
    return this.abort.signal;
  }
  get clientName(): string | undefined {
    return clientNameOf(this.clientInfo);
  }
  get trace(): TraceContext | undefined {
    return this.span?.context;
  }
  get clientVersion(): string | undefined {
    const v = isObject(this.clientInfo) ? this.clientInfo.version : undefined;
    return typeof v === 'string' ? v : undefined;
  }
  get mayDriveTask(): boolean {
    return this.codec.tasks.mayDrive(this.wantsTask === true);
  }
  get taskId(): string | undefined {
    return this.background?.taskId;
  }
  get profile(): string | undefined {
    return this.conn.profile;
  }
  get principal(): Principal | undefined {
    return this.conn.principal;
  }
  get transport(): 'http' | 'stdio' | 'shim' {
    return this.conn.viaShim ? 'shim' : this.conn.transport;
  }
  get paramHeaders(): Readonly<Record<string, string>> | undefined {
    return this.relay.paramHeaders;
  }

  /** The revision is settled: its codec answers from now on. */
  settle(rev: Revision): void {
    if (rev === this.rev) return;
    this.rev = rev;
    this.codec = codecFor(rev);
  }

  /** The caller step: what the request says of its caller, where its era keeps it (checked). */
  enter(): void {
    const c = this.codec.caller(isObject(this.params._meta) ? this.params._meta : undefined, this.conn);
    this.clientCapabilities = c.capabilities;
    this.clientInfo = c.clientInfo;
    this.logLevel = c.logLevel;
  }

  /** An identity made for this request alone ends with its work: what the provider keeps for it may go
   *  (docs/security.md "Bounds"). */
  endIdentity(): void {
    if (this.identity.startsWith(PER_REQUEST)) this.services.provider.identityEnded?.(this.identity);
  }

  notify(method: string, p: JsonObject): void {
    if (this.done || this.request.aborted) return;
    const spelled = downgradeNotification(method, p, this.rev, {
      stripProgressMessage: this.services.policy.governs(this.rev),
    });
    this.relay.emit(notificationMsg(method, spelled));
  }

  tell(method: string, p: JsonObject): void {
    if (!this.done && !this.request.aborted) return this.notify(method, p);
    if (this.conn.canPush) this.conn.push!(notificationMsg(method, downgradeNotification(method, p, this.rev)));
  }

  progress(progress: number, total?: number, message?: string): void {
    // Progress MUST increase (basic/utilities/progress); a report that does not is not sent.
    const token = this.meta.progressToken;
    if ((typeof token !== 'string' && typeof token !== 'number') || progress <= this.lastProgress) return;
    this.lastProgress = progress;
    if (this.background) this.background.progress = { progress, total };
    const p: JsonObject = { progressToken: token, progress };
    if (total !== undefined) p.total = total;
    if (message !== undefined) p.message = message;
    this.notify('notifications/progress', p);
  }

  log(level: LogLevel, data: unknown, logger?: string): void {
    // No level requested, no messages (2026-07-28 MUST NOT; mcpx takes the same reading for legacy).
    if (!this.logLevel || !atLeastLevel(level, this.logLevel)) return;
    this.notify('notifications/message', logger === undefined ? { level, data } : { level, logger, data });
  }

  /** Nothing more goes on the request's channel (its response is on its way). */
  finish(): void {
    this.done = true;
  }
}

/** The client named this identity in `_meta["dev.mcpx/session"]`, if it did. */
export const sessionOf = (call: ServerCall): string | undefined => {
  const s = call.meta[META.session];
  return typeof s === 'string' && s !== '' ? s : undefined;
};
