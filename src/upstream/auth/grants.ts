// The protocol steps, through oauth4webapi: registration (pre-registered, client ID metadata document,
// dynamic registration, in the order of 2025-11-25 basic/authorization "Client Registration
// Approaches"), the authorization code grant with PKCE S256 and the resource indicator, the client
// credentials grant, refresh and revocation.
import * as oauth from 'oauth4webapi';
import type { Discovered } from './discovery';
import { insecureAllowed } from './discovery';
import { AuthError } from './errors';
import type { Grant } from './store';

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
  grant?: 'authorization_code' | 'client_credentials';
  /** private_key_jwt: the PKCS#8 PEM key and its algorithm. */
  privateKeyPem?: string;
  signingAlgorithm?: string;
}

export type Client = NonNullable<Grant['client']>;

const TIMEOUT_MS = 15_000;

const CLIENT_NAME = 'mcpx';

function requestOptions(as: oauth.AuthorizationServer, extra: Record<string, string> = {}) {
  return {
    [oauth.allowInsecureRequests]: insecureAllowed(as.issuer),
    signal: AbortSignal.timeout(TIMEOUT_MS),
    ...(Object.keys(extra).length ? { additionalParameters: extra } : {}),
  };
}

async function clientAuth(client: Client, cfg: OAuthConfig): Promise<oauth.ClientAuth> {
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

function pickSecretMethod(as: oauth.AuthorizationServer): string {
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

function grantFrom(t: oauth.TokenEndpointResponse, prev: Partial<Grant>): Partial<Grant> {
  return {
    access_token: t.access_token,
    refresh_token: t.refresh_token ?? prev.refresh_token,
    expires_at: typeof t.expires_in === 'number' ? Date.now() + t.expires_in * 1000 : undefined,
  };
}

/** The redirect's answer checked (state, and iss per RFC 9207 as 2026-07-28 basic/authorization asks),
 *  then the code exchanged with its verifier and the resource indicator. */
export async function exchangeCode(
  d: Discovered,
  client: Client,
  cfg: OAuthConfig,
  req: AuthorizationRequest,
  redirectUri: string,
  callback: URL,
): Promise<Partial<Grant>> {
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(d.as, asClient(client), callback, req.state);
  } catch (e) {
    throw new AuthError(`the authorization response was refused: ${describe(e)}`);
  }
  const extra: Record<string, string> = d.resource ? { resource: d.resource } : {};
  try {
    const res = await oauth.authorizationCodeGrantRequest(
      d.as,
      asClient(client),
      await clientAuth(client, cfg),
      params,
      redirectUri,
      req.verifier,
      requestOptions(d.as, extra),
    );
    return grantFrom(await oauth.processAuthorizationCodeResponse(d.as, asClient(client), res), {});
  } catch (e) {
    if (e instanceof AuthError) throw e;
    throw new AuthError(`the token request failed: ${describe(e)}`);
  }
}

export async function clientCredentials(
  d: Discovered,
  client: Client,
  cfg: OAuthConfig,
  scope: string | undefined,
): Promise<Partial<Grant>> {
  const params: Record<string, string> = {};
  if (scope) params.scope = scope;
  if (d.resource) params.resource = d.resource;
  try {
    const res = await oauth.clientCredentialsGrantRequest(
      d.as,
      asClient(client),
      await clientAuth(client, cfg),
      params,
      requestOptions(d.as),
    );
    return grantFrom(await oauth.processClientCredentialsResponse(d.as, asClient(client), res), {});
  } catch (e) {
    if (e instanceof AuthError) throw e;
    throw new AuthError(`the client credentials grant failed: ${describe(e)}`);
  }
}

export async function refresh(d: Discovered, client: Client, cfg: OAuthConfig, g: Grant): Promise<Partial<Grant>> {
  const extra: Record<string, string> = d.resource ? { resource: d.resource } : {};
  const res = await oauth.refreshTokenGrantRequest(
    d.as,
    asClient(client),
    await clientAuth(client, cfg),
    g.refresh_token ?? '',
    requestOptions(d.as, extra),
  );
  return grantFrom(await oauth.processRefreshTokenResponse(d.as, asClient(client), res), g);
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
