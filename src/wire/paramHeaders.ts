// 2026-07-28 Streamable HTTP "Schema Extension": a tool argument annotated `x-mcp-header: Name` is
// mirrored into an `Mcp-Param-Name` header on tools/call; a tool whose annotations break the rules is
// excluded from the tools/list a client shows (2026-07-28 server/tools "x-mcp-header").
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { encodeHeaderValue } from './headers';

export interface HeaderParam {
  name: string;
  path: string[];
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE = new Set(['string', 'integer', 'boolean']);

/** The annotated parameters of a tool's input schema, or why the tool must be rejected. */
export function headerParams(schema: unknown): { params: HeaderParam[] } | { reason: string } {
  const params: HeaderParam[] = [];
  const reachable = new Set<object>();
  // Statically reachable: a chain of `properties` keys only.
  const walk = (node: unknown, path: string[]): string | undefined => {
    if (!isObject(node)) return undefined;
    reachable.add(node);
    const h = node['x-mcp-header'];
    if (h !== undefined && path.length > 0) {
      if (typeof h !== 'string' || h === '') return `x-mcp-header of ${path.join('.')} is empty`;
      if (!TOKEN.test(h)) return `x-mcp-header ${JSON.stringify(h)} is not an HTTP field-name token`;
      if (!PRIMITIVE.has(String(node.type)))
        return `x-mcp-header ${h} is on a parameter of type ${JSON.stringify(node.type)}, not string, integer or boolean`;
      if (params.some((p) => p.name.toLowerCase() === h.toLowerCase())) return `x-mcp-header ${h} is used twice`;
      params.push({ name: h, path });
    }
    if (isObject(node.properties)) {
      for (const [k, v] of Object.entries(node.properties)) {
        const bad = walk(v, [...path, k]);
        if (bad) return bad;
      }
    }
    return undefined;
  };
  const bad = walk(schema, []);
  if (bad) return { reason: bad };
  // An annotation anywhere else (items, oneOf, $ref targets, ...) makes the tool invalid.
  const stray = (node: unknown): boolean => {
    if (Array.isArray(node)) return node.some(stray);
    if (!isObject(node)) return false;
    if (!reachable.has(node) && 'x-mcp-header' in node) return true;
    return Object.values(node).some(stray);
  };
  if (stray(schema)) return { reason: 'x-mcp-header stands where it is not statically reachable through properties' };
  return { params };
}

/** The argument an annotation names (undefined where the path leads nowhere). */
export function argumentAt(args: JsonObject, path: readonly string[]): unknown {
  let v: unknown = args;
  for (const k of path) v = isObject(v) ? v[k] : undefined;
  return v;
}

/** Mcp-Param-* headers for a call's arguments; a parameter without a value gets no header. */
export function paramHeaders(params: HeaderParam[], args: JsonObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of params) {
    const v = argumentAt(args, p.path);
    if (v === undefined || v === null) continue;
    out[`Mcp-Param-${p.name}`] = encodeHeaderValue(typeof v === 'string' ? v : String(v));
  }
  return out;
}
