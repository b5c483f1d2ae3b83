// An access token checked as an OAuth 2.1 resource server must (2025-06-18..2026-07-28 basic/authorization,
// "Token Handling"; OAuth 2.1 §5.2): a JWT against the issuer's keys (jose: the JWKS fetched, refetched
// when a token names a key rotated in) with its iss, aud, exp and nbf; any other token by introspection
// (RFC 7662) where the issuer offers it and mcpx has a client there. The issuer's metadata is discovered on
// first need (RFC 8414, then OpenID Connect Discovery), every fetch bounded by auth.fetchTimeout, and what
// was verified is kept a short while in a bounded cache. The token itself is never kept, logged or sent on.
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import * as oauth from 'oauth4webapi';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { Principal } from '../../protocol/principal';

export interface VerifierOptions {
  issuer: string;
  clientId?: string;
  clientSecret?: string;
  fetchTimeoutMs: number;
  keysRefetchMs: number;
}

/** Why a token was not taken: `invalid` is the client's (401 invalid_token), `unavailable` the issuer's
 *  (503: it did not answer in time, or answered nonsense). */
export type Refusal = { kind: 'invalid' | 'unavailable'; why: string };

export type Verified = { principal: Principal; audiences: readonly string[]; fresh?: true } | Refusal;

/** A token longer than this is refused unread: no issuer mcpx knows of sends one (a JWT with a few
 *  hundred claims is a few KiB). */
const MAX_TOKEN_CHARS = 8192;
/** RFC 6750 §2.1 b64token. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/** Signatures by the issuer's public keys only: no `none`, no HMAC (whose key would be public). */
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];
/** exp and nbf are read with this much leeway for clocks that differ (seconds). */
const CLOCK_SKEW_S = 30;
/** How long a verified token is taken on the cache's word (a key or a token revoked at the issuer is
 *  seen within it), and how many are kept: the oldest go first. */
const CACHE_MS = 30_000;
const CACHE_MAX = 1024;

/** Loopback issuers may be plain http (tests, a local issuer); anything else must be https. */
export function insecureIssuerAllowed(url: URL): boolean {
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

export class TokenVerifier {
  private readonly issuer: URL;
  private metadata?: Promise<oauth.AuthorizationServer>;
  private keys?: ReturnType<typeof createRemoteJWKSet>;
  private readonly cache = new Map<string, { verified: Exclude<Verified, Refusal>; until: number }>();

  constructor(private readonly o: VerifierOptions) {
    this.issuer = new URL(o.issuer);
  }

  async verify(token: string): Promise<Verified> {
    if (token.length > MAX_TOKEN_CHARS) return invalid(`the token is longer than ${MAX_TOKEN_CHARS} characters`);
    if (!B64TOKEN.test(token)) return invalid('the token is not a bearer token (RFC 6750 b64token)');
    const key = createHash('sha256').update(token).digest('base64url');
    const now = Date.now();
    const kept = this.cache.get(key);
    if (kept && kept.until > now) return kept.verified;
    if (kept) this.cache.delete(key);
    const v = isJwt(token) ? await this.jwt(token) : await this.introspect(token);
    if ('kind' in v) return v;
    const exp = v.principal.expiresAt === undefined ? Infinity : v.principal.expiresAt * 1000;
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, { verified: v, until: Math.min(now + CACHE_MS, exp) });
    return { ...v, fresh: true };
  }

  /** The issuer's metadata, fetched once; a failure is forgotten so the next request fetches again. */
  private as(): Promise<oauth.AuthorizationServer> {
    this.metadata ??= discover(this.issuer, this.o.fetchTimeoutMs).catch((e: unknown) => {
      this.metadata = undefined;
      throw e;
    });
    return this.metadata;
  }

  private async jwt(token: string): Promise<Verified> {
    let as: oauth.AuthorizationServer;
    try {
      as = await this.as();
    } catch (e) {
      return unavailable(`the issuer's metadata could not be read: ${(e as Error).message}`);
    }
    if (typeof as.jwks_uri !== 'string') return unavailable("the issuer's metadata names no jwks_uri");
    this.keys ??= createRemoteJWKSet(new URL(as.jwks_uri), {
      timeoutDuration: this.o.fetchTimeoutMs,
      cooldownDuration: this.o.keysRefetchMs,
    });
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: as.issuer,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_SKEW_S,
        requiredClaims: ['exp', 'sub'],
      });
      return fromClaims(as.issuer, payload as JsonObject);
    } catch (e) {
      return jwtRefusal(e);
    }
  }

  private async introspect(token: string): Promise<Verified> {
    if (!this.o.clientId)
      return invalid('the token is not a JWT, and mcpx has no client at the issuer to introspect it');
    let as: oauth.AuthorizationServer;
    try {
      as = await this.as();
    } catch (e) {
      return unavailable(`the issuer's metadata could not be read: ${(e as Error).message}`);
    }
    if (!as.introspection_endpoint) return invalid('the token is not a JWT, and the issuer offers no introspection');
    const client: oauth.Client = { client_id: this.o.clientId };
    let r: oauth.IntrospectionResponse;
    try {
      const res = await oauth.introspectionRequest(
        as,
        client,
        oauth.ClientSecretBasic(this.o.clientSecret ?? ''),
        token,
        {
          signal: AbortSignal.timeout(this.o.fetchTimeoutMs),
          [oauth.allowInsecureRequests]: insecureIssuerAllowed(this.issuer),
        },
      );
      r = await oauth.processIntrospectionResponse(as, client, res);
    } catch (e) {
      return unavailable(`introspection failed: ${(e as Error).message}`);
    }
    if (!r.active) return invalid('the issuer says the token is not active');
    if (r.iss !== undefined && r.iss !== as.issuer) return invalid('the token was issued by another issuer');
    if (r.token_type !== undefined && /refresh/i.test(String(r.token_type)))
      return invalid('a refresh token is not an access token');
    // No resource owner (the client credentials grant): the subject is the client itself (RFC 9068 §2.2).
    const sub = typeof r.sub === 'string' ? r.sub : r.client_id;
    if (typeof r.exp !== 'number' || typeof sub !== 'string')
      return invalid('introspection names no exp, sub or client_id');
    if (r.exp * 1000 < Date.now() - CLOCK_SKEW_S * 1000) return invalid('the token has expired');
    if (typeof r.nbf === 'number' && r.nbf * 1000 > Date.now() + CLOCK_SKEW_S * 1000)
      return invalid('the token is not valid yet');
    return fromClaims(as.issuer, { ...(r as unknown as JsonObject), sub });
  }
}

