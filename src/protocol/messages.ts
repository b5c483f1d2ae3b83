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
