// One live connection per (server, scope), each with an explicit state machine and a restart policy
// written as data. Upstreams start lazily, in parallel; idle ones are reaped; none while a call or a
// subscription holds it; a crash fails the calls in flight at once and the next call restarts it.
import type { Policy } from '../config/policy';
import { redactError, redactText } from '../config/redact';
import { sandboxSetting, serverSandbox } from '../config/sandbox';
import type { ServerDef } from '../config/servers';
import type { Settings } from '../config/settings';
import { extensionsPerConnection } from '../protocol/eras';
import { CODES, ProtocolError } from '../protocol/errors';
import type { JsonObject } from '../protocol/jsonrpc';
import type { ResultOf } from '../protocol/methods';
import type { ClientHooks, RequestOptions, UpstreamClient } from './client';
import type { EraCache } from './eras';
import { SessionExpired } from './http';
import type { Authorizers } from './auth/registry';
import { SignInRequired } from './auth/errors';
import {
  Entry,
  RESTART_POLICY,
  drained,
  type ExtensionSet,
  InstanceCap,
  type UpstreamState,
  type UpstreamStatus,
  entryKey,
  extScope,
  recentFailures,
} from './instances';
import { dispatchLimits } from './dispatch';
import { connect } from './probe';

export interface PoolOptions {
  eras: EraCache;
  policy: Policy;
  settings: Settings;
  clientInfo: JsonObject;
  capabilities: JsonObject;
  /** Hooks for one upstream connection (its questions and notifications). */
  hooks(def: ServerDef, scope: string): ClientHooks;
  log(line: string): void;
  onStateChange?(s: UpstreamStatus): void;
  /** Every server's sign-in (src/upstream/auth/): one per server, whatever the scope. */
  auth?: Authorizers;
  /** The workspace's folders as paths, read at each start (a sandbox's default reads). */
  roots?(): readonly string[];
}

export { RESTART_POLICY, type UpstreamStatus, entryKey } from './instances';

