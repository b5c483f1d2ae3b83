// What most clients share: an entry `{command, args, env}` for a local server, a URL (under the key the
// client uses) and `headers` for a remote one, and how one of them becomes an mcpx server definition.
import type { Imported, Json, ShimCommand } from '../client';
import { type RefStyles, asMcpxRefs } from '../refs';

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{command, args, env}`, env only when the shim needs one. */
export function plainEntry(shim: ShimCommand, extra: Json = {}): Json {
  return { ...extra, command: shim.command, args: [...shim.args], ...(shim.env ? { env: { ...shim.env } } : {}) };
}

/** What a client's local entry holds, in mcpx's terms. */
export interface Local {
  command: unknown;
  args?: unknown;
  env?: unknown;
  cwd?: unknown;
}

/** What a client's remote entry holds, in mcpx's terms. */
export interface Remote {
  url: unknown;
  /** mcpx's transport: Streamable HTTP (falling back to HTTP+SSE), or HTTP+SSE. */
  type: 'http' | 'sse';
  headers?: unknown;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A client's local server as an mcpx definition: literal environment values become secrets. */
export function fromLocal(l: Local, refs: RefStyles, extra: Json, dropped: string[]): Imported | string {
  if (typeof l.command !== 'string' || !l.command) return 'its command is not a string';
  const args = l.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) return 'its args are not strings';
  const env: Record<string, string> = {};
  const secrets: Record<string, string> = {};
  if (l.env !== undefined) {
    if (!isObject(l.env)) return 'its env is not an object';
    for (const [k, v] of Object.entries(l.env)) {
      if (!ENV_NAME.test(k)) return `its env names a variable ${JSON.stringify(k)}`;
      if (typeof v !== 'string' && typeof v !== 'number') return `its env value of ${k} is not a string`;
      const text = String(v);
      const ref = asMcpxRefs(text, refs);
      if (ref !== undefined) env[k] = ref;
      else if (/[\r\n]/.test(text)) return `its env value of ${k} spans lines`;
      else secrets[k] = text;
    }
  }
  if (l.cwd !== undefined && typeof l.cwd !== 'string') return 'its cwd is not a string';
  const def: Json = {
    command: l.command,
    args,
    ...(Object.keys(env).length ? { env } : {}),
    ...(l.cwd !== undefined ? { cwd: l.cwd } : {}),
    ...extra,
  };
  return { def, secrets, dropped };
}

/** A client's remote server as an mcpx definition. Header values are kept only as references: a literal
 *  one (a token) would have to be copied into mcpx's config, so such a server stays where it is. */
export function fromRemote(r: Remote, refs: RefStyles, extra: Json, dropped: string[]): Imported | string {
  if (typeof r.url !== 'string') return 'its URL is not a string';
  let url: URL;
  try {
    url = new URL(r.url);
  } catch {
    return 'its URL is not a URL';
  }
  if (url.username || url.password || url.search)
    return 'its URL carries credentials or a query, which mcpx would have to copy into its config';
  const headers: Record<string, string> = {};
  if (r.headers !== undefined) {
    if (!isObject(r.headers)) return 'its headers are not an object';
    for (const [k, v] of Object.entries(r.headers)) {
      if (typeof v !== 'string') return `its header ${k} is not a string`;
      const ref = asMcpxRefs(v, refs);
      if (ref === undefined)
        return `its header ${k} holds a literal value, which mcpx would have to copy into its config (use a variable reference)`;
      headers[k] = ref;
    }
  }
  const def: Json = { type: r.type, url: r.url, ...(Object.keys(headers).length ? { headers } : {}), ...extra };
  return { def, secrets: {}, dropped };
}

/** The keys of `raw` outside `known`. */
export const unknownKeys = (raw: Json, known: readonly string[]): string[] =>
  Object.keys(raw).filter((k) => !known.includes(k));

/** The `mcpServers`-style entry most clients write: local by `command`, remote by a URL under one of
 *  `urls` (the key naming the transport). `off`: whether the entry is switched off. */
export function readStandard(
  raw: unknown,
  o: {
    refs: RefStyles;
    urls: Readonly<Record<string, 'http' | 'sse'>>;
    known: readonly string[];
    off?: (raw: Json) => boolean;
    typeOf?: (raw: Json) => 'http' | 'sse' | undefined;
  },
): Imported | string {
  if (!isObject(raw)) return 'it is not an object';
  const extra: Json = o.off?.(raw) ? { disabled: true } : {};
  const dropped = unknownKeys(raw, [...o.known, 'command', 'args', 'env', 'cwd', 'headers', ...Object.keys(o.urls)]);
  if (raw.command !== undefined) return fromLocal(raw as unknown as Local, o.refs, extra, dropped);
  const key = Object.keys(o.urls).find((k) => raw[k] !== undefined);
  if (!key) return 'it has neither a command nor a URL';
  const type = o.typeOf?.(raw) ?? o.urls[key]!;
  return fromRemote({ url: raw[key], type, headers: raw.headers }, o.refs, extra, dropped);
}
