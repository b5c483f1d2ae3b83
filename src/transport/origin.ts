// Origin checks on every request (DNS-rebinding protection, every Streamable HTTP page: "Servers MUST
// validate the Origin header"), and which host names are the gateway's own (the Host check is head.ts).
// Allowed: loopback names, the server's own address, and transport.allowedOrigins.
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

function hostname(hostPort: string): string {
  const h = hostPort.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const i = h.lastIndexOf(':');
  return i >= 0 ? h.slice(0, i) : h;
}

export interface OriginPolicy {
  /** The address the server is bound to. */
  address: string;
  allowedOrigins: readonly string[];
}

const bracket = (a: string) => (a.includes(':') && !a.startsWith('[') ? `[${a}]` : a).toLowerCase();

/** Bound to a wildcard address, a request's host name is whatever name reaches the machine. */
export const isWildcard = (address: string): boolean => WILDCARD.has(address);

/** Whether `name` (lower case, an IPv6 literal in brackets) names this gateway: a loopback name, the
 *  bound address, or the host of an allowed origin. */
export function nameAllowed(name: string, p: OriginPolicy): boolean {
  if (LOOPBACK.has(name) || name.endsWith('.localhost')) return true;
  if (name === bracket(p.address)) return true;
  return p.allowedOrigins.some((o) => URL.canParse(o) && hostname(new URL(o).host) === name);
}

/** Why a request's Origin is refused (403), or undefined when it may proceed. */
export function checkOrigin(origin: string | undefined, p: OriginPolicy): string | undefined {
  if (origin === undefined || origin === '' || p.allowedOrigins.includes(origin)) return undefined;
  const parsed = URL.canParse(origin) ? new URL(origin) : undefined;
  if (parsed) {
    const name = hostname(parsed.host);
    const web = parsed.protocol === 'http:' || parsed.protocol === 'https:';
    if (
      web &&
      (LOOPBACK.has(name) || name.endsWith('.localhost') || (!isWildcard(p.address) && name === bracket(p.address)))
    )
      return undefined;
  }
  // Only an Origin as browsers send it (scheme://host[:port], nothing after) is quoted back: anything
  // else a client put there (a path, a secret) is not echoed.
  const quoted = parsed && parsed.origin === origin ? ` ${JSON.stringify(origin)}` : '';
  return `Origin${quoted} is not allowed; add it to transport.allowedOrigins to allow it`;
}
