// Resource subscriptions end to end (docs/protocol.md "Resource subscriptions"): a client's watch of an mcpx:// (or pass-through)
// URI becomes one upstream subscription per URI, in the upstream's era mechanism — resources/subscribe
// to a legacy server, the listen stream mcpx keeps to a 2026-07-28 one (listens.ts) — counted across
// clients (watches.ts), restarted and resubscribed when the upstream goes away while wanted, and honest
// where no update will come.
import type { ServerDef } from '../config/servers';
import { type Notification, isObject } from '../protocol/jsonrpc';
import type { UpstreamClient } from '../upstream/client';
import type { Pool, UpstreamStatus } from '../upstream/pool';
import type { Catalogue } from './catalogue';
import type { EventBus } from './events';
import { UpstreamListens, listensTo } from './listens';
import { locateResource } from './namespaces';
import { Watches, sameUri } from './watches';

/** The identity subscriptions are held under (the shared instance, for a shared server). */
const WATCH_IDENTITY = 'mcpx:watches';

export interface SubscriptionDeps {
  pool: Pool;
  catalogue: Catalogue;
  defs: ReadonlyMap<string, ServerDef>;
  passthrough: readonly string[];
  events: EventBus;
  log(line: string): void;
  ackTimeoutMs(): number;
  /** What arrives on a listen stream goes where a legacy push goes. */
  notified(server: string, scope: string, n: Notification): void;
}

export class Subscriptions {
  readonly watches: Watches;
  private readonly listens: UpstreamListens;

  constructor(private readonly d: SubscriptionDeps) {
    const { pool } = d;
    // One stream per modern connection: the watch scope's also carries the wanted URIs; another scope's
    // (a server with scope "identity") only the list changes.
    this.listens = new UpstreamListens({
      wanted: (key) => {
        const c = this.conns.get(key);
        return c && c.scope === this.scope(c.server) ? this.watches.wanted(c.server) : [];
      },
      deliver: (key, n) => {
        const c = this.conns.get(key);
        if (c) d.notified(c.server, c.scope, n);
      },
      log: d.log,
      ackTimeoutMs: d.ackTimeoutMs,
    });
    // Each era its mechanism: resources/subscribe to a legacy upstream; to a 2026-07-28 one, its listen
    // stream opened again with the wanted URIs.
    const viaEra = async (server: string, uri: string, method: string, start: boolean) => {
      const client = start ? await pool.client(server, WATCH_IDENTITY) : pool.running(server, WATCH_IDENTITY);
      if (!client) return;
      if (listensTo(client)) return this.listens.sync(this.key(server, this.scope(server)), client);
      await pool.request(server, WATCH_IDENTITY, method, { uri });
    };
    this.watches = new Watches({
      subscribe: (server, uri) => viaEra(server, uri, 'resources/subscribe', true),
      unsubscribe: (server, uri) => viaEra(server, uri, 'resources/unsubscribe', false),
      hold: (server, delta) => pool.hold(server, WATCH_IDENTITY, delta),
      log: d.log,
    });
  }

  private scope(server: string): string {
    return this.d.pool.scopeOf(this.d.pool.def(server), WATCH_IDENTITY);
  }

  /** Listen streams by connection: the key is the server name for its watch scope (what logs show). */
  private readonly conns = new Map<string, { server: string; scope: string }>();
  private key(server: string, scope: string): string {
    const k = scope === this.scope(server) ? server : `${server} (${scope})`;
    this.conns.set(k, { server, scope });
    return k;
  }

