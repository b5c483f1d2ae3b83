// The legacy HTTP sessions (2025-03-26..2025-11-25 basic/transports, "Session Management"): minted on a
// successful initialize, found by Mcp-Session-Id, ended by DELETE, by transport.sessionIdleTimeout
// without use (and with nothing in flight or streaming), by transport.sessionInitIdle when never used
// after its initialize, or when the gateway stops. At most limits.sessions at once (docs/security.md
// "Bounds").
import { randomUUID } from 'node:crypto';
import type { Settings } from '../config/settings';
import { principalIdentity } from '../protocol/principal';
import type { Conn } from '../server/conn';
import type { Runner } from '../server/runner';
import type { McpServer } from '../server/server';
import type { SseStream } from '../wire/sse';

export interface Session {
  readonly id: string;
  readonly conn: Conn;
  readonly runner: Runner;
  /** The GET stream, while open: the session's push channel. */
  stream?: SseStream;
  lastSeen: number;
  /** Whether the client has sent a request or opened the GET stream since its initialize (a notification,
   *  notifications/initialized above all, is not use). */
  used: boolean;
}

/** How often the table is swept: often enough to keep its shortest bound to within half of it. */
function sweepEvery(settings: Settings): number {
  const bounds = [settings.duration('transport.sessionIdleTimeout'), settings.duration('transport.sessionInitIdle')];
  return Math.max(10, Math.min(60_000, ...bounds.filter((b) => b > 0).map((b) => b / 2)));
}

export class Sessions {
  private readonly table = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly server: McpServer,
    private readonly settings: Settings,
    /** In a team, this replica's id: the start of every id minted here, so any replica knows whose a
     *  session is (docs/team.md "Sessions and forwarding"). */
    private readonly replica?: string,
  ) {
    this.sweeper = setInterval(() => this.sweep(), sweepEvery(settings));
    this.sweeper.unref();
  }

  get size(): number {
    return this.table.size;
  }

  /** The session named `id`, marked as used now; undefined for one unknown or ended. */
  find(id: string): Session | undefined {
    const s = this.table.get(id);
    if (s) s.lastSeen = Date.now();
    return s;
  }

  /** The identity of the session named `id` (its tasks are its own: /v1/tasks), without marking it used:
   *  a look from outside does not keep a session alive. */
  identityOf(id: string): string | undefined {
    return this.table.get(id)?.conn.defaultIdentity;
  }

  /** limits.sessions when the table is full (a new initialize is refused), else undefined. */
  full(): number | undefined {
    const max = this.settings.get<number>('limits.sessions');
    return this.table.size >= max ? max : undefined;
  }

  /** A new session for the sessionless connection `runner` initialized; its identity becomes the
   *  session's, no longer the request's (docs/protocol.md "Client identity"). */
  mint(runner: Runner): string {
    const id = this.replica ? `${this.replica}.${randomUUID()}` : randomUUID();
    const p = runner.conn.principal;
    runner.conn.becomeSession(p ? principalIdentity(p) : `http:${randomUUID()}`, id);
    this.table.set(id, { id, conn: runner.conn, runner, lastSeen: Date.now(), used: false });
    this.server.listens.registerPush(runner.conn);
    return id;
  }

  end(s: Session, reason: string): void {
    this.table.delete(s.id);
    this.server.listens.unregisterPush(s.conn);
    s.stream?.end();
    s.conn.close(reason);
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const s of this.table.values()) this.end(s, 'gateway stopping');
  }

  private sweep(): void {
    const idle = this.settings.duration('transport.sessionIdleTimeout');
    const initIdle = this.settings.duration('transport.sessionInitIdle');
    const now = Date.now();
    for (const s of this.table.values()) {
      if (s.conn.inflight.size > 0 || s.stream) continue;
      if (now - s.lastSeen > idle) this.end(s, 'session idle');
      // Initialized and never used: what a flood of initialize leaves (docs/security.md "Bounds").
      else if (!s.used && initIdle > 0 && now - s.lastSeen > initIdle)
        this.end(s, 'session never used after its initialize');
    }
  }
}
