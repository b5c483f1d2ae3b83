// DPoP (RFC 9449) for one upstream: its key pair, kept with its sign-in in the SecretStore; the proofs
// of its token requests (oauth4webapi's DPoP handle, which also keeps the authorization server's nonce)
// and of its requests to the MCP server (one per request, bound to the access token by `ath`); the MCP
// server's nonce, taken from any answer that gives one (RFC 9449 §9).
import { randomUUID, type webcrypto } from 'node:crypto';
import { SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import type { Discovered } from './discovery';
import { AuthError } from './errors';
import type { Challenge } from './challenge';

/** The one algorithm mcpx signs proofs with: ECDSA P-256 (RFC 9449 §4.2 leaves the choice to the client). */
const DPOP_ALG = 'ES256';
const CURVE = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/** The private key as a JWK (with its public parts): what the SecretStore keeps. */
export type DpopJwk = webcrypto.JsonWebKey;

export class DpopKey {
  /** Proofs at the token endpoint, through oauth4webapi (its nonce cache, per origin). */
  readonly handle: oauth.DPoPHandle;
  private readonly nonces = new Map<string, string>();
  private publicJwk?: webcrypto.JsonWebKey;

  private constructor(
    private readonly pair: webcrypto.CryptoKeyPair,
    readonly jwk: DpopJwk,
  ) {
    this.handle = oauth.DPoP({}, pair);
  }

  /** A new key pair (extractable: it is kept in the SecretStore to outlive the process). */
  static async create(): Promise<DpopKey> {
    const pair = (await crypto.subtle.generateKey(CURVE, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    return new DpopKey(pair, await crypto.subtle.exportKey('jwk', pair.privateKey));
  }

  static async fromJwk(jwk: DpopJwk): Promise<DpopKey> {
    const { d: _d, key_ops: _ops, ...pub } = jwk;
    const privateKey = await crypto.subtle.importKey('jwk', jwk, CURVE, false, ['sign']);
    const publicKey = await crypto.subtle.importKey('jwk', pub, CURVE, true, ['verify']);
    return new DpopKey({ privateKey, publicKey }, jwk);
  }

  /** The JWK thumbprint (RFC 7638) a bound token's cnf.jkt names. */
  thumbprint(): Promise<string> {
    return this.handle.calculateThumbprint();
  }

  /** The DPoP header of a request to the MCP server (RFC 9449 §7): htm, htu without query or fragment,
   *  a fresh jti, iat, ath of the token, and the server's last nonce for that origin. */
  async proof(method: string, url: string, accessToken: string): Promise<string> {
    const u = new URL(url);
    this.publicJwk ??= (({ kty, crv, x, y }) => ({ kty, crv, x, y }))(this.jwk);
    const ath = Buffer.from(await crypto.subtle.digest('SHA-256', Buffer.from(accessToken))).toString('base64url');
    const nonce = this.nonces.get(u.origin);
    return new SignJWT({ htm: method.toUpperCase(), htu: `${u.origin}${u.pathname}`, ath, ...(nonce ? { nonce } : {}) })
      .setProtectedHeader({ alg: DPOP_ALG, typ: 'dpop+jwt', jwk: this.publicJwk as Record<string, string> })
      .setIssuedAt()
      .setJti(randomUUID())
      .sign(this.pair.privateKey);
  }

  /** The MCP server's nonce from any answer that carries one: used from the next proof on. */
  remember(res: { headers: { get(name: string): string | null } }, url: string): void {
    const nonce = res.headers.get('dpop-nonce');
    if (nonce) this.nonces.set(new URL(url).origin, nonce);
  }
}

/** Whether to ask for a DPoP-bound token: `dpop: true` always (refused where the authorization server
 *  offers no ES256), `false` never; absent, where the authorization server lists ES256 in
 *  dpop_signing_alg_values_supported and the MCP server asks for DPoP — a `DPoP` challenge, or its
 *  resource metadata's dpop_bound_access_tokens_required or dpop_signing_alg_values_supported (RFC 9728
 *  §2). A token bound for a server that only takes Bearer would be refused there. */
export function wantsDpop(setting: boolean | undefined, d: Discovered, challenge?: Challenge): boolean {
  if (setting === false) return false;
  const offered = d.as.dpop_signing_alg_values_supported ?? [];
  if (setting === true) {
    if (!offered.includes(DPOP_ALG))
      throw new AuthError(
        `auth.dpop is set, but the authorization server ${new URL(d.as.issuer).host} offers no DPoP with ${DPOP_ALG} (dpop_signing_alg_values_supported: ${offered.length ? offered.join(', ') : 'absent'})`,
      );
    return true;
  }
  return offered.includes(DPOP_ALG) && (challenge?.scheme === 'dpop' || d.dpop.required || d.dpop.algs.length > 0);
}