  /** An upstream changed state. Subscriptions still wanted: a crashed upstream is restarted at once, a
   *  restarted one resubscribed; a 2026-07-28 upstream gets its listen stream whenever it runs. */
  onState(st: UpstreamStatus): void {
    const { pool, log } = this.d;
    if (!this.watches) return;
    // A server removed from the configuration (Gateway.reload) has no scope left to compute.
    if (!this.d.defs.has(st.name)) return this.removed(st.name);
    const key = this.key(st.name, st.scope);
    if (st.state !== 'running') this.listens.end(key);
    if (st.scope !== this.scope(st.name)) {
      // An identity's connection that went away is forgotten (the map holds only live ones).
      if (st.state === 'stopped' || st.state === 'failed') this.conns.delete(key);
      // Another scope's connection: its list changes only.
      // (For an identity-scoped server the scope is the identity itself.)
      const other = st.state === 'running' ? pool.running(st.name, st.scope) : undefined;
      if (other && listensTo(other)) void this.listens.sync(key, other).catch(() => undefined);
      return;
    }
    const wanted = this.watches.wanted(st.name);
    if (st.state === 'failed' && wanted.length)
      void pool.client(st.name, WATCH_IDENTITY).catch((e: Error) => log(`[${st.name}] restart failed: ${e.message}`));
    if (st.state !== 'running') return;
    const client = pool.running(st.name, WATCH_IDENTITY);
    if (client && listensTo(client)) void this.listens.sync(key, client).catch(() => undefined);
    else
      for (const uri of wanted)
        void pool
          .request(st.name, WATCH_IDENTITY, 'resources/subscribe', { uri })
          .catch((e: Error) => log(`[${st.name}] resubscribing ${uri}: ${e.message}`));
  }

  /** A client opened a listen stream: the streams of running 2026-07-28 upstreams are in place (and
   *  pass-through servers, whose lists are the surface, are started) before it is acknowledged, so a
   *  change right after the acknowledgement is not missed. */
  async listening(): Promise<void> {
    const { pool, defs, passthrough } = this.d;
    const names = [...defs.keys()].filter((n) => passthrough.includes(n) || pool.running(n, WATCH_IDENTITY));
    await Promise.all(
      names.map(async (name) => {
        const client = await pool.client(name, WATCH_IDENTITY).catch(() => undefined);
        if (client && listensTo(client))
          await this.listens.sync(this.key(name, this.scope(name)), client).catch(() => undefined);
      }),
    );
  }

  /** Watch a resource for a client. Never subscribes upstream where the server did not declare
   *  resources.subscribe; says so, and why, instead. */
  async subscribe(
    uri: string,
    deliver: (uri: string) => void,
  ): Promise<{ deliverable: boolean; reason?: string; release(): void }> {
    const { pool, events, log } = this.d;
    // `shown`: the URI as the log and the event stream quote it — not one naming no configured server,
    // which may be anything its watcher wrote.
    const none = (reason: string, shown = uri) => {
      log(`warning: no updates will be delivered for ${shown}: ${reason}`);
      events.emit({
        type: 'server.log',
        server: 'mcpx',
        level: 'warning',
        data: `no updates will be delivered for ${shown}: ${reason}`,
      });
      return { deliverable: false, reason, release: () => undefined };
    };
    // Watched where it would be read.
    const at = await locateResource(this.d, uri, WATCH_IDENTITY);
    if ('reason' in at) return none(at.reason, at.unknown ? 'a watch' : uri);
    const { server, uri: upstreamUri } = at;
    let client: UpstreamClient;
    try {
      client = await pool.client(server, WATCH_IDENTITY);
    } catch (e) {
      return none(`${server} is not running: ${(e as Error).message}`);
    }
    const res = client.negotiated.capabilities.resources;
    if (!isObject(res) || res.subscribe !== true) return none(`${server} does not declare resources.subscribe`);
    const release = await this.watches.add({ server, uri: upstreamUri, clientUri: uri, deliver });
    // A 2026-07-28 upstream says in its acknowledgement which URIs it will send updates for.
    if (
      listensTo(client) &&
      !this.listens.acknowledged(this.key(server, this.scope(server))).some((u) => sameUri(u, upstreamUri))
    ) {
      release();
      return none(`${server} did not acknowledge a subscription to ${upstreamUri}`);
    }
    return { deliverable: true, release };
  }

  /** A server left the configuration (Gateway.reload): its listen streams and its watches end. */
  removed(server: string): void {
    this.endListens(server);
    this.watches.drop(server);
  }

  /** A server was defined anew (Gateway.reload): mcpx's listen streams to its old instance end; where
   *  its resources are still watched, its new instance starts now and is subscribed (onState). */
  replaced(server: string): void {
    this.endListens(server);
    if (this.watches.wanted(server).length)
      void this.d.pool
        .client(server, WATCH_IDENTITY)
        .catch((e: Error) => this.d.log(`[${server}] starting again for its watches: ${e.message}`));
  }

  private endListens(server: string): void {
    for (const [k, c] of [...this.conns])
      if (c.server === server) {
        this.listens.end(k);
        this.conns.delete(k);
      }
  }

  close(): void {
    this.listens.close();
  }
}
