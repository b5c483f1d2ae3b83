// The listen streams mcpx keeps open to 2026-07-28 upstreams. Such a server pushes nothing unasked: list
// changes and resource updates arrive only on a subscriptions/listen stream the client opened, with the
// filter it asked for (2026-07-28 basic/patterns/subscriptions; it replaces resources/subscribe and the
// GET stream). mcpx keeps one per modern upstream while that upstream runs: the list changes it declares
// (listChanged) and the resource URIs its watchers want (docs/protocol.md "Resource subscriptions"). A change of the wanted URIs
// opens the new stream before the old one is cancelled, so no update is lost in between (one arriving in
// that window may come twice). A stream that ends while its upstream runs is opened again.
import type { JsonObject, Notification } from '../../protocol/jsonrpc';
import { isObject } from '../../protocol/jsonrpc';
import type { UpstreamClient } from '../../upstream/client';

// Streams are keyed by one upstream connection ("server" below): the caller's key for a (server, scope).
export interface ListenHooks {
  /** The URIs watchers want on this connection now. */
  wanted(server: string): string[];
  /** A list change or resource update that arrived on a stream: the same path as a legacy push. */
  deliver(server: string, n: Notification): void;
  log(line: string): void;
  /** How long to wait for an acknowledgement. */
  ackTimeoutMs(): number;
  /** Pauses before reopening, by failures in a row (tests shorten them). */
  retryMs?: readonly number[];
}

interface Stream {
  client: UpstreamClient;
  ctl: AbortController;
  /** The filter asked for, as a comparable key. */
  key: string;
  /** The filter the server agreed to (its acknowledgement), once it came. */
  agreed?: JsonObject;
  acked: Promise<void>;
  openedAt: number;
}

const LISTS = ['tools', 'prompts', 'resources'] as const;
const RETRY_MS = [200, 1000, 5000];
/** Failures in a row after which mcpx stops reopening until the upstream restarts or the wanted set changes. */
const GIVE_UP_AFTER = 6;
/** A stream that lived this long ended normally: the count of failures in a row starts again. (One that
 *  is acknowledged and ends at once still counts, so a server that never holds a stream is not asked
 *  again five times a second forever.) */
const LIVED_MS = 30_000;

export class UpstreamListens {
  private readonly streams = new Map<string, Stream>();
  /** One sync at a time per server, in order. */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly failures = new Map<string, number>();
  private closed = false;

  constructor(private readonly hooks: ListenHooks) {}

  /** Bring the server's stream in line with what is wanted now; resolves once the new stream is
   *  acknowledged (or could not be). Calls are serialised per server. */
  sync(server: string, client: UpstreamClient): Promise<void> {
    const next = (this.chains.get(server) ?? Promise.resolve()).then(() => this.apply(server, client));
    const tail = next.catch(() => undefined);
    this.chains.set(server, tail);
    void tail.then(() => this.chains.get(server) === tail && this.chains.delete(server));
    return next;
  }

  /** Resource URIs the server's current stream acknowledged (only those will get updates). */
  acknowledged(server: string): string[] {
    const a = this.streams.get(server)?.agreed?.resourceSubscriptions;
    return Array.isArray(a) ? a.filter((u): u is string => typeof u === 'string') : [];
  }

  /** The filter mcpx wants from this upstream: what it declares, and the wanted URIs where it declares
   *  resources.subscribe. Empty: no stream. */
  private filterFor(server: string, client: UpstreamClient): JsonObject {
    const caps = client.negotiated.capabilities;
    const f: JsonObject = {};
    for (const kind of LISTS) {
      const c = caps[kind];
      if (isObject(c) && c.listChanged === true) f[`${kind}ListChanged`] = true;
    }
    const res = caps.resources;
    const uris = this.hooks.wanted(server);
    if (isObject(res) && res.subscribe === true && uris.length) f.resourceSubscriptions = [...uris].sort();
    return f;
  }

