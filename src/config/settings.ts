// Every setting, its default and how it is read, in one registry. Sources, weakest first: the default,
// the config file's `settings` object, VS Code's `mcpx.<key>`, an `MCPX_<KEY>` environment variable,
// a command-line flag.
import { REVISIONS, isRevision } from '../protocol/revisions';
import type { SettingDef } from './settings/def';
import { ACTIVITY } from './settings/activity';
import { AUTH } from './settings/auth';
import { LIMITS } from './settings/limits';
import { PINS } from './settings/pins';
import { PROCESSES } from './settings/processes';
import { PROTO } from './settings/proto';
import { REGISTRY } from './settings/registry';
import { RESULTS } from './settings/results';
import { SERVE } from './settings/serve';
import { SKILLS } from './settings/skills';
import { STORE } from './settings/store';
import { TELEMETRY } from './settings/telemetry';
import { UPSTREAMS } from './settings/upstreams';

export type { SettingDef } from './settings/def';

export type Source = 'default' | 'config' | 'vscode' | 'env' | 'flag';

/** The one table: every setting, in the order docs/settings.md and package.json list them; its rows by
 *  job in config/settings/. */
export const SETTINGS: readonly SettingDef[] = [
  ...SERVE,
  ...AUTH,
  ...LIMITS,
  ...UPSTREAMS,
  ...PROTO,
  ...PROCESSES,
  ...TELEMETRY,
  ...ACTIVITY,
  ...PINS,
  ...SKILLS,
  ...RESULTS,
  ...REGISTRY,
  ...STORE,
];

const SETTING_KEYS = SETTINGS.map((s) => s.key);
const byKey = new Map(SETTINGS.map((s) => [s.key, s]));

/** A setting's default, for a part that runs without Settings (its one place is the table above). */
export function defaultOf<T>(key: string): T {
  const def = byKey.get(key);
  if (!def) throw new Error(`no setting ${key}`);
  return def.default as T;
}

/** MCPX_ + the key in upper snake case: `transport.sseKeepAlive` -> MCPX_TRANSPORT_SSE_KEEP_ALIVE. */
export function envName(key: string): string {
  return (
    'MCPX_' +
    key
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/\./g, '_')
      .toUpperCase()
  );
}

class SettingError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`${key}: ${message}`);
    this.name = 'SettingError';
  }
}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;
const UNIT: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(v: string | number): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? v : undefined;
  const m = DURATION.exec(v.trim());
  if (!m) return undefined;
  return Math.round(Number(m[1]) * UNIT[m[2] ?? 'ms']!);
}

function revisionsError(bad: string): string {
  return `unknown revision "${bad}"; valid revisions: ${REVISIONS.join(', ')}`;
}

/** Parse a value of a setting from a string (env, flag) or a JSON value (config file, VS Code). */
function parseSetting(def: SettingDef, raw: unknown): unknown {
  const fail = (why: string): never => {
    throw new SettingError(def.key, why);
  };
  const list = (): string[] =>
    Array.isArray(raw)
      ? raw.map((x) => (typeof x === 'string' ? x.trim() : fail(`expected strings, got ${JSON.stringify(x)}`)))
      : typeof raw === 'string'
        ? raw
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : fail(`expected a list or a comma-separated string, got ${JSON.stringify(raw)}`);
  switch (def.kind) {
    case 'duration': {
      const d = typeof raw === 'string' || typeof raw === 'number' ? parseDuration(raw) : undefined;
      return d ?? fail(`expected a duration like 500ms, 15s, 2m, 1h or 7d, got ${JSON.stringify(raw)}`);
    }
    case 'integer': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
      if (!Number.isInteger(n)) fail(`expected an integer, got ${JSON.stringify(raw)}`);
      if (def.min !== undefined && n < def.min) fail(`must be at least ${def.min}, got ${n}`);
      return n;
    }
    case 'boolean':
      if (typeof raw === 'boolean') return raw;
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      return fail(`expected true or false, got ${JSON.stringify(raw)}`);
    case 'string':
      if (typeof raw !== 'string') return fail(`expected a string, got ${JSON.stringify(raw)}`);
      if (def.choices && !def.choices.includes(raw))
        fail(`expected one of ${def.choices.join(', ')}, got ${JSON.stringify(raw)}`);
      return raw;
    case 'list':
      return list();
    case 'revisions': {
      const l = list();
      for (const r of l) if (!isRevision(r)) fail(revisionsError(r));
      return l;
    }
    case 'revision': {
      if (raw === '' || raw === undefined) return '';
      return isRevision(raw) ? raw : fail(revisionsError(String(raw)));
    }
    case 'object':
      try {
        return def.parse!(raw);
      } catch (e) {
        return fail((e as Error).message);
      }
  }
}

export interface Resolved {
  value: unknown;
  source: Source;
}

/** The effective settings. Each layer is a map of key -> raw value; later layers win. */
export class Settings {
  private readonly values = new Map<string, Resolved>();

  constructor(layers: ReadonlyArray<{ source: Source; values: Readonly<Record<string, unknown>> }> = []) {
    for (const def of SETTINGS) this.values.set(def.key, { value: def.default, source: 'default' });
    for (const layer of layers) {
      for (const [key, raw] of Object.entries(layer.values)) {
        const def = byKey.get(key);
        if (!def) throw new SettingError(key, `unknown setting; known settings: ${SETTING_KEYS.join(', ')}`);
        if (raw === undefined) continue;
        this.values.set(key, { value: parseSetting(def, raw), source: layer.source });
      }
    }
  }

  get<T>(key: string): T {
    const r = this.values.get(key);
    if (!r) throw new SettingError(key, 'unknown setting');
    return r.value as T;
  }
  duration(key: string): number {
    return this.get<number>(key);
  }
  resolved(key: string): Resolved {
    return this.values.get(key)!;
  }
  entries(): Array<[string, Resolved]> {
    return SETTINGS.map((d) => [d.key, this.values.get(d.key)!]);
  }

  /** Take `other`'s values in place, so every part that reads this object sees them (a reload,
   *  docs/gateway.md "Changing the configuration"); the keys in `except` keep their running values. */
  adopt(other: Settings, except: readonly string[] = []): void {
    for (const [key, r] of other.entries()) if (!except.includes(key)) this.values.set(key, r);
  }
}

/** The variable a setting's value comes from in `env`: its MCPX_<KEY>, or an alias (an alias set wins, as
 *  the later name); undefined where none is set. */
export function envSource(key: string, env: NodeJS.ProcessEnv): string | undefined {
  const def = SETTINGS.find((d) => d.key === key);
  if (!def) return undefined;
  return [envName(key), ...(def.env ?? [])].filter((n) => env[n] !== undefined && env[n] !== '').at(-1);
}

/** The environment layer: every MCPX_<KEY> (and alias) that is set. */
export function envLayer(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const def of SETTINGS) {
    const name = envSource(def.key, env);
    if (name !== undefined) out[def.key] = env[name];
  }
  return out;
}
