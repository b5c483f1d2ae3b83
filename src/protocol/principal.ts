// Who a verified access token says the caller is (docs/security.md "Two ways in"): plain data, so it can
// be logged escaped, journalled and handed between replicas as it is. The verifier (transport/oauth/)
// makes one; the server, the gateway's rules and the /v1 routes read it.
import type { JsonObject } from './jsonrpc';

export interface Principal {
  /** The token's issuer, as its metadata spells it (the configured auth.issuer, RFC 8414 §3.3). */
  readonly issuer: string;
  /** The token's `sub`: unique within its issuer. */
  readonly subject: string;
  /** The scopes the token carries (`scope`, space-separated, or `scp`, a list). */
  readonly scopes: readonly string[];
  /** The token's claims as the issuer signed or introspection returned them (groups and the like). */
  readonly claims: JsonObject;
  /** The OAuth client the token was issued to (`client_id`, `azp`), where it says. */
  readonly clientId?: string;
  /** When the token expires, seconds since the epoch. */
  readonly expiresAt?: number;
}

/** The prefix of an identity a token gave (docs/protocol.md "Client identity"). */
const TOKEN_IDENTITY = 'oauth:';

/** The identity that owns what a token's caller makes: issuer and subject. An issuer carries no `#` (RFC
 *  8414 §2: no fragment), so the first one splits them again. */
export const principalIdentity = (p: Pick<Principal, 'issuer' | 'subject'>): string =>
  `${TOKEN_IDENTITY}${p.issuer}#${p.subject}`;

/** The scopes of `required` the principal does not hold. */
export const missingScopes = (p: Principal, required: readonly string[]): string[] =>
  required.filter((s) => !p.scopes.includes(s));

/** A claim's values as text: a string, each string or number of a list, a number or boolean written out;
 *  nothing for an object or an absent claim. */
export function claimValues(p: Principal, name: string): string[] {
  const v: unknown = name === 'sub' ? p.subject : p.claims[name];
  const one = (x: unknown): string | undefined =>
    typeof x === 'string' ? x : typeof x === 'number' || typeof x === 'boolean' ? String(x) : undefined;
  if (Array.isArray(v)) return v.map(one).filter((x): x is string => x !== undefined);
  const s = one(v);
  return s === undefined ? [] : [s];
}
