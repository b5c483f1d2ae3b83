// The request head, read strictly before anything routes on it (docs/security.md "The request head"):
// exactly one Host, parsing as host[:port] (RFC 9110 §7.2), naming this gateway and the port it listens
// on; a request target that is a path (origin-form), or an absolute URI naming this gateway (RFC 9112
// §3.2.2; its authority is checked as the Host is), its path in normal form. Refusals never quote the
// target: a path may hold the endpoint secret.
import type { IncomingMessage } from 'node:http';
import { isIPv6 } from 'node:net';
import { type OriginPolicy, isWildcard, nameAllowed } from './origin';

export interface HeadPolicy extends OriginPolicy {
  /** The port the gateway listens on. */
  port: number;
}

/** Why a head is refused: 400 when it does not parse, 403 when it names someone else. */
export interface HeadRefusal {
  status: 400 | 403;
  why: string;
}

/** uri-host [":" port], the host a name, an IPv4 address or a bracketed IPv6 literal: no userinfo, no
 *  path, nothing else. */
const AUTHORITY = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::([0-9]{1,5}))?$/i;
/** absolute-form: http://authority, then the path and query (RFC 9112 §3.2.2). */
const ABSOLUTE = /^http:\/\/([^/?#]*)(.*)$/i;

/** Headers a request carries at most once (by lower-case name, as spelled in a refusal). */
const SINGLE = new Map([
  ['host', 'Host'],
  ['authorization', 'Authorization'],
  ['content-type', 'Content-Type'],
]);

interface Authority {
  name: string;
  port: number;
}

function parseAuthority(a: string): Authority | undefined {
  const m = AUTHORITY.exec(a);
  if (!m) return undefined;
  const name = m[1]!.toLowerCase();
  if (name.startsWith('[') && !isIPv6(name.slice(1, -1))) return undefined;
  // Without a port, http's own (RFC 9110 §4.2.1).
  const port = m[2] === undefined ? 80 : Number(m[2]);
  return port <= 65535 ? { name, port } : undefined;
}

/** An allowed origin's authority with its scheme's default port made explicit: a proxy or a forwarded
 *  port in front of the gateway is allowed by naming its origin in transport.allowedOrigins. */
function originAuthority(o: string): string | undefined {
  if (!URL.canParse(o)) return undefined;
  const u = new URL(o);
  const port = u.port || (u.protocol === 'https:' ? '443' : u.protocol === 'http:' ? '80' : '');
  return port ? `${u.hostname.toLowerCase()}:${port}` : undefined;
}

function authorityRefused(raw: string, what: string, p: HeadPolicy): HeadRefusal | undefined {
  const sent = raw.trim();
  const a = parseAuthority(sent);
  if (!a) return { status: 400, why: `${what} does not parse as host[:port]` };
  // Bound to a wildcard address the name is whatever name reaches the machine: only the port is checked.
  if ((isWildcard(p.address) || nameAllowed(a.name, p)) && a.port === p.port) return undefined;
  const key = `${a.name}:${a.port}`;
  if (p.allowedOrigins.some((o) => originAuthority(o) === key)) return undefined;
  // Quoted only once it parsed: a host and a port, nothing a client could hide a path in.
  return {
    status: 403,
    why: `${what} ${JSON.stringify(sent)} is not this gateway: name ${isWildcard(p.address) ? 'any host' : 'localhost, 127.0.0.1, [::1] or the bound address'} with port ${p.port}, or an origin in transport.allowedOrigins`,
  };
}

/** The origin-form target of a request whose head is acceptable, or why it is not. */
export function readHead(
  req: Pick<IncomingMessage, 'url' | 'rawHeaders'>,
  p: HeadPolicy,
): { target: string } | HeadRefusal {
  const hosts: string[] = [];
  const seen = new Set<string>();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (name === 'host') hosts.push(raw[i + 1]!);
    // node:http keeps the first of these when sent twice and drops the rest; which one a proxy on the
    // way read is anyone's guess (RFC 9112 §3.2: a server MUST respond 400 to more than one Host).
    if (SINGLE.has(name) && seen.has(name)) return { status: 400, why: `more than one ${SINGLE.get(name)} header` };
    seen.add(name);
  }
  if (hosts.length === 0) return { status: 400, why: 'the Host header is required' };
  const refused = authorityRefused(hosts[0]!, 'Host', p);
  if (refused) return refused;
  let target = req.url ?? '';
  if (!target.startsWith('/')) {
    const m = ABSOLUTE.exec(target);
    if (!m) return { status: 400, why: 'the request target must be a path' };
    const other = authorityRefused(m[1]!, "the request target's authority", p);
    if (other) return other;
    target = m[2]!.startsWith('/') ? m[2]! : `/${m[2]}`;
  }
  return { target };
}

export const NOT_NORMAL: HeadRefusal = {
  status: 400,
  why: 'the request target is not a path in normal form (no dot segments, backslashes or fragment)',
};

/** `target` (origin-form) as a URL, or undefined when its path is not in normal form: dot segments, a
 *  backslash, a fragment or a character that must be percent-encoded would make the path routed differ
 *  from the path sent. */
export function urlOf(target: string): URL | undefined {
  // A leading "//" would read as an authority against a base URL; appended to an origin it is a path.
  const full = `http://localhost${target}`;
  if (!URL.canParse(full)) return undefined;
  const url = new URL(full);
  const q = target.indexOf('?');
  return url.pathname === (q < 0 ? target : target.slice(0, q)) ? url : undefined;
}
