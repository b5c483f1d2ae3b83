// What mcpx reads of the MCP Registry API v0.1 (the registry repository's docs/reference/api/openapi.yaml,
// 2025-12-01) and of the publisher's server.json inside it (docs/reference/server-json/server.schema.json):
// a list of entries, each the server.json and the registry's own `_meta`. Checked with zod where it is
// read; unknown fields are kept (a newer registry adds some), a wrong type names its path.
import { z } from 'zod';

/** One input of a server: an argument's value, an environment variable, a header, a URL variable. */
const input = z
  .object({
    description: z.string().optional(),
    isRequired: z.boolean().optional(),
    format: z.string().optional(),
    value: z.string().optional(),
    isSecret: z.boolean().optional(),
    default: z.string().optional(),
    placeholder: z.string().optional(),
    choices: z.array(z.string()).optional(),
  })
  .passthrough();
export type Input = z.infer<typeof input>;

const withVariables = input.extend({ variables: z.record(input).optional() });
export type InputWithVariables = z.infer<typeof withVariables>;

const keyValue = withVariables.extend({ name: z.string().min(1) });
export type KeyValueInput = z.infer<typeof keyValue>;

const argument = z.union([
  withVariables.extend({
    type: z.literal('positional'),
    valueHint: z.string().optional(),
    isRepeated: z.boolean().optional(),
  }),
  withVariables.extend({ type: z.literal('named'), name: z.string().min(1), isRepeated: z.boolean().optional() }),
]);
export type Argument = z.infer<typeof argument>;

const transport = z
  .object({
    type: z.string(),
    url: z.string().optional(),
    headers: z.array(keyValue).optional(),
    variables: z.record(input).optional(),
  })
  .passthrough();
export type Transport = z.infer<typeof transport>;

const pkg = z
  .object({
    registryType: z.string(),
    registryBaseUrl: z.string().optional(),
    identifier: z.string().min(1),
    version: z.string().optional(),
    fileSha256: z.string().optional(),
    runtimeHint: z.string().optional(),
    transport: transport,
    runtimeArguments: z.array(argument).optional(),
    packageArguments: z.array(argument).optional(),
    environmentVariables: z.array(keyValue).optional(),
  })
  .passthrough();
export type Package = z.infer<typeof pkg>;

const serverJson = z
  .object({
    name: z.string().min(3),
    description: z.string().optional(),
    title: z.string().optional(),
    version: z.string().min(1),
    websiteUrl: z.string().optional(),
    repository: z.object({ url: z.string(), source: z.string().optional() }).passthrough().optional(),
    packages: z.array(pkg).optional(),
    remotes: z.array(transport).optional(),
    _meta: z.record(z.unknown()).optional(),
  })
  .passthrough();
export type ServerJson = z.infer<typeof serverJson>;

const OFFICIAL = 'io.modelcontextprotocol.registry/official';
export const PUBLISHER = 'io.modelcontextprotocol.registry/publisher-provided';

const official = z
  .object({
    status: z.enum(['active', 'deprecated', 'deleted']).optional(),
    statusMessage: z.string().optional(),
    publishedAt: z.string().optional(),
    updatedAt: z.string().optional(),
    isLatest: z.boolean().optional(),
  })
  .passthrough();
type Official = z.infer<typeof official>;

const response = z.object({
  server: serverJson,
  _meta: z
    .object({ [OFFICIAL]: official.optional() })
    .passthrough()
    .optional(),
});

const list = z.object({
  servers: z.array(z.unknown()),
  metadata: z.object({ nextCursor: z.string().nullish(), count: z.number().optional() }).passthrough().optional(),
});

/** One version of one server as the registry serves it. */
export interface RegistryEntry {
  server: ServerJson;
  /** The registry's own word on it; a registry that says nothing: active. */
  official: Official & { status: 'active' | 'deprecated' | 'deleted' };
}

/** The problem with a value, naming its path. */
function problem(e: z.ZodError, what: string): Error {
  const i = e.issues[0]!;
  return new Error(`${what}: ${i.path.join('.') || '(top)'}: ${i.message.toLowerCase()}`);
}

export function parseEntry(v: unknown, what: string): RegistryEntry {
  const r = response.safeParse(v);
  if (!r.success) throw problem(r.error, what);
  const o = r.data._meta?.[OFFICIAL] ?? {};
  return { server: r.data.server, official: { ...o, status: o.status ?? 'active' } };
}

/** A page of a list: the entries that parse (one that does not is skipped and named), and the cursor. */
export function parseList(
  v: unknown,
  what: string,
): { entries: RegistryEntry[]; skipped: string[]; nextCursor?: string } {
  const r = list.safeParse(v);
  if (!r.success) throw problem(r.error, what);
  const entries: RegistryEntry[] = [];
  const skipped: string[] = [];
  r.data.servers.forEach((s, i) => {
    try {
      entries.push(parseEntry(s, `${what}: servers.${i}`));
    } catch (e) {
      skipped.push((e as Error).message);
    }
  });
  const next = r.data.metadata?.nextCursor;
  return { entries, skipped, ...(next ? { nextCursor: next } : {}) };
}
