// Resource subscriptions, counted per upstream URI across every client (docs/protocol.md "Resource subscriptions"): the first
// watcher subscribes upstream, the last one unsubscribes; an upstream holding subscriptions is not
// reaped, and one that restarts while wanted is subscribed again.
import type { JsonObject } from '../../protocol/jsonrpc';

export interface Watch {
  server: string;
  /** The URI upstream. */
  uri: string;
  /** Called with the URI the watcher subscribed to (its own form) when the resource changes. */
  deliver(clientUri: string): void;
  clientUri: string;
}

export interface WatchRow {
  server: string;
  uri: string;
  watchers: number;
  lastUpdate?: number;
}

export interface WatchHooks {
  /** Subscribe / unsubscribe one URI upstream (the server's era mechanism). */
  subscribe(server: string, uri: string): Promise<void>;
  unsubscribe(server: string, uri: string): Promise<void>;
  hold(server: string, delta: 1 | -1): void;
  log(line: string): void;
}

/** Absolute-path URIs match in both forms (a listing drops the leading slash when it namespaces). */
const norm = (uri: string) => (uri.startsWith('/') ? uri.slice(1) : uri);
export const sameUri = (a: string, b: string): boolean => norm(a) === norm(b);

export class Watches {
  private readonly byKey = new Map<
    string,
    { server: string; uri: string; watchers: Set<Watch>; lastUpdate?: number }
  >();

  constructor(private readonly hooks: WatchHooks) {}

  private key(server: string, uri: string): string {
    return `${server}\u0000${norm(uri)}`;
  }

  /** Add a watcher; returns its release. The first watcher of a URI subscribes upstream. */
  async add(w: Watch): Promise<() => void> {
    const k = this.key(w.server, w.uri);
    let e = this.byKey.get(k);
    const first = !e;
    if (!e) this.byKey.set(k, (e = { server: w.server, uri: w.uri, watchers: new Set() }));
    e.watchers.add(w);
    if (first) {
      this.hooks.hold(w.server, 1);
      try {
        await this.hooks.subscribe(w.server, w.uri);
      } catch (err) {
        this.hooks.log(`[${w.server}] subscribing ${w.uri} failed: ${(err as Error).message}`);
      }
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.remove(k, w);
    };
  }

  private remove(k: string, w: Watch): void {
    const e = this.byKey.get(k);
    if (!e || !e.watchers.delete(w) || e.watchers.size > 0) return;
    this.byKey.delete(k);
    this.hooks.hold(e.server, -1);
    void this.hooks
      .unsubscribe(e.server, e.uri)
      .catch((err: Error) => this.hooks.log(`[${e.server}] unsubscribing ${e.uri} failed: ${err.message}`));
  }

  /** Whether anyone watches `uri` on `server`: an update of any other URI concerns nobody. */
  watched(server: string, uri: string): boolean {
    return this.byKey.has(this.key(server, uri));
  }

  /** notifications/resources/updated from an upstream: to every watcher of that URI. */
  updated(server: string, params: JsonObject): void {
    const e = this.byKey.get(this.key(server, String(params.uri)));
    if (!e) return;
    e.lastUpdate = Date.now();
    for (const w of e.watchers) w.deliver(w.clientUri);
  }

  /** The URIs still wanted on a server (to subscribe again after a restart). */
  wanted(server: string): string[] {
    return [...this.byKey.values()].filter((e) => e.server === server).map((e) => e.uri);
  }

  /** A server left the configuration: its watches end here (nothing upstream to unsubscribe from, nothing
   *  held); a watcher's release later finds nothing to do. */
  drop(server: string): void {
    for (const [k, e] of [...this.byKey]) if (e.server === server) this.byKey.delete(k);
  }

  rows(): WatchRow[] {
    return [...this.byKey.values()].map((e) => ({
      server: e.server,
      uri: e.uri,
      watchers: e.watchers.size,
      lastUpdate: e.lastUpdate,
    }));
  }
}
