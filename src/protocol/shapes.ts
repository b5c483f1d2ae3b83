// The results mcpx relays from an upstream, as far as every revision requires them (each revision's
// schema.ts: CallToolResult.content, GetPromptResult.messages, ReadResourceResult.contents, the list
// results' arrays, CompleteResult.completion.values), as zod schemas; the method descriptors
// (methods.ts) name them. Fields a revision lacks are the downgrade edge's business; the envelope fields
// of 2026-07-28 (resultType, ttlMs, cacheScope) are mcpx's own to add.
import { z } from 'zod';

export const obj = z.record(z.unknown());

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

export const RESULT = {
  callTool: z
    .object({ content: z.array(block), structuredContent: obj.optional(), isError: z.boolean().optional() })
    .passthrough(),
  getPrompt: z
    .object({ messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: block }).passthrough()) })
    .passthrough(),
  readResource: z.object({ contents: z.array(contents) }).passthrough(),
  listTools: z.object({ tools: z.array(named.extend({ inputSchema: obj }).passthrough()), ...page }).passthrough(),
  listPrompts: z.object({ prompts: z.array(named), ...page }).passthrough(),
  listResources: z
    .object({ resources: z.array(named.extend({ uri: z.string() }).passthrough()), ...page })
    .passthrough(),
  listResourceTemplates: z
    .object({ resourceTemplates: z.array(named.extend({ uriTemplate: z.string() }).passthrough()), ...page })
    .passthrough(),
  complete: z.object({ completion: z.object({ values: z.array(z.string()) }).passthrough() }).passthrough(),
};

const article = (t: string) => (/^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`);

/** What a schema's first issue with `value` says, for a person ("content must be an array"). */
export function described(i: z.ZodIssue, value: unknown): string {
  const path = i.path.join('.') || 'the result';
  if (i.code === 'invalid_type') {
    // A resource's contents have a text or a blob: the first alternative names only the text.
    if (i.received === 'undefined' && i.path.at(-1) === 'text' && valueAt(value, i.path.slice(0, -1), 'uri'))
      return `${i.path.slice(0, -1).join('.')} must have a text or a blob`;
    return i.received === 'undefined' ? `${path} is required` : `${path} must be ${article(i.expected)}`;
  }
  if (i.code === 'invalid_union_discriminator')
    return valueAt(value, i.path) === undefined
      ? `${path} is required`
      : `${path} must be one of ${i.options.map(String).join(', ')}`;
  // A union (a resource's contents): what its first alternative says.
  const first = i.code === 'invalid_union' ? i.unionErrors[0]?.issues[0] : undefined;
  if (first) return described(first, value);
  return `${path}: ${i.message}`;
}

/** The value at `path` in `v` (then at `key` in it, when given). */
function valueAt(v: unknown, path: ReadonlyArray<string | number>, key?: string): unknown {
  let at = v;
  for (const k of key === undefined ? path : [...path, key])
    at = typeof at === 'object' && at !== null ? (at as Record<string | number, unknown>)[k] : undefined;
  return at;
}
