// The client leg of `npm run conformance`: mcpx's own upstream client — connect() from
// src/upstream/probe.ts and UpstreamClient, the code the gateway uses to talk to upstreams — driven
// against the official conformance suite's mock servers. Not part of the product: bundled to
// dist/conformance-client.js and run by scripts/conformance.ts as
//
//   conformance client --command "node dist/conformance-client.js" --scenario <name>
//
// The suite appends the mock server's URL and names the scenario in MCP_CONFORMANCE_SCENARIO
// (MCP_CONFORMANCE_CONTEXT: scenario data; MCP_CONFORMANCE_PROTOCOL_VERSION: the revision asked for).
// The client does what the gateway does with an upstream: connect (era probe or the era it is told),
// list, call, read and get, answering the server's questions the way a user would (elicitation:
// accept, with the schema's defaults; sampling: a canned completion; roots: one root).
import { makePolicy } from '../config/policy';
import { parseServer } from '../config/servers';
import { VERSION } from '../config/version';
import { CODES, ProtocolError } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { NEWEST_FIRST, isRevision } from '../protocol/revisions';
import { SKILLS_EXTENSION, declaresSkills, skillFiles } from '../protocol/skills';
import { verifySkillRead } from '../upstream/skillFiles';
import type { ClientHooks, UpstreamClient } from '../upstream/client';
import { EraCache } from '../upstream/eras';
import { Authorizer, type SignInPort } from '../upstream/auth/authorizer';
import type { OAuthConfig } from '../upstream/auth/grants';
import { MemorySecretStore } from '../upstream/auth/store';
import { connect, toldEra } from '../upstream/probe';

const CLIENT_INFO = { name: 'mcpx-conformance-client', version: VERSION };
/** What the client can answer: everything the gateway can, spelled per revision by connect(). */
const CAPABILITIES: JsonObject = {
  roots: { listChanged: true },
  elicitation: { form: {} },
  sampling: {},
  extensions: { [SKILLS_EXTENSION]: {} },
};

function log(line: string): void {
  process.stderr.write(`[mcpx-conformance-client] ${line}\n`);
}

/** A value for a schema: its default, else the first of its enum/const, else one of its type. */
function valueFor(schema: unknown): unknown {
  if (!isObject(schema)) return 'value';
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if (Array.isArray(schema.oneOf) && isObject(schema.oneOf[0]) && 'const' in schema.oneOf[0])
    return schema.oneOf[0].const;
  switch (schema.type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return isObject(schema.items) ? [valueFor(schema.items)].filter((v) => v !== undefined) : [];
    case 'object':
      return argumentsFor(schema);
    default:
      return 'value';
  }
}

/** Arguments for a tool's input schema: every required property, plus every one with a default. */
function argumentsFor(schema: unknown): JsonObject {
  const out: JsonObject = {};
  if (!isObject(schema) || !isObject(schema.properties)) return out;
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  for (const [k, p] of Object.entries(schema.properties)) {
    if (required.includes(k) || (isObject(p) && 'default' in p)) out[k] = valueFor(p);
  }
  return out;
}

/** How a user answers: elicitation accepted with the form's defaults (2025-11-25 client/elicitation "Requested Schema": defaults); sampling with a
 *  canned completion; roots with one root. */
const hooks: ClientHooks = {
  async onRequest(method, params) {
    if (method === 'elicitation/create') {
      const content = isObject(params.requestedSchema)
        ? argumentsFor({
            ...params.requestedSchema,
            required: Object.keys(isObject(params.requestedSchema.properties) ? params.requestedSchema.properties : {}),
          })
        : {};
      return { action: 'accept', content };
    }
    if (method === 'sampling/createMessage') {
      return {
        role: 'assistant',
        content: { type: 'text', text: 'A completion from the mcpx conformance client.' },
        model: 'mcpx-conformance',
        stopReason: 'endTurn',
      };
    }
    if (method === 'roots/list') return { roots: [{ uri: 'file:///tmp/mcpx-conformance', name: 'mcpx-conformance' }] };
    throw new ProtocolError(CODES.MethodNotFound, `Method not found: ${method}`);
  },
  onNotification(n) {
    log(`notification ${n.method}`);
  },
  log,
};

interface Call {
  name: string;
  arguments: JsonObject;
}

