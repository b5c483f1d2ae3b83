// A change of configuration applied in place (docs/gateway.md "Changing the configuration"): the new
// configuration is checked whole first, then compared with the running one. What the comparison says is
// what the gateway does: added servers start as usual, removed ones end, changed ones get a new instance
// for new calls, kept ones are untouched; settings are applied live, except those the listener or the
// clients' negotiated capabilities were made from, which wait for the next start.
import type { Config } from '../config/file';
import type { ServerDef } from '../config/servers';
import type { Settings } from '../config/settings';

/** Settings read once, when the listener or the clients' sessions were made: a change to one is applied
 *  at the next start (the editor restarts for it; the daemon says so). */
export const AT_NEXT_START: readonly string[] = [
  'port',
  'address',
  'transport.secret',
  // The token verifier is made with the listener (docs/security.md "Two ways in").
  'auth.issuer',
  'auth.audience',
  'auth.scopes',
  'auth.allowSecret',
  'auth.clientId',
  'auth.clientSecret',
  'auth.fetchTimeout',
  'auth.keysRefetch',
  'transport.maxConnections',
  // What the clients were told at initialize: the tools' listChanged and the revisions offered.
  'mcp.passthrough',
  'spec.precedence',
  'spec.lenient',
  'spec.first',
  'daemon.idleExit',
  // The tracer is made when the gateway starts (docs/gateway.md "Telemetry").
  'telemetry.otlpEndpoint',
  'telemetry.serviceName',
  'telemetry.maxQueue',
];

export interface ConfigDiff {
  added: string[];
  removed: string[];
  /** Same name, another definition (command, args, env, URL, headers, auth, scope, tools filter…). */
  changed: string[];
  kept: string[];
  /** Settings whose value changed, applied live. */
  settings: string[];
  /** Settings whose value changed that take effect at the next start only (AT_NEXT_START). */
  atNextStart: string[];
}

/** A configuration the gateway refused: it keeps running the one it had. */
export class ReloadError extends Error {
  constructor(
    /** Each problem, as "<where>: <what>". */
    readonly problems: string[],
    source: string,
  ) {
    super(`the configuration ${source} was not applied (the running one is kept): ${problems.join('; ')}`);
    this.name = 'ReloadError';
  }
}

/** The servers that run: those not disabled. */
export function enabledServers(config: Pick<Config, 'servers'>): Map<string, ServerDef> {
  return new Map(config.servers.filter((s) => !s.disabled).map((s) => [s.name, s]));
}

/** A value as JSON with its keys sorted, so two definitions written in another order compare equal. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : x,
  );
}

function sameDef(a: ServerDef, b: ServerDef): boolean {
  return canonical(a) === canonical(b);
}

/** What differs between the running servers and settings and the new ones. Pure. */
export function diffConfig(
  before: ReadonlyMap<string, ServerDef>,
  after: ReadonlyMap<string, ServerDef>,
  oldSettings: Pick<Settings, 'entries'>,
  newSettings: Pick<Settings, 'entries'>,
): ConfigDiff {
  const d: ConfigDiff = { added: [], removed: [], changed: [], kept: [], settings: [], atNextStart: [] };
  for (const [name, def] of after) {
    const was = before.get(name);
    if (!was) d.added.push(name);
    else (sameDef(was, def) ? d.kept : d.changed).push(name);
  }
  for (const name of before.keys()) if (!after.has(name)) d.removed.push(name);
  const old = new Map(oldSettings.entries());
  for (const [key, r] of newSettings.entries()) {
    if (canonical(old.get(key)?.value) === canonical(r.value)) continue;
    (AT_NEXT_START.includes(key) ? d.atNextStart : d.settings).push(key);
  }
  // A stdio server without its own block runs in upstream.sandbox's: that changed, it is a changed server
  // (restarted in its new sandbox), never left running in the old one (docs/security.md "The upstream sandbox").
  if (d.settings.includes('upstream.sandbox')) {
    const boxed = d.kept.filter((n) => {
      const def = after.get(n)!;
      return def.type === 'stdio' && def.sandbox === undefined;
    });
    d.kept = d.kept.filter((n) => !boxed.includes(n));
    d.changed.push(...boxed);
  }
  for (const list of [d.added, d.removed, d.changed, d.kept]) list.sort();
  return d;
}

/** The config's own problems, as ReloadError lists them. */
export function problemsOf(config: Config): string[] {
  return config.issues.map((i) => `${i.path || '(file)'}: ${i.message}`);
}

/** What a reload did, on one line. */
export function describeDiff(d: ConfigDiff): string {
  const list = (xs: string[]) => xs.join(', ') || 'none';
  const parts = [
    `added ${list(d.added)}`,
    `removed ${list(d.removed)}`,
    `changed ${list(d.changed)}`,
    `kept ${list(d.kept)}`,
  ];
  if (d.settings.length) parts.push(`settings ${list(d.settings)}`);
  if (d.atNextStart.length) parts.push(`applied at next start: ${list(d.atNextStart)}`);
  return parts.join('; ');
}
