// The protocol steps, through oauth4webapi: registration (pre-registered, client ID metadata document,
// dynamic registration, in the order of 2025-11-25 basic/authorization "Client Registration
// Approaches"), the authorization code grant with PKCE S256 and the resource indicator, the client
// credentials grant, the JWT bearer grant (RFC 7523), refresh and revocation; each token request with a
// DPoP proof where the token is to be bound (RFC 9449).
import * as oauth from 'oauth4webapi';
import type { Discovered } from './discovery';
import { insecureAllowed } from './discovery';
import { AuthError } from './errors';
import type { TokenSource } from './sources';
import type { Grant } from './store';

/** The enterprise identity provider of a server's `auth.enterprise` (the ID-JAG's issuer). */
export interface EnterpriseConfig {
  issuer: string;
  tokenEndpoint?: string;
  clientId: string;
  clientSecret?: string;
  idToken?: TokenSource;
}

/** A server definition's `auth: {type: "oauth", …}`. */
export interface OAuthConfig {
  clientId?: string;
  clientSecret?: string;
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt';
  /** Scopes asked for besides those the server's challenge or metadata name. */
  scopes?: string[];
  /** The loopback redirect's port (0: any free one). */
  redirectPort?: number;
  /** An https URL serving this client's metadata document (a client ID metadata document). */
  clientMetadataUrl?: string;
  grant?: 'authorization_code' | 'client_credentials' | 'jwt_bearer' | 'enterprise';
  /** private_key_jwt: the PKCS#8 PEM key and its algorithm. */
  privateKeyPem?: string;
  signingAlgorithm?: string;
  /** DPoP-bound tokens: true always, false never, absent where both servers offer them. */
  dpop?: boolean;
  /** jwt_bearer: where the workload's JWT comes from. */
  assertion?: TokenSource;
  enterprise?: EnterpriseConfig;
}

/** The grants that need no person: they run again whenever a token is missing or expired. */
export const unattended = (cfg: OAuthConfig | undefined): boolean =>
  cfg?.grant === 'client_credentials' || cfg?.grant === 'jwt_bearer' || cfg?.grant === 'enterprise';

export type Client = NonNullable<Grant['client']>;

const TIMEOUT_MS = 15_000;

const CLIENT_NAME = 'mcpx';

export function requestOptions(as: oauth.AuthorizationServer, extra: Record<string, string> = {}) {
  return {
    [oauth.allowInsecureRequests]: insecureAllowed(as.issuer),
    signal: AbortSignal.timeout(TIMEOUT_MS),
    ...(Object.keys(extra).length ? { additionalParameters: extra } : {}),
  };
}

