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
const typed = z.object({ type: z.string() }).passthrough();
const named = z.object({ name: z.string() }).passthrough();
const page = { nextCursor: z.string().optional() };
const RESULTS: Readonly<Record<string, z.ZodTypeAny>> = {
  'tools/call': z
    .object({ content: z.array(typed), structuredContent: obj.optional(), isError: z.boolean().optional() })
    .passthrough(),
  'prompts/get': z
    .object({ messages: z.array(z.object({ role: z.string(), content: typed }).passthrough()) })
    .passthrough(),
  'resources/read': z.object({ contents: z.array(z.object({ uri: z.string() }).passthrough()) }).passthrough(),
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
  const i = r.error.issues[0]!;
  const path = i.path.join('.') || 'the result';
  if (i.code === 'invalid_type')
    return i.received === 'undefined' ? `${path} is required` : `${path} must be ${article(i.expected)}`;
  return `${path}: ${i.message}`;
}
