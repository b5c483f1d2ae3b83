// TypeScript declarations of the functions a script is given (docs/exec.md "Typed functions"), made
// from the tools' input and output schemas, so a model can write a script that is right the first time.
// A server's and a tool's name become identifiers by `identifier`; a script calls
// mcpx.servers.<identifier(server)>.<identifier(tool)>(args).
import { type JsonObject, isObject } from '../../protocol/jsonrpc';

/** A name made safe as a JavaScript identifier: every character outside [A-Za-z0-9_$] becomes `_`, and a
 *  leading digit (or an empty name) gets a `_` in front. `notes-v2` → `notes_v2`, `3d.render` → `_3d_render`. */
export function identifier(name: string): string {
  const s = name.replace(/[^A-Za-z0-9_$]/g, '_');
  return /^[0-9]/.test(s) || s === '' ? `_${s}` : s;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (k: string): string => (IDENT.test(k) ? k : JSON.stringify(k));
/** Schemas nested deeper than this are `unknown`. */
const MAX_DEPTH = 8;

const SCALARS: Record<string, string> = {
  string: 'string',
  number: 'number',
  integer: 'number',
  boolean: 'boolean',
  null: 'null',
};

/** The TypeScript type of a JSON Schema (the parts of it a type can say; the rest is checked by the
 *  gateway against the schema itself). */
function typeOf(schema: unknown, depth = 0): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (!isObject(schema) || depth > MAX_DEPTH) return 'unknown';
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ') || 'never';
  for (const k of ['anyOf', 'oneOf'] as const) {
    const list = schema[k];
    if (Array.isArray(list) && list.length) return list.map((s) => paren(typeOf(s, depth + 1))).join(' | ');
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length)
    return schema.allOf.map((s) => paren(typeOf(s, depth + 1))).join(' & ');
  const t = schema.type;
  if (Array.isArray(t)) return t.map((one) => paren(typeOf({ ...schema, type: one }, depth))).join(' | ');
  if (typeof t === 'string' && t in SCALARS) return SCALARS[t]!;
  if (t === 'array') return `Array<${typeOf(schema.items, depth)}>`;
  if (t === 'object' || isObject(schema.properties)) return objectType(schema, depth);
  return 'unknown';
}

const paren = (t: string): string => (/[|&]/.test(t) ? `(${t})` : t);

function objectType(schema: JsonObject, depth: number): string {
  const props = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const pad = '  '.repeat(depth + 1);
  const lines = Object.entries(props).map(([k, s]) => {
    const doc = isObject(s) && typeof s.description === 'string' ? `${pad}/** ${comment(s.description)} */\n` : '';
    return `${doc}${pad}${key(k)}${required.has(k) ? '' : '?'}: ${typeOf(s, depth + 1)};`;
  });
  const extra = schema.additionalProperties;
  if (extra !== false && (Object.keys(props).length === 0 || isObject(extra) || extra === true))
    lines.push(`${pad}[key: string]: unknown;`);
  return lines.length ? `{\n${lines.join('\n')}\n${'  '.repeat(depth)}}` : '{}';
}

const comment = (s: string): string => s.replace(/\*\//g, '*\\/').replace(/\s*\n\s*/g, ' ');

/** What every script has: `mcpx.call`, `mcpx.read`, `mcpx.prompt` and the result types. */
export const PREAMBLE = `interface CallToolResult<S = unknown> {
  content: Array<{ type: string; text?: string; [key: string]: unknown }>;
  structuredContent?: S;
  isError?: boolean;
  [key: string]: unknown;
}
declare namespace mcpx {
  /** Call a tool of a configured server, with the checks of mcpx_call. Rejects on a protocol error. */
  function call(server: string, tool: string, args?: Record<string, unknown>, options?: { timeoutSec?: number }): Promise<CallToolResult>;
  /** Read a resource (an mcpx:// URI, as resources/list gives it). */
  function read(uri: string): Promise<{ contents: Array<{ uri: string; text?: string; blob?: string; mimeType?: string }> }>;
  /** Get a prompt (<server>_<prompt>, as prompts/list gives it). */
  function prompt(name: string, args?: Record<string, string>): Promise<{ messages: unknown[]; description?: string }>;
}
declare const console: { log(...a: unknown[]): void; info(...a: unknown[]): void; warn(...a: unknown[]): void; error(...a: unknown[]): void; debug(...a: unknown[]): void };`;

/** The declarations of one server's tools, as `mcpx.servers.<server>.<tool>`. */
export function declarationsFor(server: string, tools: readonly JsonObject[]): string {
  const fns = tools.map((t) => {
    const name = String(t.name);
    const doc = [t.title, t.description].filter((x) => typeof x === 'string' && x).map(String);
    const out = 'outputSchema' in t ? `CallToolResult<${typeOf(t.outputSchema, 1)}>` : 'CallToolResult';
    return [
      `  /** ${comment([`${server}/${name}`, ...doc].join(' — '))} */`,
      `  function ${identifier(name)}(args: ${typeOf(t.inputSchema, 1)}): Promise<${out}>;`,
    ].join('\n');
  });
  return `declare namespace mcpx.servers.${identifier(server)} {\n${fns.join('\n')}\n}`;
}