export async function clientAuth(client: Client, cfg: OAuthConfig): Promise<oauth.ClientAuth> {
  switch (client.auth_method) {
    case 'client_secret_basic':
      return secretBasic(client.client_id, client.client_secret ?? '');
    case 'client_secret_post':
      return oauth.ClientSecretPost(client.client_secret ?? '');
    case 'private_key_jwt': {
      if (!cfg.privateKeyPem) throw new AuthError('private_key_jwt needs auth.privateKeyPem');
      const alg = cfg.signingAlgorithm ?? 'ES256';
      const der = Buffer.from(cfg.privateKeyPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
      const params = alg.startsWith('ES')
        ? { name: 'ECDSA', namedCurve: `P-${alg.slice(2)}` }
        : { name: 'RSASSA-PKCS1-v1_5', hash: `SHA-${alg.slice(2)}` };
      const key = await crypto.subtle.importKey('pkcs8', der, params, false, ['sign']);
      return oauth.PrivateKeyJwt(key);
    }
    case 'anonymous':
      // No client at all: a workload's JWT is its own credential (unattended.ts).
      return () => undefined;
    default:
      return oauth.None();
  }
}

/** client_secret_basic with each part form-encoded as RFC 6749 §2.3.1 says, leaving the characters
 *  that form encoding leaves (oauth4webapi's own also encodes "-", which servers in the wild, the
 *  conformance suite's among them, do not decode). */
function secretBasic(id: string, secret: string): oauth.ClientAuth {
  const enc = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
  return (_as, _client, _body, headers) => {
    headers.set('authorization', `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`);
  };
}

/** The client mcpx is at this authorization server. */
export async function registerClient(
  d: Discovered,
  cfg: OAuthConfig,
  redirectUri: string,
  known?: Client,
): Promise<Client> {
  if (cfg.clientId) {
    return {
      client_id: cfg.clientId,
      client_secret: cfg.clientSecret,
      auth_method: cfg.tokenEndpointAuthMethod ?? (cfg.clientSecret ? pickSecretMethod(d.as) : 'none'),
    };
  }
  if (cfg.clientMetadataUrl && d.as.client_id_metadata_document_supported === true)
    return { client_id: cfg.clientMetadataUrl, auth_method: 'none' };
  if (known) return known;
  if (!d.as.registration_endpoint)
    throw new AuthError(
      `the authorization server ${new URL(d.as.issuer).host} offers no registration: give auth.clientId (and auth.clientSecret) in the server's definition`,
    );
  const supported = d.as.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  const method = supported.includes('none') ? 'none' : pickSecretMethod(d.as);
  const metadata: Partial<oauth.OmitSymbolProperties<oauth.Client>> = {
    client_name: CLIENT_NAME,
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: method,
    // 2026-07-28 basic/authorization/client-registration "Application Type and Redirect URI Constraints"
    application_type: 'native',
  };
  const res = await oauth.dynamicClientRegistrationRequest(d.as, metadata, requestOptions(d.as));
  // Read by hand, not processDynamicClientRegistrationResponse: servers in the wild (the conformance
  // suite's among them) omit client_secret_expires_at beside a secret, which RFC 7591 §3.2.1 requires
  // and which mcpx does not use.
  const body = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (!res.ok || typeof body?.client_id !== 'string') {
    const why =
      typeof body?.error === 'string'
        ? `${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}`
        : `HTTP ${res.status}`;
    throw new AuthError(`registration at ${new URL(d.as.issuer).host} failed: ${why}`);
  }
  const reg = body as { client_id: string; client_secret?: unknown; token_endpoint_auth_method?: unknown };
  const secret = typeof reg.client_secret === 'string' ? reg.client_secret : undefined;
  const am = typeof reg.token_endpoint_auth_method === 'string' ? reg.token_endpoint_auth_method : undefined;
  return {
    client_id: reg.client_id,
    client_secret: secret,
    auth_method: am ?? (secret ? 'client_secret_basic' : 'none'),
    redirect_uri: redirectUri,
  };
}

export function pickSecretMethod(as: oauth.AuthorizationServer): string {
  const s = as.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  return s.includes('client_secret_basic')
    ? 'client_secret_basic'
    : s.includes('client_secret_post')
      ? 'client_secret_post'
      : s[0]!;
}

const asClient = (c: Client): oauth.Client => ({ client_id: c.client_id });

/** The message of an oauth4webapi error, with the server's error code where it gave one; never a token. */
export function describe(e: unknown): string {
  if (e instanceof oauth.ResponseBodyError) return `${e.error}${e.error_description ? `: ${e.error_description}` : ''}`;
  if (e instanceof oauth.AuthorizationResponseError)
    return `${e.error}${e.error_description ? `: ${e.error_description}` : ''}`;
  return e instanceof Error ? e.message : String(e);
}

export interface AuthorizationRequest {
  url: URL;
  state: string;
  verifier: string;
}

export async function authorizationRequest(
  d: Discovered,
  client: Client,
  redirectUri: string,
  scope: string | undefined,
): Promise<AuthorizationRequest> {
  if (!d.as.authorization_endpoint)
    throw new AuthError(`the authorization server ${d.as.issuer} has no authorization endpoint`);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(d.as.authorization_endpoint);
  const p = url.searchParams;
  p.set('response_type', 'code');
  p.set('client_id', client.client_id);
  p.set('redirect_uri', redirectUri);
  p.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  p.set('code_challenge_method', 'S256');
  p.set('state', state);
  if (scope) p.set('scope', scope);
  if (d.resource) p.set('resource', d.resource);
  return { url, state, verifier };
}

/** What every token request of one sign-in shares: where, as whom, and the DPoP handle when the token is
 *  to be DPoP-bound (RFC 9449 §5). */
export interface TokenContext {
  d: Discovered;
  client: Client;
  cfg: OAuthConfig;
  dpop?: oauth.DPoPHandle;
}

function grantFrom(t: oauth.TokenEndpointResponse, prev: Partial<Grant>): Partial<Grant> {
  return {
    access_token: t.access_token,
    token_type: t.token_type === 'dpop' ? 'dpop' : 'bearer',
    refresh_token: t.refresh_token ?? prev.refresh_token,
    ...(t.id_token ? { id_token: t.id_token } : {}),
    expires_at: typeof t.expires_in === 'number' ? Date.now() + t.expires_in * 1000 : undefined,
  };
}

/** One token request, made once more with the nonce when the authorization server answers
 *  use_dpop_nonce (RFC 9449 §8; oauth4webapi's handle keeps the nonce from that answer). Any other
 *  failure is an AuthError naming `what` and the server's error code — never a token. */
async function tokenRequest(
  t: TokenContext,
  what: string,
  send: (as: oauth.AuthorizationServer, client: oauth.Client, auth: oauth.ClientAuth) => Promise<Response>,
  prev: Partial<Grant> = {},
): Promise<Partial<Grant>> {
  const once = async () => {
    const res = await send(t.d.as, asClient(t.client), await clientAuth(t.client, t.cfg));
    return grantFrom(await oauth.processGenericTokenEndpointResponse(t.d.as, asClient(t.client), res), prev);
  };
  try {
    try {
      return await once();
    } catch (e) {
      if (t.dpop && oauth.isDPoPNonceError(e)) return await once();
      throw e;
    }
  } catch (e) {
    if (e instanceof AuthError) throw e;
    throw new AuthError(`${what} failed: ${describe(e)}`);
  }
}

/** The parameters every token request carries besides its grant's: the resource indicator (RFC 8707). */
const resourceOf = (t: TokenContext): Record<string, string> => (t.d.resource ? { resource: t.d.resource } : {});

/** The request options of a token request: the resource indicator, the DPoP handle. */
function tokenOptions(t: TokenContext) {
  return { ...requestOptions(t.d.as, resourceOf(t)), ...(t.dpop ? { DPoP: t.dpop } : {}) };
}

/** A grant oauth4webapi has no function for, its parameters with the resource indicator and scope. */
function genericGrant(
  t: TokenContext,
  what: string,
  grantType: string,
  params: Record<string, string>,
  scope?: string,
) {
  const all = { ...params, ...(scope ? { scope } : {}), ...resourceOf(t) };
  return tokenRequest(t, what, (as, client, auth) =>
    oauth.genericTokenEndpointRequest(as, client, auth, grantType, all, tokenOptions(t)),
  );
}

/** The redirect's answer checked (state, and iss per RFC 9207 as 2026-07-28 basic/authorization asks),
 *  then the code exchanged with its verifier and the resource indicator. */
export async function exchangeCode(
  t: TokenContext,
  req: AuthorizationRequest,
  redirectUri: string,
  callback: URL,
): Promise<Partial<Grant>> {
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(t.d.as, asClient(t.client), callback, req.state);
  } catch (e) {
    throw new AuthError(`the authorization response was refused: ${describe(e)}`);
  }
  return tokenRequest(t, 'the token request', (as, client, auth) =>
    oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, req.verifier, tokenOptions(t)),
  );
}

