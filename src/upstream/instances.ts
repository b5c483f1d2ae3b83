// An upstream's instances: one entry per (server, scope) with its state, and the cap on the instances
// of a `scope: "identity"` server (limits.instancesPerServer, docs/security.md "Bounds"): an identity's
// instance starts only once the cap says yes — making room stops the least recently used idle instance
// of another identity, and the pool (upstream/pool.ts) waits for that process to exit before the new one
// is spawned, so the cap holds for processes, not only for entries.
import type { SandboxSpec } from '../config/sandbox';
import type { ServerDef } from '../config/servers';
import { CODES, ProtocolError } from '../protocol/errors';
import type { JsonObject } from '../protocol/jsonrpc';
import type { UpstreamClient } from './client';
import { Dispatch } from './dispatch';

/** When to restart, and when to give up with a visible error. */
export const RESTART_POLICY = {
  /** Crashes (or failed starts) within windowMs after which the upstream is given up on. */
  maxCrashes: 5,
  windowMs: 60_000,
  /** Wait before the n-th consecutive restart (the last value repeats). */
  backoffMs: [0, 200, 1000, 3000],
} as const;

export type UpstreamState = 'starting' | 'running' | 'failed' | 'needs-sign-in' | 'stopping' | 'stopped';

export interface UpstreamStatus {
  name: string;
  scope: string;
  state: UpstreamState;
  era?: string;
  revision?: string;
  transport: string;
  lastError?: string;
  pid?: number;
  /** A stdio server's sandbox as it applies (docs/security.md "The upstream sandbox"): false when none. */
  sandbox?: SandboxSpec | false;
}

/** The extensions a client declared, as a pass-through server is to see them, and their canonical key
 *  (docs/protocol.md "Extensions across the gateway"). */
export interface ExtensionSet {
  readonly key: string;
  readonly extensions: JsonObject;
}

/** The scope of an instance declaring `ext` at initialize: its base scope's, one per extension set (as
 *  mcpx_servers and the editor show it: `shared#ext:<key>`). */
export const extScope = (base: string, ext: ExtensionSet) => `${base}#ext:${ext.key}`;

/** The key of one (server, scope): the pool's entries, and the gateway's calls in flight on it. */
export const entryKey = (server: string, scope: string) => `${server}\u0000${scope}`;

export class Entry {
  state: UpstreamState = 'stopped';
  client?: UpstreamClient;
  starting?: Promise<UpstreamClient>;
  lastError?: string;
  lastUsed = Date.now();
  /** Subscriptions (and the like) that keep it from being reaped. */
  holds = 0;
  calls = 0;
  /** Its calls beyond limits.upstreamInflight, dispatched in turn per identity. */
  readonly dispatch = new Dispatch();
  readonly failures: number[] = [];
  /** Left the pool when the configuration changed (Pool.retire): it finishes its calls, then stops,
   *  and says nothing of its state (the server's name now means its new instance, or nothing). */
  retired = false;

  constructor(
    readonly def: ServerDef,
    readonly scope: string,
    /** What it declares at initialize besides mcpx's own capabilities (an extension set's instance). */
    readonly ext?: ExtensionSet,
  ) {}

  /** Nothing uses it: no call, no hold, no request in flight. */
  get idle(): boolean {
    return this.calls === 0 && this.holds === 0 && (this.client?.inflight ?? 0) === 0;
  }

  status(): UpstreamStatus {
    const n = this.client?.negotiated;
    const t = this.client?.transport as { pid?: number; kind: string } | undefined;
    return {
      name: this.def.name,
      scope: this.scope,
      state: this.state,
      era: n?.era,
      revision: n?.revision,
      transport: t?.kind ?? this.def.type,
      lastError: this.lastError,
      pid: t?.pid,
    };
  }
}

/** limits.instancesPerServer for `scope: "identity"` servers and for the instances of one server per
 *  extension set. */
export class InstanceCap {
  /** Evictions at the cap since the last notice, per server (the notice is rate-limited). */
  private readonly evictions = new Map<string, { at: number; n: number }>();

  constructor(
    private readonly max: () => number,
    private readonly log: (line: string) => void,
  ) {}

  /** Room for `e` among `entries`: undefined when there is room already, else the instance to stop first
   *  (the least recently used idle one of another identity). One in use is never taken: if every
   *  instance is in use, `e` is refused naming the setting, and nothing is started. */
  victimFor(e: Entry, entries: Iterable<Entry>): Entry | undefined {
    const max = this.max();
    const live = [...entries].filter((x) => x.def === e.def && x !== e && (x.client || x.starting));
    if (live.length < max) return undefined;
    const victim = live.filter((x) => !x.starting && x.idle).sort((a, b) => a.lastUsed - b.lastUsed)[0];
    if (!victim)
      throw new ProtocolError(
        CODES.InternalError,
        `upstream ${e.def.name}: ${max} instances are running, each in use by another client (limits.instancesPerServer); retry when one is free`,
      );
    // Said once a minute per server with a count, not once per eviction: a flood of identities must not
    // become a flood of log lines.
    const said = this.evictions.get(e.def.name) ?? { at: 0, n: 0 };
    said.n++;
    if (Date.now() - said.at >= 60_000) {
      this.log(
        `[${e.def.name}] limits.instancesPerServer (${max}) reached: stopped the least recently used idle instance (${said.n} time(s) since the last notice)`,
      );
      said.at = Date.now();
      said.n = 0;
    }
    this.evictions.set(e.def.name, said);
    return victim;
  }
}

/** How many times `e` failed within RESTART_POLICY.windowMs; past RESTART_POLICY.maxCrashes it is given
 *  up on for now (thrown, with its last error). */
export function recentFailures(e: Entry): number {
  const now = Date.now();
  const recent = e.failures.filter((t) => now - t < RESTART_POLICY.windowMs).length;
  if (recent >= RESTART_POLICY.maxCrashes)
    throw new ProtocolError(
      CODES.InternalError,
      `upstream ${e.def.name} failed ${recent} times within ${RESTART_POLICY.windowMs / 1000} s and is given up on for now: ${e.lastError ?? 'no error recorded'}`,
    );
  return recent;
}

/** Resolves once nothing uses `e` (its calls and requests in flight ended), or after `maxMs`. Polled: a
 *  retired instance is rare, and its calls end on their own clocks. */
export async function drained(e: Entry, maxMs: number): Promise<void> {
  const until = Date.now() + maxMs;
  while (!(e.calls === 0 && (e.client?.inflight ?? 0) === 0) && Date.now() < until)
    await new Promise((r) => setTimeout(r, 50));
}
