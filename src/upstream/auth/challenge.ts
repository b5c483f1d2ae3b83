// The Bearer challenge of a 401 or 403 (RFC 6750 §3, RFC 9728 §5.1): what an MCP server says about
// where its protected resource metadata is, which scopes an operation needs, and why it refused.

export interface BearerChallenge {
  /** RFC 9728 §5.1: the URL of the protected resource metadata. */
  resourceMetadata?: string;
  /** Space-separated scopes the operation needs (2025-11-25 basic/authorization "Scope Selection Strategy"). */
  scope?: string;
  /** RFC 6750 §3.1: invalid_token, insufficient_scope, invalid_request. */
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

/** The Bearer challenge of a response, if it has one. */
export function bearerChallenge(res: { headers: { get(name: string): string | null } }): BearerChallenge | undefined {
  const h = res.headers.get('www-authenticate');
  if (!h) return undefined;
  const c = parseChallenges(h).find((x) => x.scheme === 'bearer');
  if (!c) return undefined;
  return { resourceMetadata: c.params.resource_metadata, scope: c.params.scope, error: c.params.error };
}