/** The calls to make: the scenario's own (MCP_CONFORMANCE_CONTEXT.toolCalls), else every listed tool
 *  once with arguments from its schema. A tool that takes a `schema` object is given the input schema
 *  of the tool listed before it (json-schema-2020-12-preservation's echo). */
function plan(tools: JsonObject[], context: JsonObject): Call[] {
  if (Array.isArray(context.toolCalls)) {
    return context.toolCalls
      .filter(isObject)
      .map((c) => ({ name: String(c.name), arguments: isObject(c.arguments) ? c.arguments : {} }));
  }
  return tools.map((t, i) => {
    const args = argumentsFor(t.inputSchema);
    const props = isObject(t.inputSchema) && isObject(t.inputSchema.properties) ? t.inputSchema.properties : {};
    if (isObject(props.schema) && props.schema.type === 'object' && i > 0)
      args.schema = tools[i - 1]!.inputSchema ?? {};
    return { name: String(t.name), arguments: args };
  });
}

/** Skills (SEP-2640) as a host has them: listed, and nothing of a skill read ahead of need ("Integrity and
 *  verification"); where the scenario has the person load one (the sep-2640-client-verify-* ones), its
 *  SKILL.md is read and checked against its entry — size, SHA-256, frontmatter (upstream/skillFiles.ts) —
 *  and its other files are read, each checked, only once it passed. */
async function skills(client: UpstreamClient, scenario: string): Promise<void> {
  if (!declaresSkills(client.negotiated.capabilities)) return;
  const listed = await client.listAll('skills/list', 'skills');
  log(`${listed.length} skill(s): ${listed.map((s) => String(s.uri)).join(', ')}`);
  const entry = listed[0];
  if (!entry || !scenario.startsWith('sep-2640-client-verify')) return;
  const read = async (uri: string) => {
    const r = await client.request('resources/read', { uri });
    verifySkillRead('the server', uri, [entry], r);
  };
  try {
    await read(String(entry.uri));
    for (const f of skillFiles(entry)) if (f.uri !== entry.uri) await read(f.uri);
    log(`skill ${String(entry.uri)} loaded`);
  } catch (e) {
    log(`skill not loaded: ${(e as Error).message}`);
  }
}

async function exercise(client: UpstreamClient, context: JsonObject, scenario: string): Promise<void> {
  const caps = client.negotiated.capabilities;
  await skills(client, scenario);
  const tools = client.codec.client.listsTools(caps) ? await client.listAll('tools/list', 'tools') : [];
  log(`${tools.length} tool(s): ${tools.map((t) => String(t.name)).join(', ')}`);
  for (const call of plan(tools, context)) {
    try {
      const r = await client.request(
        'tools/call',
        { name: call.name, arguments: call.arguments },
        { timeoutMs: 20_000 },
      );
      log(`tools/call ${call.name}: ${JSON.stringify(r).slice(0, 300)}`);
    } catch (e) {
      log(`tools/call ${call.name} failed: ${(e as Error).message}`);
    }
  }
  if (isObject(caps.resources)) {
    const resources = await client.listAll('resources/list', 'resources');
    const first = resources[0];
    if (first)
      await client
        .request('resources/read', { uri: first.uri })
        .catch((e: Error) => log(`resources/read failed: ${e.message}`));
  }
  if (isObject(caps.prompts)) {
    const prompts = await client.listAll('prompts/list', 'prompts');
    const first = prompts[0];
    if (first) {
      const args: JsonObject = {};
      for (const a of Array.isArray(first.arguments) ? first.arguments.filter(isObject) : [])
        if (a.required) args[String(a.name)] = 'value';
      await client
        .request('prompts/get', { name: first.name, arguments: args })
        .catch((e: Error) => log(`prompts/get failed: ${(e as Error).message}`));
    }
  }
}

/** The person of the authorization scenarios: agrees at once and does what a browser does — follows the
 *  authorization endpoint's redirect back to mcpx's loopback listener. */
const browser: SignInPort = {
  available: () => true,
  async open(req) {
    const res = await fetch(req.url, { redirect: 'manual', signal: req.signal });
    const location = res.headers.get('location');
    await res.body?.cancel();
    if (!location) throw new Error(`the authorization endpoint answered ${res.status} without a redirect`);
    const back = await fetch(new URL(location, req.url), { signal: req.signal });
    await back.body?.cancel();
  },
};

