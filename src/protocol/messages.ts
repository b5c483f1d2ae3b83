// zod schemas of the params mcpx reads from clients. A failure names the path: "params.name: Required".
import { z } from 'zod';
import { invalidParams } from './errors';

const obj = z.record(z.unknown());
const cursor = z.object({ cursor: z.string().optional() }).passthrough();

export const PARAMS = {
  initialize: z.object({ protocolVersion: z.string(), capabilities: obj, clientInfo: obj.optional() }).passthrough(),
  list: cursor,
  'tools/call': z.object({ name: z.string(), arguments: obj.optional() }).passthrough(),
  'prompts/get': z.object({ name: z.string(), arguments: z.record(z.string()).optional() }).passthrough(),
  'resources/read': z.object({ uri: z.string() }).passthrough(),
  'completion/complete': z
    .object({ ref: obj, argument: z.object({ name: z.string(), value: z.string() }).passthrough() })
    .passthrough(),
  'logging/setLevel': z.object({ level: z.string() }).passthrough(),
  'notifications/cancelled': z
    .object({ requestId: z.union([z.string(), z.number()]), reason: z.string().optional() })
    .passthrough(),
} as const;

/** Parse params with a schema; a mismatch is -32602 naming the first bad path. */
export function readParams<T extends z.ZodTypeAny>(schema: T, params: unknown): z.infer<T> {
  const r = schema.safeParse(params ?? {});
  if (r.success) return r.data;
  const i = r.error.issues[0]!;
  throw invalidParams(`Invalid params: ${['params', ...i.path].join('.')}: ${i.message}`);
}

// The results mcpx relays from an upstream, as far as every revision requires them (each revision's
// schema.ts: CallToolResult.content, GetPromptResult.messages, ReadResourceResult.contents, the list
// results' arrays, CompleteResult.completion.values). Fields a revision lacks are the downgrade edge's
// business; the envelope fields of 2026-07-28 (resultType, ttlMs, cacheScope) are mcpx's own to add.
// A content block as every revision requires it, by its type: its own required fields, and annotations
// within their ranges. A type no revision defines is refused: no client could read it (the downgrade
// edge rewrites only the types it knows).
const annotations = z
  .object({
    audience: z.array(z.enum(['user', 'assistant'])).optional(),
    priority: z.number().min(0).max(1).optional(),
  })
  .passthrough()
  .optional();
const contents = z.union([
  z.object({ uri: z.string(), text: z.string() }).passthrough(),
  z.object({ uri: z.string(), blob: z.string() }).passthrough(),
]);
const media = { data: z.string(), mimeType: z.string(), annotations };
const block = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string(), annotations }).passthrough(),
  z.object({ type: z.literal('image'), ...media }).passthrough(),
  z.object({ type: z.literal('audio'), ...media }).passthrough(),
  z.object({ type: z.literal('resource_link'), uri: z.string(), name: z.string(), annotations }).passthrough(),
  z.object({ type: z.literal('resource'), resource: contents, annotations }).passthrough(),
]);
const named = z.object({ name: z.string() }).passthrough();
const page = { nextCursor: z.string().optional() };
const RESULTS: Readonly<Record<string, z.ZodTypeAny>> = {
  'tools/call': z
    .object({ content: z.array(block), structuredContent: obj.optional(), isError: z.boolean().optional() })
    .passthrough(),
  'prompts/get': z
    .object({ messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: block }).passthrough()) })
    .passthrough(),
  'resources/read': z.object({ contents: z.array(contents) }).passthrough(),
  'tools/list': z.object({ tools: z.array(named.extend({ inputSchema: obj }).passthrough()), ...page }).passthrough(),
  'prompts/list': z.object({ prompts: z.array(named), ...page }).passthrough(),
  'resources/list': z
    .object({ resources: z.array(named.extend({ uri: z.string() }).passthrough()), ...page })
    .passthrough(),
  'resources/templates/list': z
    .object({ resourceTemplates: z.array(named.extend({ uriTemplate: z.string() }).passthrough()), ...page })
    .passthrough(),
  'completion/complete': z
    .object({ completion: z.object({ values: z.array(z.string()) }).passthrough() })
    .passthrough(),
};

const article = (t: string) => (/^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`);

/** What is wrong with an upstream's result to `method` ("content must be an array"), or undefined when it
 *  has the shape every revision requires (or the method has no shape checked). One safeParse. */
export function resultProblem(method: string, result: unknown): string | undefined {
  const schema = RESULTS[method];
  if (!schema) return undefined;
  const r = schema.safeParse(result);
  if (r.success) return undefined;
  return described(r.error.issues[0]!, result);
}

function described(i: z.ZodIssue, result: unknown): string {
  const path = i.path.join('.') || 'the result';
  if (i.code === 'invalid_type') {
    // A resource's contents have a text or a blob: the first alternative names only the text.
    if (i.received === 'undefined' && i.path.at(-1) === 'text' && valueAt(result, i.path.slice(0, -1), 'uri'))
      return `${i.path.slice(0, -1).join('.')} must have a text or a blob`;
    return i.received === 'undefined' ? `${path} is required` : `${path} must be ${article(i.expected)}`;
  }
  if (i.code === 'invalid_union_discriminator')
    return valueAt(result, i.path) === undefined
      ? `${path} is required`
      : `${path} must be one of ${i.options.map(String).join(', ')}`;
  // A union (a resource's contents): what its first alternative says.
  const first = i.code === 'invalid_union' ? i.unionErrors[0]?.issues[0] : undefined;
  if (first) return described(first, result);
  return `${path}: ${i.message}`;
}

/** The value at `path` in `v` (then at `key` in it, when given). */
function valueAt(v: unknown, path: ReadonlyArray<string | number>, key?: string): unknown {
  let at = v;
  for (const k of key === undefined ? path : [...path, key])
    at = typeof at === 'object' && at !== null ? (at as Record<string | number, unknown>)[k] : undefined;
  return at;
}
