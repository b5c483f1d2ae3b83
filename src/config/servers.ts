// Upstream server definitions in the format VS Code users already have in .vscode/mcp.json (also the
// Claude-style `mcpServers`), plus mcpx's own per-server fields. Each server is validated on its own,
// so one bad entry names its exact path and the rest still load.
import { z } from 'zod';
import { sandboxSchema } from './sandbox';

/** Where an identity token comes from, read afresh for every grant (docs/gateway.md "Signing in to
 *  upstreams"): a file (a Kubernetes projected token, rotated in place), an environment variable, or a
 *  command's standard output (`gcloud auth print-identity-token`), started without a shell. */
const tokenSource = z.union([
  z.object({ file: z.string().min(1) }).strict(),
  z.object({ env: z.string().min(1) }).strict(),
  z.object({ command: z.string().min(1), args: z.array(z.string()).optional() }).strict(),
]);

/** The enterprise identity provider of the identity assertion grant (ID-JAG). */
const enterprise = z
  .object({
    /** The IdP's issuer: its metadata names the token endpoint (and the authorization endpoint for sign-in). */
    issuer: z.string().url(),
    /** The IdP's token endpoint, where its metadata is not published. */
    tokenEndpoint: z.string().url().optional(),
    /** mcpx's client at the IdP. */
    clientId: z.string().min(1),
    clientSecret: z.string().min(1).optional(),
    /** The person's ID token; absent: mcpx signs the person in at the IdP (OpenID Connect). */
    idToken: tokenSource.optional(),
  })
  .strict();

const auth = z.discriminatedUnion('type', [
  z.object({ type: z.literal('bearer'), token: z.string() }).strict(),
  z.object({ type: z.literal('basic'), username: z.string(), password: z.string() }).strict(),
  z.object({ type: z.literal('header'), name: z.string(), value: z.string() }).strict(),
  z.object({ type: z.literal('query'), name: z.string(), value: z.string() }).strict(),
  z.object({ type: z.literal('env'), name: z.string(), value: z.string() }).strict(),
  z
    .object({
      type: z.literal('oauth'),
      /** A client registered beforehand at the authorization server (else a client ID metadata document
       *  or dynamic registration: docs/gateway.md "Signing in to upstreams"). */
      clientId: z.string().min(1).optional(),
      clientSecret: z.string().min(1).optional(),
      tokenEndpointAuthMethod: z
        .enum(['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'])
        .optional(),
      scopes: z.array(z.string().min(1)).optional(),
      /** The loopback redirect's port; 0 or absent: any free port. */
      redirectPort: z.number().int().min(0).max(65535).optional(),
      /** An https URL serving mcpx's client ID metadata document, used where the server supports them. */
      clientMetadataUrl: z.string().url().optional(),
      grant: z.enum(['authorization_code', 'client_credentials', 'jwt_bearer', 'enterprise']).optional(),
      privateKeyPem: z.string().optional(),
      signingAlgorithm: z.string().optional(),
      /** DPoP-bound tokens (RFC 9449): true asks for them, false never; absent: where both the authorization
       *  server and the MCP server offer them. */
      dpop: z.boolean().optional(),
      /** grant jwt_bearer: the workload's JWT (RFC 7523 §2.1). */
      assertion: tokenSource.optional(),
      /** grant enterprise: the identity provider that issues the ID-JAG. */
      enterprise: enterprise.optional(),
    })
    .strict(),
]);

const toolFilter = z.object({ allow: z.array(z.string()).optional(), deny: z.array(z.string()).optional() }).strict();

/** Where a server installed from an MCP Registry came from (docs/registry.md "The entry"): written by
 *  `mcpx install` and Add Server…, read by `mcpx registry outdated`, `mcpx update` and the Upstreams view. */
const registry = z
  .object({
    name: z.string(),
    version: z.string(),
    url: z.string(),
    /** The exact package installed: `npm:pkg@1.2.3`, `pypi:pkg==1.2.3`, `oci:image@sha256:…`, `mcpb:URL#sha256=…`. */
    package: z.string().optional(),
    /** The values given at install that are not secrets, by input key (an update gives them again). */
    inputs: z.record(z.array(z.string())).optional(),
    /** The inputs whose values are in the secret store (as ${secret:LOCAL.KEY}). */
    secrets: z.array(z.string()).optional(),
  })
  .strict();

const common = {
  auth: auth.optional(),
  tools: toolFilter.optional(),
  /** shared: one instance for everyone; identity: one per client identity (stateful servers). */
  scope: z.enum(['shared', 'identity']).default('shared'),
  disabled: z.boolean().optional(),
  /** This server's pins.mode (docs/gateway.md "Pins"); absent: the setting's. */
  pins: z.enum(['hold', 'warn', 'off']).optional(),
  registry: registry.optional(),
  /** Call tools this server does not list, by names it takes anyway (docs/gateway.md "Unlisted tool
   *  names"); absent: a call names a tool exactly as listed, or it is refused. */
  forwardUnlisted: z.boolean().optional(),
  /** VS Code's mcp.json fields mcpx does not use are accepted and ignored. */
  dev: z.unknown().optional(),
  gallery: z.unknown().optional(),
  version: z.unknown().optional(),
};

