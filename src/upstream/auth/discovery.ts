// Where a protected MCP server's authorization server is, per revision (docs/protocol.md "Authorization
// to upstreams"): protected resource metadata first (2025-06-18 and later), from the challenge's
// resource_metadata or the well-known URIs; then the authorization server's metadata by the well-known
// URIs in the order of 2025-11-25 basic/authorization "Authorization Server Metadata Discovery". With
// no protected resource metadata, the 2025-03-26 rules: metadata at the server's origin, else the
// default endpoints there.
import * as oauth from 'oauth4webapi';
import { MODERN } from '../../protocol/revisions';
import type { Challenge } from './challenge';
import { AuthError } from './errors';

export interface Discovered {
  /** The protected resource (RFC 9728 `resource`), sent as the resource indicator (RFC 8707) on every
   *  authorization and token request; absent in the 2025-03-26 flow, which has no such indicator. */
  resource?: string;
  as: oauth.AuthorizationServer;
  /** The protected resource's scopes_supported, where it lists them. */
  scopesSupported?: string[];
  /** Where the authorization server was found: by protected resource metadata (2025-06-18 and later),
   *  or at the server's origin (the 2025-03-26 rules). */
  flow: 'resource-metadata' | 'origin';
  /** What the resource metadata says of DPoP (RFC 9728 §2): whether it requires DPoP-bound tokens, the
   *  proof algorithms it takes. */
  dpop: { required: boolean; algs: string[] };
}

const TIMEOUT_MS = 10_000;

/** http: is allowed only to a loopback host (RFC 8252 §8.3 keeps it for the redirect; tests and local
 *  servers need it for the rest); anything else must be https:. */
export function insecureAllowed(url: string | URL): boolean {
  const h = new URL(url).hostname;
  return h === '127.0.0.1' || h === 'localhost' || h === '[::1]';
}

/** A GET for metadata. MCP-Protocol-Version goes on every discovery request, naming the newest revision
 *  mcpx speaks (2025-03-26 basic/authorization "Server Metadata Discovery Headers"; docs/protocol.md,
 *  the 2025-03-26 header reading). */
async function getMetadata(url: URL): Promise<globalThis.Response | undefined> {
  try {
    const res = await fetch(url, {
      headers: { Accept: 'application/json', 'MCP-Protocol-Version': MODERN },
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: 'error',
    });
    if (res.ok) return res;
    await res.body?.cancel();
  } catch {
    /* an unreachable or redirecting candidate is one that does not exist */
  }
  return undefined;
}

function wellKnown(base: URL, name: string, path = base.pathname): URL {
  const p = path === '/' ? '' : path.replace(/\/$/, '');
  return new URL(`/.well-known/${name}${p}`, base.origin);
}

interface ResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  dpop_bound_access_tokens_required?: boolean;
  dpop_signing_alg_values_supported?: string[];
}

function asResourceMetadata(v: unknown): ResourceMetadata | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.resource !== 'string') return undefined;
  const strings = (x: unknown) => (Array.isArray(x) ? (x.filter((s) => typeof s === 'string') as string[]) : undefined);
  const servers = strings(o.authorization_servers) ?? [];
  if (!servers.length) return undefined;
  return {
    resource: o.resource,
    authorization_servers: servers,
    scopes_supported: strings(o.scopes_supported),
    dpop_bound_access_tokens_required: o.dpop_bound_access_tokens_required === true,
    dpop_signing_alg_values_supported: strings(o.dpop_signing_alg_values_supported),
  };
}

/** Protected resource metadata (RFC 9728 §3): the challenge's URL, else the path-inserted well-known
 *  URI, else the root one (2025-11-25 basic/authorization "Protected Resource Metadata Discovery"). */
async function resourceMetadata(server: URL, challenge?: Challenge): Promise<ResourceMetadata | undefined> {
  const candidates: URL[] = [];
  if (challenge?.resourceMetadata) {
    try {
      candidates.push(new URL(challenge.resourceMetadata));
    } catch {
      /* an unusable URL: the well-known ones remain */
    }
  }
  if (server.pathname !== '/') candidates.push(wellKnown(server, 'oauth-protected-resource'));
  candidates.push(wellKnown(server, 'oauth-protected-resource', '/'));
  for (const url of candidates) {
    const res = await getMetadata(url);
    if (!res) continue;
    const prm = asResourceMetadata(await res.json().catch(() => undefined));
    if (prm) return prm;
  }
  return undefined;
}

