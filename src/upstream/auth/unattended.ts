// The grants that need nobody, run again whenever the token is missing or expired: client credentials
// (ext-auth oauth-client-credentials), the JWT bearer grant with a workload's JWT (SEP-1933 workload
// identity federation: RFC 7523 §2.1, no registration, the JWT read afresh from its source each time),
// and the enterprise grant (the ID-JAG from the person's IdP, enterprise.ts, then the JWT bearer grant
// with the client registered beforehand).
import type * as oauth from 'oauth4webapi';
import type { Discovered } from './discovery';
import { requestIdJag } from './enterprise';
import { type Client, type OAuthConfig, clientCredentials, jwtBearer, registerClient } from './grants';
import { readToken } from './sources';
import type { Grant } from './store';

export interface UnattendedGrant {
  d: Discovered;
  cfg: OAuthConfig;
  scope?: string;
  /** The client registered before at this authorization server. */
  known?: Client;
  dpop?: oauth.DPoPHandle;
  /** The server's URL: the resource where its metadata names none (the 2025-03-26 flow). */
  server: string;
  /** The person's ID token when the definition names no source for it (a sign-in at the IdP). */
  signInAtIdp(): Promise<string>;
}

/** A workload without a client_id of its own presents its JWT alone (SEP-1933: no registration, the
 *  JWT is the credential): no client authentication, no client_id sent. */
const ANONYMOUS: Client = { client_id: 'mcpx', auth_method: 'anonymous' };

export async function unattendedGrant(u: UnattendedGrant): Promise<{ client: Client; tokens: Partial<Grant> }> {
  const { d, cfg, scope, dpop } = u;
  if (cfg.grant === 'jwt_bearer') {
    const client = cfg.clientId ? await registerClient(d, cfg, '', u.known) : ANONYMOUS;
    const assertion = await readToken(cfg.assertion!, 'the workload identity token (auth.assertion)');
    return { client, tokens: await jwtBearer({ d, client, cfg, dpop }, assertion, scope) };
  }
  const client = await registerClient(d, cfg, '', u.known);
  if (cfg.grant === 'enterprise') {
    const idp = cfg.enterprise!;
    const idToken = idp.idToken
      ? await readToken(idp.idToken, 'the ID token (auth.enterprise.idToken)')
      : await u.signInAtIdp();
    const jag = await requestIdJag({ idp, idToken, audience: d.as.issuer, resource: d.resource ?? u.server, scope });
    return { client, tokens: await jwtBearer({ d, client, cfg, dpop }, jag, scope) };
  }
  return { client, tokens: await clientCredentials({ d, client, cfg, dpop }, scope) };
}
