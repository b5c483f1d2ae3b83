// The person's part of an authorization code sign-in: a listener on 127.0.0.1 for the redirect, the
// client (registered for that redirect where it must be), the authorization request, the browser sent
// there through the host's SignInPort, the code exchanged. The MCP server's authorization server and the
// enterprise IdP (OpenID Connect sign-in) both go through it.
import type * as oauth from 'oauth4webapi';
import type { SignInPort } from './person';
import type { Discovered } from './discovery';
import { type Client, type OAuthConfig, authorizationRequest, exchangeCode, registerClient } from './grants';
import { listenForRedirect } from './loopback';
import type { Grant } from './store';

const LOOPBACK = /^http:\/\/127\.0\.0\.1:\d+\/callback$/;
const sameRedirect = (a: string | undefined, b: string): boolean =>
  a === undefined || a === b || (LOOPBACK.test(a) && LOOPBACK.test(b));

export interface BrowserSignIn {
  server: string;
  d: Discovered;
  cfg: OAuthConfig;
  scope?: string;
  /** The client registered before at this authorization server. */
  known?: Client;
  person: SignInPort;
  timeoutMs: number;
  signal?: AbortSignal;
  dpop?: oauth.DPoPHandle;
  log(line: string): void;
}

export async function signInInBrowser(b: BrowserSignIn): Promise<{ client: Client; tokens: Partial<Grant> }> {
  const ctl = new AbortController();
  const abort = () => ctl.abort();
  b.signal?.addEventListener('abort', abort, { once: true });
  const loop = await listenForRedirect(b.cfg.redirectPort ?? 0, b.timeoutMs, ctl.signal);
  try {
    const redirectUri = loop.redirectUri;
    // A registered client is used again only for a redirect it was registered with (any port of the
    // loopback counts as one: RFC 8252 §7.3).
    const known = b.known && sameRedirect(b.known.redirect_uri, redirectUri) ? b.known : undefined;
    const client = await registerClient(b.d, b.cfg, redirectUri, known);
    const req = await authorizationRequest(b.d, client, redirectUri, b.scope);
    const issuerHost = new URL(b.d.as.issuer).host;
    b.log(`[${b.server}] sign-in at ${issuerHost} started`);
    await b.person.open({
      server: b.server,
      issuer: b.d.as.issuer,
      issuerHost,
      scopes: b.scope ? b.scope.split(' ') : [],
      url: req.url,
      signal: ctl.signal,
    });
    const callback = await loop.result;
    const tokens = await exchangeCode({ d: b.d, client, cfg: b.cfg, dpop: b.dpop }, req, redirectUri, callback);
    return { client, tokens };
  } finally {
    loop.close();
    b.signal?.removeEventListener('abort', abort);
  }
}
