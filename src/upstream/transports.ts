// A transport for a server definition, with its auth applied to every connection.
import { homedir } from 'node:os';
import { loadEnvFile } from '../config/envFile';
import { type SandboxBlock, sandboxOf } from '../config/sandbox';
import type { ServerDef } from '../config/servers';
import { setEnv, system } from '../platform';
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

/** The environment a stdio upstream starts with: the system's safe list (docs/security.md "Upstream
 *  environment") and the names in `upstream.env` (or all of it with `inheritEnv: true`), then its
 *  envFile, env and auth. */
function inherited(def: Extract<ServerDef, { command: string }>, names: readonly string[]): NodeJS.ProcessEnv {
  if (def.inheritEnv) return { ...process.env };
  const env: NodeJS.ProcessEnv = {};
  for (const k of [...system.safeEnv, ...names]) {
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
  // Names compared as the system does (one variable whatever its case on Windows): a later one replaces.
  const put = (k: string, v: string | undefined) => setEnv(env, k, v, system.envCaseless);
  // Paths as the system writes them: ~, %VAR% on Windows, relative to the gateway's directory.
  const path = (p: string) => system.expandPath(p, process.env, homedir(), process.cwd());
  if (def.envFile) for (const [k, v] of Object.entries(await loadEnvFile(path(def.envFile)))) put(k, v);
  for (const [k, v] of Object.entries(def.env)) put(k, v === null ? undefined : String(v));
  if (def.auth?.type === 'env') put(def.auth.name, def.auth.value);
  // A command with a directory in it is a path; a bare name is found on the PATH.
  const command = /^~|[\\/]/.test(def.command) ? path(def.command) : def.command;
  const spec = { command, args: def.args, env, cwd: def.cwd === undefined ? undefined : path(def.cwd) };
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
