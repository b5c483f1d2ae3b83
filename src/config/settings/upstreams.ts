// Settings of mcpx as a client: the upstreams' environment, the surface, the pool, signing in, mcpx_exec.
import { D, type SettingDef } from './def';

/** `true`, `false` or an object, or one of them spelled as JSON (an environment variable). */
function booleanOrObject(raw: unknown): unknown {
  let v = raw;
  if (typeof raw === 'string') {
    try {
      v = JSON.parse(raw);
    } catch {
      throw new Error(`expected true, false or a JSON object, got ${JSON.stringify(raw)}`);
    }
  }
  if (typeof v === 'boolean' || (typeof v === 'object' && v !== null && !Array.isArray(v))) return v;
  throw new Error(`expected true, false or an object, got ${JSON.stringify(v)}`);
}

export const UPSTREAMS: readonly SettingDef[] = [
  D(
    'upstream.env',
    'list',
    [],
    "Names of the gateway's environment variables passed to every stdio upstream, besides the safe list.",
  ),
  D(
    'upstream.sandbox',
    'object',
    false,
    'The sandbox of every stdio upstream whose definition has no `sandbox` block: `false` (none), `true` (the defaults: reads of the workspace roots, the server\'s own directories and the system\'s libraries; writes to a private temporary directory; no network), or a block `{ enabled, read, write, network }` (docs/security.md "The upstream sandbox").',
    // Only its form here (a boolean or an object, or either as JSON): the block itself is checked where a
    // server starts (config/sandbox.ts `parseSandboxSetting`), so the settings hold no zod (the shim's bundle).
    { parse: booleanOrObject },
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
];
