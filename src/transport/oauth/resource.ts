// mcpx as an OAuth 2.1 protected resource (2025-06-18..2026-07-28 basic/authorization; docs/security.md
// "Two ways in"): the resource identifier of each endpoint (RFC 8707), its Protected Resource Metadata
// (RFC 9728) at the well-known URIs, and the WWW-Authenticate challenges of a 401 or 403 (RFC 6750 §3).
import type { Settings } from '../../config/settings';
import type { JsonObject } from '../../protocol/jsonrpc';
import { MCP_PATH } from '../refusal';
import { TokenVerifier, insecureIssuerAllowed } from './verifier';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

export interface ResourceSettings {
  readonly issuer: string;
  /** The resource identifier of /mcp; empty: `http://<Host>/mcp`. */
  readonly audience: string;
  readonly scopes: readonly string[];
  readonly allowSecret: boolean;
}

/** What a challenge says went wrong (RFC 6750 §3.1). */
export interface ChallengeError {
  readonly error: 'invalid_token' | 'insufficient_scope' | 'invalid_request';
  readonly description: string;
}

export class ProtectedResource {
  readonly verifier: TokenVerifier;
  readonly o: ResourceSettings;
  /** The paths the well-known URI may be suffixed with for the default endpoint: none (the root form),
   *  /mcp, and the configured audience's own path. */
  private readonly suffixes: Set<string>;

  constructor(settings: Settings) {
    this.o = {
      issuer: settings.get<string>('auth.issuer'),
      audience: settings.get<string>('auth.audience').replace(/\/+$/, ''),
      scopes: settings.get<string[]>('auth.scopes'),
      allowSecret: settings.get<boolean>('auth.allowSecret'),
    };
    const issuer = new URL(this.o.issuer);
    if (issuer.protocol !== 'https:' && !insecureIssuerAllowed(issuer))
      throw new Error(`auth.issuer must be an https URL (or http on a loopback host), got ${issuer.origin}`);
    const clientId = settings.get<string>('auth.clientId');
    this.verifier = new TokenVerifier({
      issuer: this.o.issuer,
      ...(clientId ? { clientId, clientSecret: settings.get<string>('auth.clientSecret') } : {}),
      fetchTimeoutMs: settings.duration('auth.fetchTimeout'),
      keysRefetchMs: settings.duration('auth.keysRefetch'),
    });
    this.suffixes = new Set(['', MCP_PATH, ...(this.o.audience ? [new URL(this.o.audience).pathname] : [])]);
  }

  /** The resource identifier of the default endpoint (`profile` undefined) or a profile's, as a client
   *  reaching `host` names it. */
  resourceOf(host: string, profile?: string): string {
    const base = this.o.audience || `http://${host}${MCP_PATH}`;
    return profile === undefined ? base : `${base}/${profile}`;
  }

  /** Where the metadata of `resource` is: the well-known URI with its path inserted (RFC 9728 §3.1). */
  metadataUrl(resource: string): string {
    const u = new URL(resource);
    return `${u.origin}${WELL_KNOWN}${u.pathname === '/' ? '' : u.pathname}`;
  }

  /** A well-known path as the endpoint it describes: `{}` for the default one, `{profile}` for a
   *  profile's; null for a path that is none of them. */
  wellKnown(pathname: string): { profile?: string } | null {
    if (!pathname.startsWith(WELL_KNOWN)) return null;
    const rest = pathname.slice(WELL_KNOWN.length);
    if (this.suffixes.has(rest)) return {};
    for (const s of this.suffixes) {
      if (s === '' || !rest.startsWith(`${s}/`)) continue;
      const profile = rest.slice(s.length + 1);
      if (/^[a-z0-9-]{1,32}$/.test(profile)) return { profile };
    }
    return null;
  }

  /** The Protected Resource Metadata document of `resource` (RFC 9728 §2). */
  document(resource: string, scopes: readonly string[]): JsonObject {
    return {
      resource,
      authorization_servers: [this.o.issuer],
      ...(scopes.length ? { scopes_supported: [...scopes] } : {}),
      bearer_methods_supported: ['header'],
      resource_name: 'mcpx',
    };
  }

  /** A WWW-Authenticate value: where the metadata is, the scopes the endpoint needs, and what went wrong. */
  challenge(resource: string, scopes: readonly string[], err?: ChallengeError, realm = false): string {
    const params = [
      ...(realm ? ['realm="mcpx"'] : []),
      `resource_metadata="${this.metadataUrl(resource)}"`,
      ...(scopes.length ? [`scope="${scopes.join(' ')}"`] : []),
      ...(err ? [`error="${err.error}"`, `error_description="${quotable(err.description)}"`] : []),
    ];
    return `Bearer ${params.join(', ')}`;
  }
}

/** RFC 6750 §3: error_description is printable ASCII without `"` or `\`. */
const quotable = (s: string): string => s.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');