/** RFC 8414 metadata at the path-inserted well-known URI, else OpenID Connect Discovery's; its issuer
 *  must be the one configured (oauth4webapi checks it). */
async function discover(issuer: URL, timeoutMs: number): Promise<oauth.AuthorizationServer> {
  let last: unknown;
  for (const algorithm of ['oauth2', 'oidc'] as const) {
    try {
      const res = await oauth.discoveryRequest(issuer, {
        algorithm,
        signal: AbortSignal.timeout(timeoutMs),
        [oauth.allowInsecureRequests]: insecureIssuerAllowed(issuer),
      });
      return await oauth.processDiscoveryResponse(issuer, res);
    } catch (e) {
      last = e;
    }
  }
  throw last instanceof Error ? last : new Error(String(last));
}

const invalid = (why: string): Refusal => ({ kind: 'invalid', why });
const unavailable = (why: string): Refusal => ({ kind: 'unavailable', why });

/** Three base64url parts whose first is a JWS header. */
function isJwt(token: string): boolean {
  if (token.split('.').length !== 3) return false;
  try {
    decodeProtectedHeader(token);
    return true;
  } catch {
    return false;
  }
}

function jwtRefusal(e: unknown): Refusal {
  if (e instanceof errors.JWKSTimeout)
    return unavailable("the issuer's keys did not arrive in time (auth.fetchTimeout)");
  if (e instanceof errors.JWKSInvalid) return unavailable("the issuer's keys are not a JWKS");
  if (e instanceof errors.JWTExpired) return invalid('the token has expired');
  if (e instanceof errors.JWTClaimValidationFailed)
    return invalid(`the token's ${e.claim} claim is not acceptable (${e.reason})`);
  if (e instanceof errors.JOSEAlgNotAllowed) return invalid('the token is not signed with an algorithm mcpx accepts');
  if (e instanceof errors.JWKSNoMatchingKey)
    return invalid("the token is signed by a key the issuer's JWKS does not hold");
  if (e instanceof errors.JWSSignatureVerificationFailed) return invalid("the token's signature does not verify");
  if (e instanceof errors.JOSEError) return invalid(`the token is not a valid JWT (${e.code})`);
  // A fetch that failed outright (the issuer down): not the token's fault.
  return unavailable(`the issuer's keys could not be fetched: ${(e as Error).message}`);
}

/** The principal a token's verified claims name, and the audiences it was issued for. */
function fromClaims(issuer: string, c: JsonObject | JWTPayload): Exclude<Verified, Refusal> {
  const claims = c as JsonObject;
  const aud = claims.aud;
  const audiences =
    typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
  const scope = claims.scope;
  const scp = claims.scp;
  const scopes =
    typeof scope === 'string'
      ? scope.split(' ').filter(Boolean)
      : Array.isArray(scp)
        ? scp.filter((s): s is string => typeof s === 'string')
        : typeof scp === 'string'
          ? scp.split(' ').filter(Boolean)
          : [];
  const clientId =
    typeof claims.client_id === 'string' ? claims.client_id : typeof claims.azp === 'string' ? claims.azp : undefined;
  return {
    principal: {
      issuer,
      subject: claims.sub as string,
      scopes,
      claims,
      ...(clientId !== undefined ? { clientId } : {}),
      ...(typeof claims.exp === 'number' ? { expiresAt: claims.exp } : {}),
    },
    audiences,
  };
}
