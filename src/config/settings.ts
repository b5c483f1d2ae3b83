// Every setting, its default and how it is read, in one registry. Sources, weakest first: the default,
// the config file's `settings` object, VS Code's `mcpx.<key>`, an `MCPX_<KEY>` environment variable,
// a command-line flag.
import { MODERN, NEWEST_FIRST, REVISIONS, isRevision } from '../protocol/revisions';

export type Source = 'default' | 'config' | 'vscode' | 'env' | 'flag';

type Kind = 'duration' | 'integer' | 'boolean' | 'string' | 'list' | 'revisions' | 'revision';

export interface SettingDef {
  readonly key: string;
  readonly kind: Kind;
  readonly default: unknown;
  readonly description: string;
  /** Extra environment variable names (aliases, e.g. MCPX_MCP_SPEC for spec.first). */
  readonly env?: readonly string[];
  readonly min?: number;
}

const D = (
  key: string,
  kind: Kind,
  def: unknown,
  description: string,
  extra: Partial<SettingDef> = {},
): SettingDef => ({
  key,
  kind,
  default: def,
  description,
  ...extra,
});

export const SETTINGS: readonly SettingDef[] = [
  D('port', 'integer', 8899, 'Loopback port of the gateway (the next free one if taken, in VS Code).', { min: 0 }),
  D(
    'address',
    'string',
    '127.0.0.1',
    'Address the gateway binds. Beyond loopback, anything that can reach it can run tools as you.',
  ),
  D(
    'spec.precedence',
    'revisions',
    [...NEWEST_FIRST],
    'Revisions in the order their rules win where revisions conflict; a partial list is completed newest first.',
  ),
  D('spec.first', 'revision', '', 'Moves one revision to the front of spec.precedence (--mcp-spec).', {
    env: ['MCPX_MCP_SPEC'],
  }),
  D('spec.lenient', 'revisions', [], 'Revisions mcpx does not hold strictly.'),
  D('transport.sseKeepAlive', 'duration', 15_000, 'Interval of SSE keep-alive comments on every stream mcpx serves.'),
  D(
    'transport.allowedOrigins',
    'list',
    [],
    "Origins allowed besides loopback and the gateway's own address; a request whose Host is one's host and port is allowed too (a port forwarded to the gateway, a proxy in front of it).",
  ),
  D('transport.stdioDrain', 'duration', 5_000, 'How long requests in flight may finish after stdin ends.'),
  D('transport.maxBodyBytes', 'integer', 4 * 1024 * 1024, 'Largest request body accepted over HTTP (413 beyond).', {
    min: 1024,
  }),
  D(
    'transport.sessionIdleTimeout',
    'duration',
    3_600_000,
    'A legacy HTTP session unused this long (and with no stream open) is ended.',
  ),
  D(
    'transport.sessionInitIdle',
    'duration',
    30_000,
    'A legacy HTTP session that, since its initialize, has sent no request and opened no GET stream is ended after this long (its next request gets 404 and initializes again), so a flood of initialize cannot hold limits.sessions (0: only transport.sessionIdleTimeout).',
  ),
  D(
    'transport.headersTimeout',
    'duration',
    10_000,
    'Longest a client may take to send the headers of a request, from the moment it could start; past it the connection is answered 408 and closed (0: no bound; at most transport.requestTimeout).',
  ),
  D(
    'transport.requestTimeout',
    'duration',
    60_000,
    'Longest a client may take to send a whole request, headers and body (408 past it, and the connection closed; 0: no bound). It does not bound the response: a long call or an open SSE stream is not cut.',
  ),
  D(
    'transport.maxConnections',
    'integer',
    512,
    'Most HTTP connections the gateway holds at once (open streams, requests being sent, idle keep-alive connections); past it a new connection is answered 503 naming this setting and closed.',
    { min: 1 },
  ),
  D(
    'transport.secret',
    'boolean',
    true,
    'Serve only requests that carry the endpoint secret (Authorization: Bearer, or the /mcp/<secret> path). Off, anything that can reach the port runs tools as you.',
  ),
  D(
    'transport.maxLineBytes',
    'integer',
    4 * 1024 * 1024,
    "Longest stdio line read, from a client or a stdio upstream (the twin of transport.maxBodyBytes): a client's longer line is answered -32600 and discarded; an upstream's closes its connection.",
    {
      min: 1024,
    },
  ),
  D(
    'limits.batchLength',
    'integer',
    64,
    'Most messages in one JSON-RPC batch; a longer one is refused whole (-32600).',
    { min: 1 },
  ),
  D(
    'limits.responseBytes',
    'integer',
    32 * 1024 * 1024,
    'Largest response written for one request or one batch; a response past it is replaced by an error.',
    {
      min: 1024,
    },
  ),
  D('limits.paramsDepth', 'integer', 64, 'Deepest nesting of objects and arrays in a message (-32602 beyond).', {
    min: 8,
  }),
  D(
    'limits.instancesPerServer',
    'integer',
    8,
    'Most instances of one `scope: "identity"` server running at once; beyond, the least recently used idle one is stopped, or the call is refused.',
    {
      min: 1,
    },
  ),
  D(
    'limits.sessions',
    'integer',
    1024,
    'Most legacy HTTP sessions held at once; beyond, a new initialize is refused (-32603) and no session is ended for it.',
    {
      min: 1,
    },
  ),
  D(
    'limits.identitiesPerConnection',
    'integer',
    16,
    'Most identities one client connection may name in _meta["dev.mcpx/session"] (-32602 beyond).',
    {
      min: 1,
    },
  ),
  D(
    'limits.backgroundPerIdentity',
    'integer',
    64,
    `Most ${MODERN} background calls one identity may hold at once; beyond, a new call is refused.`,
    { min: 1 },
  ),
  D(
    'limits.tasks',
    'integer',
    4096,
    'Most tasks the gateway holds, running or kept after they ended (proto.askTTL); beyond, a new task is refused (-32603).',
    { min: 1 },
  ),
  D(
    'limits.tasksPerIdentity',
    'integer',
    32,
    'Most running tasks one identity may hold at once; beyond, a new task is refused (-32603). Ended ones do not count.',
    { min: 1 },
  ),
  D(
    'limits.questionsPerIdentity',
    'integer',
    32,
    'Most questions waiting at the broker for one identity at once; beyond, a new question is refused.',
    { min: 1 },
  ),
  D(
    'limits.inflightPerIdentity',
    'integer',
    256,
    'Most requests of one identity running at once; more wait their turn.',
    {
      min: 1,
    },
  ),
  D(
    'limits.inflight',
    'integer',
    2048,
    'Most requests running or waiting at once in the gateway (beyond, new ones are refused); also the most background calls held and questions waiting at the broker.',
    {
      min: 16,
    },
  ),
  D(
    'upstream.env',
    'list',
    [],
    "Names of the gateway's environment variables passed to every stdio upstream, besides the safe list.",
  ),
  D('mcp.pageSize', 'integer', 100, 'Items per page of a list result.', { min: 1 }),
  D('mcp.passthrough', 'list', [], 'Servers whose tools, prompts and resources are offered under their own names.'),
  D(
    'pool.callTimeout',
    'duration',
    120_000,
    'Longest an upstream call may run; a caller may lower it per call, never raise it.',
  ),
  D(
    'pool.maxCallTime',
    'duration',
    1_800_000,
    'Progress from an upstream extends pool.callTimeout, never beyond this from the start of the call.',
  ),
  D('pool.startTimeout', 'duration', 10_000, 'How long connecting to an upstream (era probe and handshake) may take.'),
  D(
    'pool.probeTimeout',
    'duration',
    3_000,
    'How long server/discover may go unanswered before an upstream is taken as legacy.',
  ),
  D('pool.idleTimeout', 'duration', 600_000, 'An upstream unused this long is stopped.'),
  D(
    'auth.signInTimeout',
    'duration',
    300_000,
    'How long a person has to finish signing in to an upstream in the browser.',
  ),
  D(
    'auth.stepUpRetries',
    'integer',
    2,
    'How many times one request may sign in again for a wider scope (insufficient_scope) before it fails.',
    { min: 0 },
  ),
  D(
    'exec.timeout',
    'duration',
    120_000,
    'Longest an mcpx_exec script may run (its `timeoutSec` may set another, up to proto.askTimeout); each call it makes is bounded by pool.callTimeout too.',
  ),
  D(
    'exec.maxOutputBytes',
    'integer',
    1024 * 1024,
    'Largest output of an mcpx_exec script (its returned value and its logs); a script past it is stopped.',
    { min: 1024 },
  ),
  D(
    'exec.maxConcurrent',
    'integer',
    16,
    'Most requests an mcpx_exec script may have in flight at once; past it a request is refused (the script sees the error).',
    { min: 1 },
  ),
  D(
    'exec.maxRuns',
    'integer',
    16,
    'Most mcpx_exec scripts running at once in the gateway (each is a process); past it a new run is refused.',
    { min: 1 },
  ),
  D(
    'exec.maxRunsPerIdentity',
    'integer',
    4,
    'Most mcpx_exec scripts one client identity may have running at once; past it its new run is refused.',
    { min: 1 },
  ),
  D('exec.maxHeapMB', 'integer', 256, 'V8 heap limit of the process an mcpx_exec script runs in, in MB.', { min: 16 }),
  D('proto.native', 'boolean', true, 'Ask the calling client first when an upstream asks a question.'),
  D('proto.askTimeout', 'duration', 600_000, 'Longest one client request may be held for a question.'),
  D('proto.askRounds', 'integer', 8, 'How many times one call may come back asking.', { min: 1 }),
  D('proto.stateTTL', 'duration', 1_800_000, 'How long a requestState may be resumed with.'),
  D(
    'proto.askTTL',
    'duration',
    900_000,
    "A background call still waiting after this is cancelled; a finished one's result is kept this long.",
  ),
  D('protoMessages.listMaxAge', 'duration', 60_000, `ttlMs of list results and server/discover (${MODERN}).`),
  D('protoMessages.readMaxAge', 'duration', 0, `ttlMs of resources/read results (${MODERN}).`),
  D(
    'protoMessages.taskAfter',
    'duration',
    5_000,
    `How long a ${MODERN} call to a tool that declares no task support may run before it becomes a task (only for a client that declared the tasks extension and answers no questions inline).`,
  ),
  D(
    'proto.taskPollInterval',
    'duration',
    500,
    'The polling interval mcpx suggests for its tasks (pollInterval, pollIntervalMs).',
  ),
  D(
    'tasks.adminAccess',
    'boolean',
    false,
    'A /v1/tasks request that names no identity (Mcpx-Identity, Mcp-Session-Id) sees, and may cancel, every task of every client: `mcpx tasks --all`. Off, it is refused (400).',
  ),
  D(
    'shim.reconnectFor',
    'duration',
    30_000,
    'How long a stdio shim keeps trying to reach a gateway again after it went away before it exits.',
  ),
  D(
    'shim.sshCommand',
    'string',
    'mcpx',
    'The command that runs mcpx on the far host of `--connect ssh://host` (space-separated words).',
  ),
  D('log.level', 'string', 'info', 'Gateway log level: debug, info, warning, error.'),
  D(
    'daemon.idleExit',
    'duration',
    0,
    '`mcpx daemon` exits after this long with no MCP or /v1 request, no open session and no open stream (0: never).',
  ),
  D(
    'shim.daemonIdleExit',
    'duration',
    600_000,
    'The daemon.idleExit of a daemon a stdio shim or `mcpx tools`/`call`/`read` starts in the background when no gateway is running.',
  ),
  D(
    'transport.maxInflightPerConnection',
    'integer',
    32,
    'Most requests in flight on one HTTP connection (pipelined ones; an open stream counts): past it a request is answered 429 naming this setting, on its head alone, its body never read.',
    { min: 1 },
  ),
  D(
    'transport.maxInflightPerIdentity',
    'integer',
    1024,
    'Most HTTP requests in flight for one legacy session (by Mcp-Session-Id; its GET stream counts): past it a request is answered 429 naming this setting, on its head alone, its body never read. Below it, limits.inflightPerIdentity queues.',
    { min: 1 },
  ),
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

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/;
const UNIT: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

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
      return d ?? fail(`expected a duration like 500ms, 15s, 2m or 1h, got ${JSON.stringify(raw)}`);
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
      return typeof raw === 'string' ? raw : fail(`expected a string, got ${JSON.stringify(raw)}`);
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
}

/** The environment layer: every MCPX_<KEY> (and alias) that is set. */
export function envLayer(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const def of SETTINGS) {
    for (const name of [envName(def.key), ...(def.env ?? [])]) {
      if (env[name] !== undefined && env[name] !== '') out[def.key] = env[name];
    }
  }
  return out;
}