/** The resource a protected resource metadata document names must be this server (RFC 9728 §3.3; 2026-07-28
 *  basic/authorization "Protected Resource Metadata Discovery Requirements"): the same origin, and a path
 *  that the server's URL starts with. */
function resourceMatches(resource: string, server: URL): boolean {
  let r: URL;
  try {
    r = new URL(resource);
  } catch {
    return false;
  }
  if (r.origin !== server.origin) return false;
  const base = r.pathname.endsWith('/') ? r.pathname : `${r.pathname}/`;
  return server.pathname === r.pathname || `${server.pathname}/`.startsWith(base);
}

/** Authorization server metadata, validated against the issuer it was asked of (RFC 8414 §3.3; 2026-07-28
 *  basic/authorization/authorization-server-discovery: MUST NOT use it otherwise). The 2025-03-26 flow
 *  has no issuer to check against — the server's origin is the base URL, whatever the document calls
 *  itself (docs/protocol.md "Authorization to upstreams"). */
export async function serverMetadata(issuer: URL, checkIssuer = true): Promise<oauth.AuthorizationServer | undefined> {
  const path = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '');
  const candidates = path
    ? [
        wellKnown(issuer, 'oauth-authorization-server'),
        wellKnown(issuer, 'openid-configuration'),
        new URL(`${path}/.well-known/openid-configuration`, issuer.origin),
      ]
    : [wellKnown(issuer, 'oauth-authorization-server', '/'), wellKnown(issuer, 'openid-configuration', '/')];
  for (const url of candidates) {
    const res = await getMetadata(url);
    if (!res) continue;
    try {
      if (!checkIssuer) {
        const m = (await res.json()) as Record<string, unknown>;
        if (typeof m !== 'object' || m === null || typeof m.token_endpoint !== 'string')
          throw new Error('no token_endpoint');
        return { ...m, issuer: typeof m.issuer === 'string' ? m.issuer : issuer.origin } as oauth.AuthorizationServer;
      }
      return await oauth.processDiscoveryResponse(issuer, res);
    } catch (e) {
      throw new AuthError(
        `the authorization server metadata at ${url.origin}${url.pathname} is not usable: ${(e as Error).message}`,
      );
    }
  }
  return undefined;
}

export async function discover(server: URL, challenge?: Challenge): Promise<Discovered> {
  const prm = await resourceMetadata(server, challenge);
  if (prm) {
    if (!resourceMatches(prm.resource, server))
      throw new AuthError(
        `the protected resource metadata names the resource ${prm.resource}, which is not this server (${server.origin}${server.pathname})`,
      );
    const issuer = new URL(prm.authorization_servers[0]!);
    const as = await serverMetadata(issuer);
    if (!as) throw new AuthError(`the authorization server ${issuer.origin} publishes no metadata`);
    // PKCE with S256, checked in the metadata (2025-11-25 basic/authorization "Authorization Code
    // Protection": without code_challenge_methods_supported the client MUST refuse to proceed).
    if (!as.code_challenge_methods_supported?.includes('S256'))
      throw new AuthError(`the authorization server ${issuer.origin} does not declare PKCE with S256`);
    const dpop = {
      required: prm.dpop_bound_access_tokens_required === true,
      algs: prm.dpop_signing_alg_values_supported ?? [],
    };
    return { resource: prm.resource, as, scopesSupported: prm.scopes_supported, flow: 'resource-metadata', dpop };
  }
  // 2025-03-26 basic/authorization "Authorization Base URL": the server's URL without its path; its
  // metadata there, else "Fallbacks for Servers without Metadata Discovery".
  const base = new URL(server.origin);
  const as = (await serverMetadata(base, false)) ?? {
    issuer: base.origin,
    authorization_endpoint: new URL('/authorize', base).href,
    token_endpoint: new URL('/token', base).href,
    registration_endpoint: new URL('/register', base).href,
    code_challenge_methods_supported: ['S256'],
  };
  return { as, flow: 'origin', dpop: { required: false, algs: [] } };
}