/** Where the scenario's tokens reach the client: the environment, as a person would point
 *  `auth.assertion` or `auth.enterprise.idToken` at one (`{"env": NAME}`). */
const WORKLOAD_JWT = 'MCPX_CONFORMANCE_WORKLOAD_JWT';
const ID_TOKEN = 'MCPX_CONFORMANCE_ID_TOKEN';

/** The scenario's client, as a person would configure it: pre-registered credentials from the context;
 *  the client credentials grant for the scenarios named for it; the JWT bearer grant with the workload's
 *  JWT (SEP-1933) and the enterprise grant with the IdP's ID token (SEP-990) for theirs; mcpx's metadata
 *  document URL the suite expects, used only where the server supports client ID metadata documents.
 *  DPoP needs nothing: the servers of those scenarios offer it. */
function oauthConfig(scenario: string, context: JsonObject): OAuthConfig {
  const str = (k: string) => (typeof context[k] === 'string' ? (context[k] as string) : undefined);
  const cfg: OAuthConfig = { clientMetadataUrl: 'https://conformance-test.local/client-metadata.json' };
  if (str('client_id')) cfg.clientId = str('client_id');
  if (str('client_secret')) cfg.clientSecret = str('client_secret');
  if (scenario.startsWith('auth/client-credentials')) {
    cfg.grant = 'client_credentials';
    if (str('private_key_pem')) {
      cfg.privateKeyPem = str('private_key_pem');
      cfg.signingAlgorithm = str('signing_algorithm');
      cfg.tokenEndpointAuthMethod = 'private_key_jwt';
    }
  }
  if (str('valid_jwt')) {
    process.env[WORKLOAD_JWT] = str('valid_jwt');
    cfg.grant = 'jwt_bearer';
    cfg.assertion = { env: WORKLOAD_JWT };
  }
  if (str('idp_id_token') && str('idp_issuer') && str('idp_client_id')) {
    process.env[ID_TOKEN] = str('idp_id_token');
    cfg.grant = 'enterprise';
    cfg.enterprise = {
      issuer: str('idp_issuer')!,
      tokenEndpoint: str('idp_token_endpoint'),
      clientId: str('idp_client_id')!,
      idToken: { env: ID_TOKEN },
    };
  }
  return cfg;
}

async function main(): Promise<number> {
  const url = process.argv[process.argv.length - 1];
  if (!url || !/^https?:\/\//.test(url)) {
    log('usage: conformance-client <server URL> (the conformance suite appends it)');
    return 2;
  }
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  let context: JsonObject = {};
  try {
    const raw: unknown = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
    if (isObject(raw)) context = raw;
  } catch {
    log('MCP_CONFORMANCE_CONTEXT is not JSON; ignored');
  }
  const parsed = parseServer('conformance', { type: 'http', url }, 'servers');
  if (!parsed.def) {
    log(`bad server URL: ${parsed.issues.map((i) => i.message).join('; ')}`);
    return 2;
  }
  const def = parsed.def;
  const eras = new EraCache();
  // Told the revision: the era is known, as the gateway's era cache would know it; no probe.
  const asked = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  if (asked && isRevision(asked)) eras.set(def, toldEra(asked, 'http'));
  log(`scenario ${scenario || '(none)'} at ${url}${asked ? ` (revision ${asked})` : ''}`);
  const auth = new Authorizer({
    server: def.name,
    url,
    config: scenario.startsWith('auth/') ? oauthConfig(scenario, context) : undefined,
    store: new MemorySecretStore(),
    person: browser,
    log,
    signInTimeoutMs: 10_000,
    stepUpRetries: 2,
    fixHint: 'sign in',
  });
  const client = await connect({
    auth,
    def,
    hooks,
    eras,
    policy: makePolicy(NEWEST_FIRST, []),
    clientInfo: CLIENT_INFO,
    capabilities: CAPABILITIES,
    timeoutMs: 10_000,
    probeTimeoutMs: 3_000,
  });
  log(`connected: ${client.era} ${client.negotiated.revision}`);
  try {
    await exercise(client, context, scenario);
  } finally {
    await client.close();
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    log(`failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
