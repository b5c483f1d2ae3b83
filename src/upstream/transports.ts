// A transport for a server definition, with its auth applied to every connection.
import { loadEnvFile } from '../config/envFile';
import { type SandboxBlock, sandboxOf } from '../config/sandbox';
import type { ServerDef } from '../config/servers';
import type { Authorizer } from './auth/authorizer';
import { HttpUpstream } from './http';
import { SseUpstream } from './sse';
import { sandboxed } from './sandbox';
import { StdioUpstream } from './stdio';
import type { UpstreamBounds, UpstreamTransport } from './transport';

/** Headers and URL of an http definition, with auth applied. */
function httpTarget(def: Extract<ServerDef, { url: string }>): { url: string; headers: Record<string, string> } {
  const headers: Record<string, string> = { ...def.headers };
  const url = new URL(def.url);
  const a = def.auth;
  if (a?.type === 'bearer') headers.Authorization = `Bearer ${a.token}`;
  if (a?.type === 'basic')
    headers.Authorization = `Basic ${Buffer.from(`${a.username}:${a.password}`).toString('base64')}`;
  if (a?.type === 'header') headers[a.name] = a.value;
  if (a?.type === 'query') url.searchParams.set(a.name, a.value);
  return { url: url.toString(), headers };
}

/** What every stdio upstream inherits of the gateway's environment (docs/security.md "Upstream
 *  environment"): the official SDK's POSIX list, plus the locale, the time zone and the temporary and
 *  runtime directories. */
const SAFE_ENV = [
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'TERM',
  'USER',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
  'XDG_RUNTIME_DIR',
];

/** The environment a stdio upstream starts with: the safe list and the names in `upstream.env` (or all
 *  of it with `inheritEnv: true`), then its envFile, env and auth. */
function inherited(def: Extract<ServerDef, { command: string }>, names: readonly string[]): NodeJS.ProcessEnv {
  if (def.inheritEnv) return { ...process.env };
  const env: NodeJS.ProcessEnv = {};
  for (const k of [...SAFE_ENV, ...names]) {
    const v = process.env[k];
    // A value starting with "()" is a shell function: never passed on (as the official SDK does).
    if (v !== undefined && !v.startsWith('()')) env[k] = v;
  }
  return env;
}

/** The upstream.sandbox setting and the workspace's folders (paths): a stdio server's sandbox. */
export interface SandboxContext {
  fallback: SandboxBlock;
  roots: readonly string[];
}

async function stdioTransport(
  def: Extract<ServerDef, { command: string }>,
  envNames: readonly string[],
  log: (l: string) => void,
  bounds: Partial<UpstreamBounds>,
  box: SandboxContext,
): Promise<StdioUpstream> {
  const env = inherited(def, envNames);
  if (def.envFile) Object.assign(env, await loadEnvFile(def.envFile));
  for (const [k, v] of Object.entries(def.env)) {
    if (v === null) delete env[k];
    else env[k] = String(v);
  }
  if (def.auth?.type === 'env') env[def.auth.name] = def.auth.value;
  const spec = { command: def.command, args: def.args, env, cwd: def.cwd };
  const sandbox = sandboxOf(def.sandbox, box.fallback);
  if (!sandbox.enabled) return new StdioUpstream(def.name, spec, log, bounds);
  // No mechanism, no start: the error names what to install (never unsandboxed silently).
  const s = await sandboxed(spec, sandbox, box.roots, (l) => log(`[${def.name}] ${l}`));
  return new StdioUpstream(def.name, s.spec, log, bounds, s.release);
}

export async function openTransport(
  def: ServerDef,
  via: 'stdio' | 'http' | 'sse',
  log: (l: string) => void,
  /** What is read from the upstream is bounded; a bound left out takes its setting's default. */
  b: Partial<UpstreamBounds>,
  envNames: readonly string[] = [],
  /** The server's sign-in, for Streamable HTTP (docs/gateway.md "Signing in to upstreams"). */
  auth?: Authorizer,
  /** A stdio server's sandbox: the setting and the roots; absent: none unless its definition asks. */
  box: SandboxContext = { fallback: false, roots: [] },
): Promise<UpstreamTransport> {
  if (def.type === 'stdio') return stdioTransport(def, envNames, log, b, box);
  const { url, headers } = httpTarget(def);
  if (via === 'sse') return SseUpstream.open(def.name, url, headers, log, b);
  return new HttpUpstream(def.name, { url, headers, log, bounds: b, auth });
}
