// Enterprise-managed authorization (the MCP extension io.modelcontextprotocol/enterprise-managed-
// authorization, ext-auth specification/draft/enterprise-managed-authorization): the person's identity
// assertion from the enterprise IdP is exchanged there (RFC 8693) for an Identity Assertion JWT
// Authorization Grant (ID-JAG) naming the MCP server's authorization server and resource; the ID-JAG is
// then the assertion of the JWT bearer grant (grants.ts jwtBearer) at that authorization server.
import * as oauth from 'oauth4webapi';
import { serverMetadata } from './discovery';
import { AuthError } from './errors';
import { type Client, type EnterpriseConfig, clientAuth, describe, pickSecretMethod, requestOptions } from './grants';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';

/** The IdP's metadata: its token endpoint as configured, else from its published metadata (RFC 8414 or
 *  OpenID Connect Discovery, the issuer checked). */
export async function idpMetadata(e: EnterpriseConfig): Promise<oauth.AuthorizationServer> {
  if (e.tokenEndpoint) return { issuer: e.issuer, token_endpoint: e.tokenEndpoint };
  const as = await serverMetadata(new URL(e.issuer));
  if (!as)
    throw new AuthError(
      `the identity provider ${new URL(e.issuer).host} publishes no metadata: give auth.enterprise.tokenEndpoint`,
    );
  return as;
}

/** mcpx's client at the IdP: its secret sent as the IdP's metadata prefers (basic where it lists none),
 *  or its client_id alone (ext-auth enterprise-managed-authorization §4: authenticated as at sign-in). */
export function idpClient(e: EnterpriseConfig, as: oauth.AuthorizationServer): Client {
  return {
    client_id: e.clientId,
    client_secret: e.clientSecret,
    auth_method: e.clientSecret ? pickSecretMethod(as) : 'none',
  };
}

export interface JagRequest {
  idp: EnterpriseConfig;
  /** The person's ID token (the subject token). */
  idToken: string;
  /** The issuer of the MCP server's authorization server (the ID-JAG's audience). */
  audience: string;
  /** The MCP server's resource identifier (RFC 9728). */
  resource: string;
  scope?: string;
}

/** The token exchange at the IdP (ext-auth enterprise-managed-authorization §4): the ID-JAG, or an
 *  AuthError naming the IdP and its error code. */
export async function requestIdJag(r: JagRequest): Promise<string> {
  const host = new URL(r.idp.issuer).host;
  try {
    const as = await idpMetadata(r.idp);
    const client = idpClient(r.idp, as);
    const params: Record<string, string> = {
      requested_token_type: ID_JAG,
      audience: r.audience,
      resource: r.resource,
      subject_token: r.idToken,
      subject_token_type: ID_TOKEN,
      ...(r.scope ? { scope: r.scope } : {}),
    };
    const c: oauth.Client = { client_id: client.client_id };
    const res = await oauth.genericTokenEndpointRequest(
      as,
      c,
      await clientAuth(client, {}),
      TOKEN_EXCHANGE,
      params,
      requestOptions(as),
    );
    // token_type N_A: the ID-JAG is not an access token (§4.2).
    const t = await oauth.processGenericTokenEndpointResponse(as, c, res, {
      recognizedTokenTypes: { n_a: () => undefined },
    });
    if (t.issued_token_type !== ID_JAG)
      throw new AuthError(
        `the identity provider ${host} issued ${String(t.issued_token_type ?? 'no token type')}, not an ID-JAG`,
      );
    return t.access_token;
  } catch (e) {
    if (e instanceof AuthError) throw e;
    throw new AuthError(`the token exchange at the identity provider ${host} failed: ${describe(e)}`);
  }
}
