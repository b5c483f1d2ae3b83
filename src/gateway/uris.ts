import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { wildcard } from '../kit/globs';

// Resource URIs through the gateway: mcpx://<server>/<upstream uri>, percent-encoded where a path may
// not carry a character, so a client can read them back. An upstream URI that is an absolute path
// (/abs/doc) is listed without its leading slash (mcpx://demo/abs/doc) and matched in both forms
// (docs/gateway.md "The surface").
const PREFIX = 'mcpx://';

/** Characters that may stand in a URI path as they are (RFC 3986 pchar and "/"), plus `%` only as part
 *  of an escape the upstream already made. */
const KEEP = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/;

function encodePath(s: string): string {
  let out = '';
  for (const ch of s) out += KEEP.test(ch) ? ch : encodeURIComponent(ch);
  return out;
}

export function toGatewayUri(server: string, uri: string): string {
  return `${PREFIX}${encodeURIComponent(server)}/${encodePath(uri.startsWith('/') ? uri.slice(1) : uri)}`;
}

/** A template keeps its {variables} unencoded. */
export function toGatewayTemplate(server: string, template: string): string {
  const t = template.startsWith('/') ? template.slice(1) : template;
  return (
    `${PREFIX}${encodeURIComponent(server)}/` +
    t
      // [^{}] rather than [^}]: linear on a template of many "{" (the other backtracked quadratically).
      // The captured {variables} are the odd parts.
      .split(/(\{[^{}]*\})/)
      .map((part, i) => (i % 2 === 1 ? part : encodePath(part)))
      .join('')
  );
}

export interface ParsedGatewayUri {
  server: string;
  /** The upstream URI as written after the namespace (percent-decoded). */
  inner: string;
}

/** Parse mcpx://<server>/<inner>; undefined for any other URI. `server` is empty when none is named. */
export function parseGatewayUri(uri: string): ParsedGatewayUri | undefined {
  // A scheme is case-insensitive (RFC 3986 3.1): MCPX:// is mcpx://.
  if (uri.slice(0, PREFIX.length).toLowerCase() !== PREFIX) return undefined;
  const rest = uri.slice(PREFIX.length);
  const slash = rest.indexOf('/');
  const server = decodeURIComponent(slash < 0 ? rest : rest.slice(0, slash));
  let inner = slash < 0 ? '' : rest.slice(slash + 1);
  try {
    inner = decodeURIComponent(inner);
  } catch {
    // a stray % is kept as written
  }
  return { server, inner };
}

/** Characters RFC 3986 calls unreserved: a percent-escape of one means the character itself. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
/** scheme ":" ["//" authority] path ["?" query] ["#" fragment] (RFC 3986 Appendix B, a scheme required). */
const PARTS = /^([A-Za-z][A-Za-z0-9+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(\?[^#]*)?(#[\s\S]*)?$/;

/** Each %xx of an unreserved character decoded, every other's hex upper-cased (RFC 3986 6.2.2.1, 6.2.2.2). */
function escapes(s: string): string {
  return s.replace(/%([0-9A-Fa-f]{2})/g, (_m, h: string) => {
    const ch = String.fromCharCode(Number.parseInt(h, 16));
    return UNRESERVED.test(ch) ? ch : `%${h.toUpperCase()}`;
  });
}

/** A path's `.` and `..` segments removed (RFC 3986 5.2.4); `..` never climbs above the root. */
function withoutDots(path: string): string {
  const segments = path.split('/');
  const out: string[] = [];
  segments.forEach((s, i) => {
    const last = i === segments.length - 1;
    if (s === '.' || s === '..') {
      if (s === '..' && out.length > 1) out.pop();
      if (last) out.push('');
    } else out.push(s);
  });
  return out.join('/');
}

/** One spelling of a resource URI, the one rules, pins and profiles are matched against and the one sent
 *  upstream (docs/gateway.md "Resource URIs"): the scheme and host lower-cased, percent-escapes of
 *  unreserved characters decoded and the others' hex upper-cased, dot segments removed (RFC 3986 6.2.2
 *  syntax-based normalisation), and for `file` the two other spellings of a local path — `file://localhost/x`
 *  and `file:/x` — written `file:///x` (RFC 8089 2, Appendix B). So `FILE:///home/u/%2Essh/../.ssh/key`
 *  and `file://localhost/home/u/.ssh/key` are both `file:///home/u/.ssh/key`, the one spelling a rule's
 *  glob is written against. Text that is not an absolute URI is left as it is. */
export function normaliseUri(uri: string): string {
  const m = PARTS.exec(uri);
  if (!m) return uri;
  const scheme = m[1]!.toLowerCase();
  let authority = m[2];
  if (authority !== undefined) {
    const at = authority.lastIndexOf('@');
    authority = escapes(authority.slice(0, at + 1)) + escapes(authority.slice(at + 1).toLowerCase());
  }
  let path = escapes(m[3]!);
  if (scheme === 'file' && (authority === 'localhost' || (authority === undefined && path.startsWith('/'))))
    authority = '';
  if (authority !== undefined || path.startsWith('/')) path = withoutDots(path);
  return `${scheme}:${authority === undefined ? '' : `//${authority}`}${path}${escapes(m[4] ?? '')}${escapes(m[5] ?? '')}`;
}

/** The upstream URI for `inner`: as written, or with its leading slash restored when the server lists
 *  the absolute-path form. */
export function resolveInner(inner: string, known: ReadonlySet<string>): string {
  if (known.has(inner)) return inner;
  if (known.has('/' + inner)) return '/' + inner;
  return inner;
}

/** A URI template (RFC 6570 level 1) matched loosely: each {var} matches one or more characters, in
 *  linear time (kit/globs.ts `wildcard`: the template is the upstream's to write). */
export function templateMatches(template: string, uri: string): boolean {
  return wildcard(template.split(/\{[^{}]*\}/), uri, 1);
}

/** Resource URIs inside a result, rewritten so a client can read them back through mcpx. A copy, whose
 *  members with nothing to rewrite are the result's own (their bytes may be passed on: wire/raw.ts). */
export function rewriteUris(server: string, result: JsonObject): JsonObject {
  const block = (b: unknown): unknown => {
    if (!isObject(b)) return b;
    if (b.type === 'resource_link' && typeof b.uri === 'string') return { ...b, uri: toGatewayUri(server, b.uri) };
    if (b.type === 'resource' && isObject(b.resource) && typeof b.resource.uri === 'string') {
      return { ...b, resource: { ...b.resource, uri: toGatewayUri(server, b.resource.uri) } };
    }
    return b;
  };
  const message = (m: unknown): unknown => {
    if (!isObject(m)) return m;
    const c = block(m.content);
    return c === m.content ? m : { ...m, content: c };
  };
  const out: JsonObject = { ...result };
  if (Array.isArray(result.content)) out.content = mapSame(result.content, block);
  if (Array.isArray(result.messages)) out.messages = mapSame(result.messages, message);
  return out;
}

/** `xs` mapped: `xs` itself when every item maps to itself. */
function mapSame(xs: unknown[], f: (x: unknown) => unknown): unknown[] {
  const ys = xs.map(f);
  return ys.every((y, i) => y === xs[i]) ? xs : ys;
}
