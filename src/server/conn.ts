// One connection: what belongs to it and nothing that belongs to a request. A stdio process is one
// Conn; so is a legacy HTTP session; a sessionless HTTP request gets a Conn of its own.
import type { Id, JsonObject, Notification } from '../protocol/jsonrpc';
import type { LogLevel } from '../protocol/meta';
import type { Principal } from '../protocol/principal';
import type { Revision } from '../protocol/revisions';
import type { Abort } from '../wire/abort';
import { Correlator } from '../wire/correlator';

export type TransportKind = 'stdio' | 'http';

/** The client cancelled the request (notifications/cancelled): it is not answered (every revision's
 *  cancellation page: the receiver SHOULD NOT send a response). */
export class ClientCancelled extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ClientCancelled';
  }
}

/** The prefix of an identity made for one request: a 2026-07-28 request naming none, and a legacy HTTP
 *  request outside any session. What it holds is released when the request ends (docs/security.md
 *  "Bounds"). */
export const PER_REQUEST = 'request:';

/** The identity a client names in `_meta["dev.mcpx/session"]` (docs/protocol.md "Client identity"). */
export const namedIdentity = (name: string): string => `client:${name}`;

export class Conn {
  /** Revision negotiated by initialize (legacy only). */
  revision?: Revision;
  clientCapabilities: JsonObject = {};
  clientInfo?: JsonObject;
  /** Level set by logging/setLevel (legacy). */
  logLevel?: LogLevel;
  initialized = false;
  /** The stdio shim relays this connection's requests (its header, read only past the endpoint secret):
   *  the activity record says so. */
  viaShim = false;
  /** The profile whose endpoint this connection came to (docs/gateway.md "Profiles"); a legacy session
   *  keeps the one it was initialized at. Undefined: the default endpoint. */
  profile?: string;
  /** The verified access token's subject this connection came with (docs/security.md "Two ways in"):
   *  its identity is the token's, whatever a request names; a legacy session keeps the one it was
   *  initialized with, and serves no other. */
  principal?: Principal;
  /** Identities this connection named in _meta["dev.mcpx/session"] (limits.identitiesPerConnection). */
  readonly identities = new Set<string>();
  /** Requests in flight, each with its own abort. */
  readonly inflight = new Map<Id, Abort>();
  // A sessionless HTTP request is a Conn of its own: what few of them use is built on first use.
  private _watches?: Map<string, () => void>;
  private _asked?: Correlator;
  private _identity?: string;
  /** Legacy resources/subscribe watches of this connection, released when it ends. */
  get watches(): Map<string, () => void> {
    return (this._watches ??= new Map());
  }
  /** Requests mcpx sent this client (questions), waiting for its answers. */
  get asked(): Correlator {
    return (this._asked ??= new Correlator());
  }
  /** Identity when the client names none: the process on stdio, the session id over HTTP (a function:
   *  made when first read; a 2026-07-28 request names its own and never reads it). */
  get defaultIdentity(): string {
    if (this._identity === undefined)
      this._identity = typeof this.identity === 'string' ? this.identity : this.identity();
    return this._identity;
  }
  /** The legacy session's Mcp-Session-Id, once the connection is one (its span's mcp.session.id, digested). */
  sessionId?: string;
  /** The connection becomes a legacy session's: its identity from now on is the session's. */
  becomeSession(identity: string, sessionId: string): void {
    this._identity = identity;
    this.sessionId = sessionId;
  }
  /** Server-sent ids are negative, so no client keying one table by id mistakes them for its own
   *  (docs/questions.md "Who answers"). */
  private nextAskId = -1;
  private closed = false;

  constructor(
    readonly transport: TransportKind,
    private readonly identity: string | (() => string),
    /** Unsolicited messages (legacy push): stdio's pipe, a session's GET stream; absent otherwise. */
    public push?: (msg: Notification) => boolean,
  ) {}

  /** Whether mcpx can send this connection something nobody asked for (docs/protocol.md "Capabilities declared only where delivered"). */
  get canPush(): boolean {
    return this.push !== undefined && !this.closed;
  }

  mintAskId(): number {
    return this.nextAskId--;
  }

  track(id: Id, ctl: Abort): void {
    this.inflight.set(id, ctl);
  }
  untrack(id: Id, ctl: Abort): void {
    if (this.inflight.get(id) === ctl) this.inflight.delete(id);
  }
  cancel(id: Id, reason: string): boolean {
    const ctl = this.inflight.get(id);
    if (!ctl) return false;
    ctl.abort(new ClientCancelled(reason));
    return true;
  }

  /** Settles everything: every request in flight is aborted. */
  close(reason = 'connection closed'): void {
    if (this.closed) return;
    this.closed = true;
    for (const ctl of this.inflight.values()) ctl.abort(new Error(reason));
    this.inflight.clear();
    this._asked?.close();
    if (this._watches) for (const release of this._watches.values()) release();
    this._watches?.clear();
    this.push = undefined;
  }
  get isClosed(): boolean {
    return this.closed;
  }
}