export class Pool {
  private readonly entries = new Map<string, Entry>();
  /** Instances retired by a change of configuration, until they have stopped. */
  private readonly retiring = new Set<Entry>();
  private readonly cap: InstanceCap;
  /** The `scope: "identity"` servers: the only ones with an entry per identity. */
  private identityDefs: ServerDef[];
  private readonly reaper: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly defs: ReadonlyMap<string, ServerDef>,
    private readonly o: PoolOptions,
  ) {
    this.identityDefs = [...defs.values()].filter((d) => d.scope === 'identity');
    this.cap = new InstanceCap(() => o.settings.get<number>('limits.instancesPerServer'), o.log);
    const idle = o.settings.duration('pool.idleTimeout');
    this.reaper = setInterval(() => void this.reap(), Math.max(1000, Math.min(idle / 2, 30_000)));
    this.reaper.unref();
  }

  def(server: string): ServerDef {
    const d = this.defs.get(server);
    if (!d)
      throw new ProtocolError(
        CODES.InvalidParams,
        `no server named ${JSON.stringify(server)}; configured: ${[...this.defs.keys()].join(', ') || 'none'}`,
      );
    return d;
  }

  /** The scope key of a call: one shared instance, or one per client identity; and within it one per
   *  extension set the caller declared, where the upstream reads extensions only at initialize (a
   *  legacy one, or one whose era is not known yet) — docs/protocol.md "Extensions across the gateway". */
  scopeOf(def: ServerDef, identity: string, ext?: ExtensionSet): string {
    const base = def.scope === 'identity' ? identity : 'shared';
    return ext && this.perConnection(def) ? extScope(base, ext) : base;
  }

  /** Whether `def`'s upstream reads a client's extensions once per connection (or may: its era unknown). */
  private perConnection(def: ServerDef): boolean {
    const r = this.o.eras.get(def);
    return !r || extensionsPerConnection(r.era);
  }

  private entry(def: ServerDef, identity: string, ext?: ExtensionSet): Entry {
    const scope = this.scopeOf(def, identity, ext);
    const k = entryKey(def.name, scope);
    let e = this.entries.get(k);
    // Only an extension set's own instance declares it at initialize; a per-request upstream's is shared.
    if (!e) this.entries.set(k, (e = new Entry(def, scope, scope === this.scopeOf(def, identity) ? undefined : ext)));
    return e;
  }

  private setState(e: Entry, s: UpstreamState, error?: string): void {
    e.state = s;
    if (error !== undefined) e.lastError = error;
    if (!e.retired) this.o.onStateChange?.(e.status());
  }

  /** The hooks of (server, scope), with its secrets masked in every line it logs (docs/security.md
   *  "Secrets in output and logs"). */
  private hooksOf(def: ServerDef, scope: string): ClientHooks {
    const hooks = this.o.hooks(def, scope);
    return { ...hooks, log: (line) => hooks.log(redactText(line, def)) };
  }

  /** A running client for (server, scope), started on first use. */
  async client(server: string, identity: string, ext?: ExtensionSet): Promise<UpstreamClient> {
    if (this.closed) throw new ProtocolError(CODES.InternalError, 'the gateway is stopping');
    const def = this.def(server);
    const e = this.entry(def, identity, ext);
    e.lastUsed = Date.now();
    if (e.client && e.state === 'running') return e.client;
    if (e.starting) return e.starting;
    const recent = recentFailures(e);
    // A scope: identity instance, or an extension set's, starts only within limits.instancesPerServer;
    // the instance stopped to make room has exited before this one is spawned (entry `e` counts as
    // starting meanwhile, so no other identity takes the room).
    const victim = def.scope === 'identity' || e.ext ? this.makeRoom(e) : undefined;
    e.starting = victim ? this.stopEntry(victim).then(() => this.start(e, recent)) : this.start(e, recent);
    try {
      return await e.starting;
    } finally {
      e.starting = undefined;
      // An identity's instance that could not start is forgotten, so failed starts leave no entries.
      if (e.state === 'failed' || e.state === 'needs-sign-in') this.forget(e);
    }
  }

  /** The instance of another identity to stop so that `e` fits within limits.instancesPerServer (it
   *  leaves the pool now), or undefined where there is room; throws where there is none. */
  private makeRoom(e: Entry): Entry | undefined {
    const victim = this.cap.victimFor(e, this.entries.values());
    if (victim) this.entries.delete(entryKey(victim.def.name, victim.scope));
    return victim;
  }

  /** An identity is gone (a 2026-07-28 request's own, when its call settled): its instances stop now,
   *  and the pool forgets them. One still in use is left to pool.idleTimeout. */
  async release(identity: string): Promise<void> {
    // Most gateways have no `scope: "identity"` server, and most identities no instance: nothing to do.
    if (this.identityDefs.length === 0) return;
    const mine: Entry[] = [];
    for (const def of this.identityDefs) {
      const e = this.entries.get(entryKey(def.name, identity));
      if (e && e.calls === 0 && e.holds === 0) mine.push(e);
    }
    // Its instances per extension set too (few: one per set it declared).
    for (const e of this.entries.values())
      if (
        e.ext &&
        e.def.scope === 'identity' &&
        e.scope === extScope(identity, e.ext) &&
        e.calls === 0 &&
        e.holds === 0
      )
        mine.push(e);
    if (mine.length === 0) return;
    await Promise.all(
      mine.map(async (e) => {
        this.entries.delete(entryKey(e.def.name, e.scope));
        await e.starting?.catch(() => undefined);
        await this.stopEntry(e);
      }),
    );
  }

  private async start(e: Entry, consecutive: number): Promise<UpstreamClient> {
    const wait = RESTART_POLICY.backoffMs[Math.min(consecutive, RESTART_POLICY.backoffMs.length - 1)]!;
    if (wait) await new Promise((r) => setTimeout(r, wait));
    this.setState(e, 'starting');
    try {
      const client = await connect({
        def: e.def,
        hooks: this.hooksOf(e.def, e.scope),
        eras: this.o.eras,
        policy: this.o.policy,
        clientInfo: this.o.clientInfo,
        capabilities: e.ext ? { ...this.o.capabilities, extensions: e.ext.extensions } : this.o.capabilities,
        timeoutMs: this.o.settings.duration('pool.startTimeout'),
        probeTimeoutMs: this.o.settings.duration('pool.probeTimeout'),
        maxLineBytes: this.o.settings.get<number>('transport.maxLineBytes'),
        maxBodyBytes: this.o.settings.get<number>('transport.maxBodyBytes'),
        maxDepth: this.o.settings.get<number>('limits.paramsDepth'),
        envNames: this.o.settings.get<string[]>('upstream.env'),
        auth: this.o.auth?.for(e.def),
        sandbox: { fallback: sandboxSetting(this.o.settings), roots: this.o.roots?.() ?? [] },
      });
      if (this.closed) {
        await client.close();
        throw new ProtocolError(CODES.InternalError, 'the gateway is stopping');
      }
      client.transport.onClose = (reason) => {
        if (e.client !== client) return;
        e.client = undefined;
        e.failures.push(Date.now());
        const why = redactText(reason.message, e.def);
        this.o.log(`[${e.def.name}] ${why}`);
        this.setState(e, 'failed', why);
      };
      e.client = client;
      this.setState(e, 'running');
      return client;
    } catch (err) {
      redactError(err, e.def);
      const msg = (err as Error).message;
      // Waiting for a sign-in is not a crash: no failure counted, no restart backoff.
      if (err instanceof SignInRequired) {
        this.setState(e, 'needs-sign-in', msg);
        throw err;
      }
      e.failures.push(Date.now());
      this.setState(e, 'failed', msg);
      throw err instanceof ProtocolError
        ? err
        : new ProtocolError(CODES.InternalError, `upstream ${e.def.name} could not start: ${msg}`);
    }
  }

  /** The per-call timeout: pool.callTimeout, or less if the caller asks for less; never more. */
  callTimeout(requestedMs?: number): number {
    const max = this.o.settings.duration('pool.callTimeout');
    return requestedMs !== undefined && requestedMs > 0 ? Math.min(requestedMs, max) : max;
  }

  /** Send one request to (server, scope), starting it if needed. */
  async request<M extends string>(
    server: string,
    identity: string,
    method: M,
    params: JsonObject,
    o: RequestOptions & { requestedTimeoutMs?: number; ext?: ExtensionSet } = {},
  ): Promise<ResultOf<M>> {
    const def = this.def(server);
    const e = this.entry(def, identity, o.ext);
    const timeoutMs = this.callTimeout(o.requestedTimeoutMs);
    const opts = {
      ...o,
      timeoutMs,
      timeoutSource: timeoutMs < this.callTimeout() ? 'the timeout the call asked for' : 'pool.callTimeout',
      maxTotalMs: this.o.settings.duration('pool.maxCallTime'),
      askRounds: this.o.settings.get<number>('proto.askRounds'),
    };
    const limits = dispatchLimits(this.o.settings);
    e.calls++;
    try {
      const turn = e.dispatch.enter(server, identity, limits, o.signal);
      if (turn) await turn;
      try {
        // A running client is used as it is: client() would look the entry up again, and its await costs
        // a promise and a turn per call.
        const client =
          !this.closed && e.client && e.state === 'running' ? e.client : await this.client(server, identity, o.ext);
        try {
          return await client.request(method, params, opts);
        } catch (err) {
          redactError(err, def);
          // A legacy session the server no longer knows (HTTP 404): it did not see the request, so the
          // client initializes again and sends it once more (2025-03-26..2025-11-25 transports).
          if (!(err instanceof SessionExpired)) throw err;
          this.o.log(`[${server}] ${err.message}; initializing again`);
          if (e.client === client) await this.stopEntry(e);
          return await (await this.client(server, identity, o.ext)).request(method, params, opts);
        }
      } finally {
        e.dispatch.done(identity, limits);
      }
    } finally {
      e.calls--;
      e.lastUsed = Date.now();
      if (e.state === 'failed' || e.state === 'needs-sign-in' || e.state === 'stopped') this.forget(e);
    }
  }

  /** Upstream requests in flight on (server, scope), whoever made them (docs/questions.md "Correlation, and the race that remains"). */
  inflightOn(server: string, scope: string): number {
    return this.entries.get(entryKey(server, scope))?.client?.inflight ?? 0;
  }

  /** The client of (server, scope) if it is running now; never starts one. */
  running(server: string, identity: string): UpstreamClient | undefined {
    const def = this.def(server);
    const e = this.entries.get(entryKey(def.name, this.scopeOf(def, identity)));
    return e?.state === 'running' ? e.client : undefined;
  }

  /** Every client running now (each scope of each server). */
  runningClients(): UpstreamClient[] {
    return [...this.entries.values()].filter((e) => e.state === 'running' && e.client).map((e) => e.client!);
  }

  hold(server: string, identity: string, delta: 1 | -1): void {
    // A watch released after its server left the configuration: nothing is held any more.
    const def = this.defs.get(server);
    if (!def) return;
    this.entry(def, identity).holds += delta;
  }

  statuses(): UpstreamStatus[] {
    const out: UpstreamStatus[] = [];
    for (const def of this.defs.values()) {
      const sandbox = serverSandbox(def, this.o.settings);
      const es = [...this.entries.values()].filter((e) => e.def === def);
      if (es.length === 0)
        out.push({ name: def.name, scope: 'shared', state: 'stopped', transport: def.type, sandbox });
      for (const e of es) out.push({ ...e.status(), sandbox });
    }
    return out;
  }

  async stop(server: string): Promise<void> {
    await Promise.all([...this.entries.values()].filter((e) => e.def.name === server).map((e) => this.stopEntry(e)));
  }

  private async stopEntry(e: Entry): Promise<void> {
    const c = e.client;
    if (!c) return;
    e.client = undefined;
    this.setState(e, 'stopping');
    await c.close().catch(() => undefined);
    this.setState(e, 'stopped');
  }

  private async reap(): Promise<void> {
    const idle = this.o.settings.duration('pool.idleTimeout');
    const now = Date.now();
    for (const e of this.entries.values()) {
      if (e.state === 'running' && e.idle && now - e.lastUsed > idle) {
        this.o.log(`[${e.def.name}] idle for ${Math.round((now - e.lastUsed) / 1000)} s: stopping`);
        await this.stopEntry(e);
        this.forget(e);
      } else if (e.state === 'stopped' || e.state === 'failed' || e.state === 'needs-sign-in') this.forget(e);
    }
  }

  /** An identity's entry that is stopped or failed and unused leaves the pool (the table stays bounded
   *  by the identities in use); a shared entry stays, its state shown in mcpx_servers. */
  private forget(e: Entry): void {
    if (e.scope === 'shared' || e.starting || e.client || e.calls > 0 || e.holds > 0) return;
    const k = entryKey(e.def.name, e.scope);
    if (this.entries.get(k) === e) this.entries.delete(k);
  }

  /** The configuration changed (gateway/reload.ts): `defs` — the map this pool was given — now holds the
   *  new definitions. Each instance whose server is gone or defined anew leaves the pool, so new calls
   *  start a new instance, and stops: a removed server's at once (its calls were failed by the gateway,
   *  naming the change) — resolves once those have exited —, a changed one's once its calls in flight
   *  end, bounded by pool.callTimeout (close() stops any still draining). */
  async retire(): Promise<void> {
    this.identityDefs = [...this.defs.values()].filter((d) => d.scope === 'identity');
    const old = [...this.entries.values()].filter((e) => this.defs.get(e.def.name) !== e.def);
    const removed: Promise<void>[] = [];
    for (const e of old) {
      this.entries.delete(entryKey(e.def.name, e.scope));
      e.retired = true;
      // What holds it (subscriptions) holds its successor, released there (hold() finds the new entry).
      const next = this.defs.get(e.def.name);
      if (next && e.holds && (next.scope === 'identity') === (e.def.scope === 'identity'))
        this.entry(next, e.scope).holds += e.holds;
      e.holds = 0;
      this.retiring.add(e);
      const gone = (async () => {
        await e.starting?.catch(() => undefined);
        if (this.defs.has(e.def.name)) await drained(e, this.callTimeout());
        await this.stopEntry(e);
        this.retiring.delete(e);
      })();
      if (!this.defs.has(e.def.name)) removed.push(gone);
    }
    await Promise.all(removed);
  }

  /** Instances of an earlier configuration still finishing their calls (retire). */
  get draining(): number {
    return this.retiring.size;
  }

  /** Stops every upstream; no child outlives this. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.reaper);
    await Promise.all(
      [...this.entries.values(), ...this.retiring].map(async (e) => {
        await e.starting?.catch(() => undefined);
        await this.stopEntry(e);
      }),
    );
  }
}
