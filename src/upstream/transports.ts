// A transport for a server definition, with its auth applied to every connection.
import { readFileSync } from 'node:fs';
import type { ServerDef } from '../config/servers';
import { HttpUpstream } from './http';
import { SseUpstream } from './sse';
import { StdioUpstream } from './stdio';
import type { UpstreamTransport } from './transport';

/** KEY=VALUE lines (# comments) of an envFile. */
function readEnvFile(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)\s*$/.exec(line);
    if (!m || line.trim().startsWith('#')) continue;
    out[m[1]!] = m[2]!.replace(/^(['"])(.*)\1$/, '$2');
  }
  return out;
}

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

function stdioTransport(
  def: Extract<ServerDef, { command: string }>,
  log: (l: string) => void,
  maxLineBytes: number,
): StdioUpstream {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (def.envFile) Object.assign(env, readEnvFile(def.envFile));
  for (const [k, v] of Object.entries(def.env)) {
    if (v === null) delete env[k];
    else env[k] = String(v);
  }
  if (def.auth?.type === 'env') env[def.auth.name] = def.auth.value;
  return new StdioUpstream(def.name, { command: def.command, args: def.args, env, cwd: def.cwd }, log, maxLineBytes);
}

export async function openTransport(
  def: ServerDef,
  via: 'stdio' | 'http' | 'sse',
  log: (l: string) => void,
  /** transport.maxLineBytes: the longest line read from a stdio upstream. */
  maxLineBytes: number,
): Promise<UpstreamTransport> {
  if (def.type === 'stdio') return stdioTransport(def, log, maxLineBytes);
  const { url, headers } = httpTarget(def);
  if (via === 'sse') return SseUpstream.open(def.name, url, headers, log);
  return new HttpUpstream(def.name, { url, headers, log });
}