export function clientCredentials(t: TokenContext, scope: string | undefined): Promise<Partial<Grant>> {
  return genericGrant(t, 'the client credentials grant', 'client_credentials', {}, scope);
}

export function refresh(t: TokenContext, g: Grant): Promise<Partial<Grant>> {
  return tokenRequest(
    t,
    'the refresh',
    (as, client, auth) => oauth.refreshTokenGrantRequest(as, client, auth, g.refresh_token ?? '', tokenOptions(t)),
    g,
  );
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** The JWT bearer grant (RFC 7523 §2.1): a workload's JWT, or an ID-JAG from the enterprise IdP. */
export function jwtBearer(t: TokenContext, assertion: string, scope: string | undefined): Promise<Partial<Grant>> {
  return genericGrant(t, 'the JWT bearer grant', JWT_BEARER, { assertion }, scope);
}

/** RFC 7009, where the server has a revocation endpoint; a failure is reported, not thrown. */
export async function revoke(
  d: Discovered,
  client: Client,
  cfg: OAuthConfig,
  token: string,
): Promise<string | undefined> {
  if (!d.as.revocation_endpoint) return 'the authorization server has no revocation endpoint';
  try {
    const res = await oauth.revocationRequest(
      d.as,
      asClient(client),
      await clientAuth(client, cfg),
      token,
      requestOptions(d.as),
    );
    await oauth.processRevocationResponse(res);
    return undefined;
  } catch (e) {
    return describe(e);
  }
}
