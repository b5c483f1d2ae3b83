// The person's single sign-on at the enterprise IdP (ext-auth enterprise-managed-authorization §3):
// OpenID Connect, the authorization code flow with PKCE, scope `openid`. The ID token is kept in the
// SecretStore per IdP — one sign-in serves every server of that IdP — and renewed by its refresh token
// where the IdP gave one; past its expiry with no way to renew it, the person signs in again.
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { signInInBrowser } from './browser';
import { idpClient, idpMetadata } from './enterprise';
import type { Discovered } from './discovery';
import { type EnterpriseConfig, clientAuth, describe, requestOptions } from './grants';
import type { SignInPort } from './person';
import type { SecretStore } from './store';

/** An ID token this close to its expiry is renewed first. */
const EARLY_S = 60;

interface IdpSession {
  id_token: string;
  refresh_token?: string;
}

export interface IdpSignIn {
  idp: EnterpriseConfig;
  store: SecretStore;
  person?: SignInPort;
  /** The MCP server the sign-in is for, named to the person. */
  server: string;
  timeoutMs: number;
  redirectPort?: number;
  signal?: AbortSignal;
  log(line: string): void;
}

const idpKey = (issuer: string): string => `mcpx.oauth-idp/${issuer}`;

/** Sign-ins under way, per IdP: servers of one IdP wait for the same one. */
const underWay = new Map<string, Promise<string | undefined>>();

/** The person's ID token: kept, renewed, or signed in for; undefined when nobody can sign in now. */
export function idpIdToken(s: IdpSignIn): Promise<string | undefined> {
  const key = idpKey(s.idp.issuer);
  const known = underWay.get(key);
  if (known) return known;
  const p = current(s).finally(() => underWay.delete(key));
  underWay.set(key, p);
  return p;
}

const parse = (raw: string | undefined): IdpSession | undefined => {
  try {
    const v = raw ? (JSON.parse(raw) as IdpSession) : undefined;
    return typeof v?.id_token === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
};

const fresh = (idToken: string): boolean => {
  try {
    const exp = decodeJwt(idToken).exp;
    return exp === undefined || exp - EARLY_S > Date.now() / 1000;
  } catch {
    return false;
  }
};

async function current(s: IdpSignIn): Promise<string | undefined> {
  const key = idpKey(s.idp.issuer);
  const kept = parse(await s.store.get(key));
  if (kept && fresh(kept.id_token)) return kept.id_token;
  const as = await idpMetadata(s.idp);
  if (kept?.refresh_token) {
    const renewed = await renew(s, as, kept.refresh_token);
    if (renewed) {
      await s.store.set(key, JSON.stringify(renewed));
      return renewed.id_token;
    }
  }
  if (!s.person?.available()) return undefined;
  const d: Discovered = { as, flow: 'origin', dpop: { required: false, algs: [] } };
  const offline = as.scopes_supported?.includes('offline_access') ? ' offline_access' : '';
  const { tokens } = await signInInBrowser({
    server: s.server,
    d,
    cfg: { clientId: s.idp.clientId, clientSecret: s.idp.clientSecret, redirectPort: s.redirectPort },
    scope: `openid${offline}`,
    person: s.person,
    timeoutMs: s.timeoutMs,
    signal: s.signal,
    log: s.log,
  });
  if (!tokens.id_token)
    throw new Error(`the identity provider ${new URL(s.idp.issuer).host} answered the sign-in without an ID token`);
  const session: IdpSession = { id_token: tokens.id_token, refresh_token: tokens.refresh_token };
  await s.store.set(key, JSON.stringify(session));
  s.log(`[${s.server}] signed in at the identity provider ${new URL(s.idp.issuer).host}`);
  return session.id_token;
}

/** A new ID token by the refresh token (OpenID Connect Core §12.2); undefined when the IdP refuses or
 *  answers without one. */
async function renew(
  s: IdpSignIn,
  as: oauth.AuthorizationServer,
  refreshToken: string,
): Promise<IdpSession | undefined> {
  const client = idpClient(s.idp, as);
  const c: oauth.Client = { client_id: client.client_id };
  try {
    const res = await oauth.refreshTokenGrantRequest(
      as,
      c,
      await clientAuth(client, {}),
      refreshToken,
      requestOptions(as),
    );
    const t = await oauth.processRefreshTokenResponse(as, c, res);
    if (typeof t.id_token !== 'string') return undefined;
    return { id_token: t.id_token, refresh_token: t.refresh_token ?? refreshToken };
  } catch (e) {
    s.log(`[${s.server}] the identity provider's refresh failed (${describe(e)}): sign-in needed`);
    return undefined;
  }
}