const stdio = z
  .object({
    type: z.literal('stdio').optional(),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.union([z.string(), z.number(), z.null()])).default({}),
    envFile: z.string().optional(),
    /** Pass the gateway's whole environment, not only the safe list and upstream.env (docs/security.md
     *  "Upstream environment"). */
    inheritEnv: z.boolean().optional(),
    cwd: z.string().optional(),
    /** What the process may read, write and reach (docs/security.md "The upstream sandbox"); absent: the
     *  upstream.sandbox setting's. */
    sandbox: sandboxSchema.optional(),
    ...common,
  })
  .strict();

const http = z
  .object({
    type: z.enum(['http', 'sse', 'streamable-http']).optional(),
    url: z.string().url(),
    headers: z.record(z.string()).default({}),
    ...common,
  })
  .strict();

type StdioServer = z.infer<typeof stdio> & { type: 'stdio' };
type HttpServer = z.infer<typeof http> & { type: 'http' | 'sse' };
export type ServerDef = (StdioServer | HttpServer) & { name: string };
type Auth = z.infer<typeof auth>;

/** A problem with one place in a config file, named by its path. */
export interface ConfigIssue {
  path: string;
  message: string;
}

function issuesOf(prefix: string, e: z.ZodError): ConfigIssue[] {
  return e.issues.map((i) => ({ path: [prefix, ...i.path].join('.'), message: i.message.toLowerCase() }));
}

/** What a grant needs and only it may have: jwt_bearer its assertion, enterprise its identity provider and
 *  the client pre-registered at the MCP server's authorization server (the IdP names that client in the
 *  ID-JAG). */
function oauthGrantIssues(a: Auth | undefined, at: string): ConfigIssue[] {
  if (a?.type !== 'oauth') return [];
  const out: ConfigIssue[] = [];
  const needs = (field: keyof typeof a, grant: string) =>
    out.push({ path: `${at}.${field}`, message: `grant ${grant} needs ${field}` });
  const only = (field: keyof typeof a, grant: string) =>
    out.push({ path: `${at}.${field}`, message: `${field} applies only to grant ${grant}` });
  if (a.grant === 'jwt_bearer' && !a.assertion) needs('assertion', 'jwt_bearer');
  if (a.grant !== 'jwt_bearer' && a.assertion) only('assertion', 'jwt_bearer');
  if (a.grant === 'enterprise' && !a.enterprise) needs('enterprise', 'enterprise');
  if (a.grant === 'enterprise' && !a.clientId) needs('clientId', 'enterprise');
  if (a.grant !== 'enterprise' && a.enterprise) only('enterprise', 'enterprise');
  return out;
}

/** Validate one server definition. `command` present means stdio; `url` means http. */
export function parseServer(name: string, raw: unknown, prefix: string): { def?: ServerDef; issues: ConfigIssue[] } {
  const at = `${prefix}.${name}`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { issues: [{ path: at, message: 'expected an object' }] };
  const r = raw as Record<string, unknown>;
  const isStdio = r.type === 'stdio' || (r.type === undefined && 'command' in r);
  const schema = isStdio ? stdio : http;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { issues: issuesOf(at, parsed.error) };
  const d = parsed.data as Record<string, unknown>;
  if ((d.auth as Auth | undefined)?.type === 'oauth' && isStdio) {
    return { issues: [{ path: `${at}.auth.type`, message: 'oauth applies to an HTTP server (url), not a stdio one' }] };
  }
  const grantIssues = oauthGrantIssues(d.auth as Auth | undefined, `${at}.auth`);
  if (grantIssues.length) return { issues: grantIssues };
  const type = isStdio ? 'stdio' : d.type === 'sse' ? 'sse' : 'http';
  return { def: { ...(d as object), name, type } as ServerDef, issues: [] };
}

/** The server map of a config file: `servers` (VS Code) or `mcpServers` (Claude-style). */
export function parseServers(file: Record<string, unknown>): { servers: ServerDef[]; issues: ConfigIssue[] } {
  const servers: ServerDef[] = [];
  const issues: ConfigIssue[] = [];
  for (const key of ['servers', 'mcpServers'] as const) {
    const map = file[key];
    if (map === undefined) continue;
    if (typeof map !== 'object' || map === null || Array.isArray(map)) {
      issues.push({ path: key, message: 'expected an object mapping names to server definitions' });
      continue;
    }
    for (const [name, raw] of Object.entries(map)) {
      if (servers.some((s) => s.name === name)) {
        issues.push({ path: `${key}.${name}`, message: `a server named ${JSON.stringify(name)} is already defined` });
        continue;
      }
      const r = parseServer(name, raw, key);
      issues.push(...r.issues);
      if (r.def) servers.push(r.def);
    }
  }
  return { servers, issues };
}
