// Where the server's own change notifications go: every legacy connection that can be pushed to, and
// every subscriptions/listen stream open on any connection (2026-07-28 server/subscriptions: any number
// per connection, keyed by the listen request's id; accepted from legacy clients too).
import { CODES, ProtocolError } from '../protocol/errors';
import { type JsonObject, notificationMsg } from '../protocol/jsonrpc';
import { META, atLeastLevel } from '../protocol/meta';
import { callerDeclares } from '../protocol/questions';
import type { ServerCall } from './call';
import type { Conn } from './conn';
import type { ListKind, Provider, UnrelatedLog } from './provider';
import { type Task, extensionRequired } from './tasks';

interface Listener {
  filter: JsonObject;
  /** The endpoint the stream was opened at (a profile's name, or undefined). */
  profile?: string;
  send(method: string): void;
}

export class Listens {
  private readonly listeners = new Set<Listener>();
  /** Legacy connections that can be pushed to (stdio, a session with its GET stream open). */
  private readonly pushable = new Set<Conn>();
  /** Ends every stream when the server stops. */
  private readonly closing = new AbortController();

  constructor(private readonly provider: Provider) {}

  registerPush(conn: Conn): void {
    this.pushable.add(conn);
  }

  /** The connection ended (a legacy session ended, a pipe closed): nothing is pushed to it again. */
  unregisterPush(conn: Conn): void {
    this.pushable.delete(conn);
  }

  /** Connections that can be pushed to now (a test counts them). */
  get pushableCount(): number {
    return this.pushable.size;
  }

  close(): void {
    this.closing.abort(new Error('the gateway is stopping'));
  }

  /** A list changed: every legacy connection that can be pushed to gets it unsolicited (it was declared
   *  at initialize); every listen stream that asked for it gets it tagged with its id. */
  announce(kind: ListKind, reaches: (profile: string | undefined) => boolean = () => true): void {
    const method = `notifications/${kind}/list_changed`;
    for (const conn of this.pushable) {
      if (conn.isClosed) this.pushable.delete(conn);
      else if (conn.initialized && conn.canPush && reaches(conn.profile)) conn.push!(notificationMsg(method));
    }
    for (const l of this.listeners) if (l.filter[`${kind}ListChanged`] === true && reaches(l.profile)) l.send(method);
  }

  /** A log message that relates to no request: pushed to every legacy connection that can be pushed to and
   *  asked for its level (logging/setLevel), of `entry.identity` only where it names one. A 2026-07-28
   *  listen stream cannot ask for log messages (its filter has no such field), so none gets it
   *  (docs/protocol.md "Log messages relayed"). */
  log(entry: UnrelatedLog): void {
    const params: JsonObject = { level: entry.level, data: entry.data as JsonObject };
    if (entry.logger !== undefined) params.logger = entry.logger;
    for (const conn of this.pushable) {
      if (conn.isClosed) this.pushable.delete(conn);
      else if (
        conn.initialized &&
        conn.canPush &&
        conn.logLevel &&
        atLeastLevel(entry.level, conn.logLevel) &&
        (entry.identity === undefined || conn.defaultIdentity === entry.identity || conn.identities.has(entry.identity))
      )
        conn.push!(notificationMsg('notifications/message', params));
    }
  }

  /** subscriptions/listen: acknowledge with the agreed filter, then hold the stream. When mcpx ends it
   *  (docs/protocol.md "Ending a listen stream"): on stdio notifications/cancelled, then the result;
   *  over HTTP the result, then the stream closes. */
  async open(ctx: ServerCall, filter: JsonObject): Promise<JsonObject> {
    const provider = this.provider;
    const caps = provider.capabilities(ctx.conn.profile);
    const lc = caps.listChanged ?? {};
    const agreed: JsonObject = {};
    for (const kind of ['tools', 'prompts', 'resources'] as const) {
      if (filter[`${kind}ListChanged`] === true && caps[kind] && lc[kind]) agreed[`${kind}ListChanged`] = true;
    }
    if (Object.keys(agreed).length) await provider.listening?.();
    const tag = { [META.subscriptionId]: ctx.id };
    let acked = false;
    // resourceSubscriptions: the acknowledgement lists only the URIs whose updates will arrive.
    const releases: Array<() => void> = [];
    if (Array.isArray(filter.resourceSubscriptions) && provider.subscribe) {
      const agreedUris: string[] = [];
      for (const uri of filter.resourceSubscriptions.filter((u): u is string => typeof u === 'string')) {
        // Nothing goes on the stream before its acknowledgement (2026-07-28 server/subscriptions).
        const w = await provider.subscribe(
          uri,
          (u) => acked && ctx.notify('notifications/resources/updated', { uri: u, _meta: tag }),
          ctx,
        );
        releases.push(w.release);
        if (w.deliverable) agreedUris.push(uri);
      }
      agreed.resourceSubscriptions = agreedUris;
    }
    // taskIds (tasks extension "Task Status Notifications"): only to a client that declared the extension;
    // the acknowledgement lists the ones it can see, then each one's DetailedTask now and on every change.
    const tasks: Task[] = [];
    const followed = ctx.codec.tasks.followed(filter.taskIds);
    if (followed !== undefined) {
      if (!ctx.codec.tasks.declared(ctx.clientCapabilities))
        throw extensionRequired('a listen asking for taskIds needs the io.modelcontextprotocol/tasks extension');
      const ids = Array.isArray(followed) ? followed.filter((id): id is string => typeof id === 'string') : [];
      for (const id of new Set(ids)) {
        const t = ctx.services.tasks.find(id);
        if (t?.visibleTo(ctx.identity)) tasks.push(t);
      }
      agreed.taskIds = tasks.map((t) => t.id);
    }
    ctx.codec.acknowledge(() =>
      ctx.notify('notifications/subscriptions/acknowledged', { notifications: agreed, _meta: tag }),
    );
    acked = true;
    const taskUpdate = (t: Task) =>
      ctx.notify('notifications/tasks', {
        ...ctx.codec.tasks.get(t.view(), ctx.rev, (m, p) => callerDeclares(ctx, m, p)),
        _meta: tag,
      });
    for (const t of tasks) {
      taskUpdate(t);
      releases.push(t.onChange(taskUpdate));
    }
    const listener = {
      filter: agreed,
      profile: ctx.conn.profile,
      send: (method: string) => ctx.notify(method, { _meta: tag }),
    };
    this.listeners.add(listener);
    try {
      await new Promise<void>((resolve) => {
        const done = () => {
          // The server-wide signal outlives every stream: its listener goes with the stream.
          this.closing.signal.removeEventListener('abort', done);
          ctx.signal.removeEventListener('abort', done);
          resolve();
        };
        ctx.signal.addEventListener('abort', done, { once: true });
        this.closing.signal.addEventListener('abort', done, { once: true });
      });
    } finally {
      this.listeners.delete(listener);
      for (const release of releases) release();
    }
    if (ctx.signal.aborted) throw new ProtocolError(CODES.InternalError, 'Request cancelled');
    if (ctx.conn.transport === 'stdio')
      ctx.notify('notifications/cancelled', { requestId: ctx.id, reason: 'mcpx is ending the subscription' });
    return { _meta: tag };
  }

  /** The server-wide closing signal (a test counts its listeners: none may outlive its stream). */
  get closingSignal(): AbortSignal {
    return this.closing.signal;
  }
}