  private async apply(server: string, client: UpstreamClient): Promise<void> {
    if (this.closed || client.isClosed || !listensTo(client)) return;
    const old = this.streams.get(server);
    const filter = this.filterFor(server, client);
    const key = JSON.stringify(filter);
    if (old && old.client === client && old.key === key && !old.ctl.signal.aborted) return old.acked;
    if (Object.keys(filter).length === 0) {
      this.end(server);
      return;
    }
    const s = this.open(server, client, filter, key);
    this.streams.set(server, s);
    try {
      await s.acked;
    } finally {
      // Make before break: the old stream ends only once the new one is in place (or failed).
      if (old && old !== s) old.ctl.abort(new Error('replaced'));
    }
  }

  private open(server: string, client: UpstreamClient, filter: JsonObject, key: string): Stream {
    const ctl = new AbortController();
    let ack!: () => void;
    let fail!: (e: Error) => void;
    const acked = new Promise<void>((resolve, reject) => ((ack = resolve), (fail = reject)));
    acked.catch(() => undefined);
    const s: Stream = { client, ctl, key, acked, openedAt: Date.now() };
    const timer = setTimeout(
      () => fail(new Error(`no acknowledgement within ${this.hooks.ackTimeoutMs()} ms`)),
      this.hooks.ackTimeoutMs(),
    );
    const on = (n: Notification) => {
      if (n.method === 'notifications/subscriptions/acknowledged') {
        s.agreed = isObject(n.params) && isObject(n.params.notifications) ? n.params.notifications : {};
        clearTimeout(timer);
        return ack();
      }
      this.hooks.deliver(server, n);
    };
    void client.listen(filter, on, ctl.signal).then(
      () => this.ended(server, s, 'the server ended it'),
      (e: Error) => this.ended(server, s, e.message),
    );
    void acked
      .catch((e: Error) => this.hooks.log(`[${server}] listen stream: ${e.message}`))
      .finally(() => clearTimeout(timer));
    // A stream that ends before its acknowledgement fails it.
    ctl.signal.addEventListener('abort', () => fail(new Error('ended before its acknowledgement')), { once: true });
    return s;
  }

  /** A stream ended. Replaced or stopped on purpose: nothing to do. Otherwise, while its upstream runs,
   *  it is opened again (after a pause that grows with each failure in a row). */
  private ended(server: string, s: Stream, why: string): void {
    if (!s.ctl.signal.aborted) s.ctl.abort(new Error(why));
    if (this.streams.get(server) !== s) return;
    this.streams.delete(server);
    if (this.closed || s.client.isClosed) return;
    if (Date.now() - s.openedAt >= LIVED_MS) this.failures.delete(server);
    const n = this.failures.get(server) ?? 0;
    this.failures.set(server, n + 1);
    if (n + 1 >= GIVE_UP_AFTER) {
      this.hooks.log(
        `[${server}] listen stream ended (${why}) ${n + 1} times in a row; not reopened until the upstream restarts or its subscriptions change`,
      );
      this.failures.delete(server);
      return;
    }
    const retry = this.hooks.retryMs ?? RETRY_MS;
    const delay = retry[Math.min(n, retry.length - 1)]!;
    this.hooks.log(`[${server}] listen stream ended (${why}); opening it again in ${delay} ms`);
    setTimeout(() => void this.sync(server, s.client).catch(() => undefined), delay).unref();
  }

  /** Stop listening to a server (it stopped, or nothing is wanted). */
  end(server: string): void {
    const s = this.streams.get(server);
    if (!s) return;
    this.streams.delete(server);
    s.ctl.abort(new Error('no longer wanted'));
  }

  close(): void {
    this.closed = true;
    for (const server of [...this.streams.keys()]) this.end(server);
  }
}

/** An upstream whose changes mcpx follows on a listen stream it opens (2026-07-28 subscriptions/listen), not
 *  by resources/subscribe and pushed notifications: its era's codec says. */
export const listensTo = (client: UpstreamClient): boolean => client.followsByListen;
