// Origin and Host checks on every request (DNS-rebinding protection, every Streamable HTTP page:
// "Servers MUST validate the Origin header"). Allowed: loopback names, the server's own address, and
// transport.allowedOrigins.
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

function hostAllowed(name: string, p: OriginPolicy): boolean {
  if (LOOPBACK.has(name) || name.endsWith('.localhost')) return true;
  if (name === bracket(p.address)) return true;
  return p.allowedOrigins.some((o) => URL.canParse(o) && hostname(new URL(o).host) === name);
}

/** Why a request is refused (403), or undefined when it may proceed. */
export function checkOrigin(headers: { origin?: string; host?: string }, p: OriginPolicy): string | undefined {
  // Bound to a wildcard address, the Host is whatever name reaches the machine; only Origin is checked.
  const wildcard = WILDCARD.has(p.address);
  if (headers.host !== undefined && !wildcard && !hostAllowed(hostname(headers.host), p)) {
    return `Host ${JSON.stringify(headers.host)} is not allowed`;
  }
  const origin = headers.origin;
  if (origin === undefined || origin === '' || p.allowedOrigins.includes(origin)) return undefined;
  if (URL.canParse(origin)) {
    const u = new URL(origin);
    const name = hostname(u.host);
    const web = u.protocol === 'http:' || u.protocol === 'https:';
    if (web && (LOOPBACK.has(name) || name.endsWith('.localhost') || (!wildcard && name === bracket(p.address))))
      return undefined;
  }
  return `Origin ${JSON.stringify(origin)} is not allowed; add it to transport.allowedOrigins to allow it`;
}
