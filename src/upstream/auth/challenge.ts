// The challenge of a 401 or 403 — Bearer (RFC 6750 §3) or DPoP (RFC 9449 §7.1), with RFC 9728 §5.1's
// resource_metadata: what an MCP server says about where its protected resource metadata is, which
// scopes an operation needs, and why it refused.

export interface Challenge {
  scheme: 'bearer' | 'dpop';
  /** RFC 9728 §5.1: the URL of the protected resource metadata. */
  resourceMetadata?: string;
  /** Space-separated scopes the operation needs (2025-11-25 basic/authorization "Scope Selection Strategy"). */
  scope?: string;
  /** RFC 6750 §3.1: invalid_token, insufficient_scope, invalid_request; RFC 9449 §9: use_dpop_nonce. */
  error?: string;
}

// auth-param = token BWS "=" BWS ( token / quoted-string ) (RFC 9110 §11.2)
const PARAM = /([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([!#$%&'*+.^_`|~0-9A-Za-z/=-]+))/y;

/** Every challenge of a WWW-Authenticate value, each with its scheme (lower-cased) and parameters. */
function parseChallenges(header: string): Array<{ scheme: string; params: Record<string, string> }> {
  const out: Array<{ scheme: string; params: Record<string, string> }> = [];
  let i = 0;
  const skip = (re: RegExp) => {
    re.lastIndex = i;
    const m = re.exec(header);
    if (m) i = re.lastIndex;
    return m;
  };
  while (i < header.length) {
    skip(/[\s,]*/y);
    const scheme = skip(/([!#$%&'*+.^_`|~0-9A-Za-z-]+)/y);
    if (!scheme) break;
    const params: Record<string, string> = {};
    out.push({ scheme: scheme[1]!.toLowerCase(), params });
    for (;;) {
      const save = i;
      skip(/[\s,]*/y);
      const m = skip(PARAM);
      if (!m) {
        i = save;
        break;
      }
      params[m[1]!.toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!;
    }
    // token68 or anything unparsed up to the next comma belongs to this challenge
    skip(/[^,]*/y);
  }
  return out;
}

/** The Bearer or DPoP challenge of a response, if it has one; the DPoP one where both are given with an
 *  error (use_dpop_nonce, a DPoP-bound token refused), else the first. */
export function authChallenge(res: { headers: { get(name: string): string | null } }): Challenge | undefined {
  const h = res.headers.get('www-authenticate');
  if (!h) return undefined;
  const all = parseChallenges(h).filter((x) => x.scheme === 'bearer' || x.scheme === 'dpop');
  const c = all.find((x) => x.scheme === 'dpop' && x.params.error) ?? all[0];
  if (!c) return undefined;
  return {
    scheme: c.scheme as Challenge['scheme'],
    resourceMetadata: c.params.resource_metadata,
    scope: c.params.scope,
    error: c.params.error,
  };
}
