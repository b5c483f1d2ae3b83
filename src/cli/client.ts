// The command line as an MCP client of the running gateway (`mcpx tools`, `call`, `read`, `exec`), found
// the way a stdio shim finds it (src/shim/resolve.ts, --connect; ssh:// through the shim on that host),
// at the endpoint of the profile --profile names, as the shim's.
// The client is mcpx's own upstream client (connect() and UpstreamClient), so the framing, the era and
// the errors are the gateway's own.
// Exit status: 0; 1 for a tool's isError result; 2 for a protocol or connection error (src/bin.ts).
import { makePolicy } from '../config/policy';
import { type ServerDef, parseServer } from '../config/servers';
import { Settings, envLayer, parseDuration } from '../config/settings';
import { VERSION } from '../config/version';
import { CODES, ProtocolError } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { META } from '../protocol/meta';
import { NEWEST_FIRST } from '../protocol/revisions';
import { resolveGateway } from '../shim/resolve';
import type { ClientHooks, UpstreamClient } from '../upstream/client';
import { EraCache } from '../upstream/eras';
import { connect } from '../upstream/probe';
import { type Args, UsageError } from './args';
import { printable } from '../kit/printable';
import { profileEndpoint, profileFlag } from './serveUsage';
import { sshShim } from './ssh';

const hooks: ClientHooks = {
  // A question for the calling client: the command line answers none, so the gateway's broker takes it
  // (`mcpx elicit`).
  async onRequest(method) {
    throw new ProtocolError(CODES.MethodNotFound, `Method not found: ${method}`);
  },
  onNotification() {},
  log: () => {},
};

/** A client of the gateway `--connect` names (auto: the editor window, the daemon, or a new daemon; ssh://:
 *  the gateway on that host, through mcpx's stdio shim there). */
async function gateway(a: Args): Promise<UpstreamClient> {
  // --profile: that profile's endpoint, as the shim reaches it (docs/gateway.md "Profiles").
  const profile = profileFlag(a.profile);
  const { def, via, endpoint } = a.connect?.startsWith('ssh://')
    ? overSsh(new URL(a.connect), profile)
    : await overHttp(a, profile);
  try {
    return await connect({
      def,
      // Over ssh what ssh and the far side say on stderr (a refused key, an unknown host) is the reason.
      // The far mcpx's own lines say `mcpx: ` already.
      hooks: endpoint ? hooks : { ...hooks, log: (l) => say(l.replace(/^\[mcpx\] (mcpx: )?/, '')) },
      eras: new EraCache(),
      policy: makePolicy(NEWEST_FIRST, []),
      clientInfo: { name: 'mcpx-cli', version: VERSION },
      capabilities: {},
      // ssh signs in and starts mcpx on the far host first.
      timeoutMs: endpoint ? 10_000 : 30_000,
      probeTimeoutMs: endpoint ? 3_000 : 20_000,
    });
  } catch (e) {
    // The endpoint holds the secret: the message names where it came from instead.
    const message = (e as Error).message;
    // The gateway's 404 for a profile it does not have quotes no path segment: this side names it.
    if (profile && message.includes('no profile of that name'))
      throw new Error(`no profile named "${profile}" at the gateway (${via}); \`mcpx profiles\` lists them`);
    throw new Error(`cannot reach the gateway (${via}): ${endpoint ? scrub(message, endpoint) : message}`);
  }
}

const say = (line: string) => void process.stderr.write(`mcpx: ${printable(line)}\n`);

interface Reached {
  def: ServerDef;
  via: string;
  /** The gateway's URL, its secret in it (HTTP only). */
  endpoint?: string;
}

async function overHttp(a: Args, profile: string | undefined): Promise<Reached> {
  const { endpoint, via } = await resolveGateway({
    connect: a.connect ?? 'auto',
    cwd: process.cwd(),
    env: process.env,
    cli: process.argv[1]!,
    log: say,
  });
  return { def: definition({ type: 'http', url: profileEndpoint(endpoint, profile) }), via, endpoint };
}

/** The far host's gateway as a stdio server: ssh running mcpx's shim there (cli/ssh.ts), with this
 *  process's whole environment (ssh's agent and config). */
function overSsh(url: URL, profile: string | undefined): Reached {
  const settings = new Settings([{ source: 'env', values: envLayer(process.env) }]);
  const { argv, via } = sshShim(url, settings.get<string>('shim.sshCommand'), profile);
  return { def: definition({ command: argv[0], args: argv.slice(1), inheritEnv: true }), via };
}

function definition(raw: JsonObject): ServerDef {
  const parsed = parseServer('mcpx', raw, 'connect');
  if (!parsed.def) throw new Error(`--connect: ${parsed.issues.map((i) => i.message).join('; ')}`);
  return parsed.def;
}

function scrub(message: string, endpoint: string): string {
  const secret = /\/mcp\/([^/?#]+)/.exec(endpoint)?.[1];
  return secret ? message.split(secret).join('<secret>') : message;
}

/** `f` with a client of the gateway, closed after; a protocol error as its message and code. */
export async function withGateway<T>(a: Args, f: (c: UpstreamClient) => Promise<T>): Promise<T> {
  const c = await gateway(a);
  try {
    return await f(c);
  } catch (e) {
    if (e instanceof ProtocolError) throw new Error(`${e.message}${gatewayToolOutside(e, a.profile)} (${e.code})`);
    throw e;
  } finally {
    await c.close().catch(() => {});
  }
}

/** Why a gateway tool these commands call is unknown: a profile whose mode lists none (passthrough), or
 *  only some (search: no mcpx_tools, no mcpx_exec), docs/gateway.md "Profiles". */
function gatewayToolOutside(e: ProtocolError, profile: string | undefined): string {
  const tool = /^no tool named "(mcpx_[a-z]+)"/.exec(e.message)?.[1];
  return profile && tool ? ` at profile "${profile}": its mode does not offer ${tool}, which this command calls` : '';
}

/** The `_meta` of a request `--timeout` bounds: `dev.mcpx/timeoutMs` (docs/gateway.md "Timeouts, in
 *  order of precedence"); a duration as the settings write one, its unit required. */
export function timeoutMeta(a: Args): JsonObject | undefined {
  if (a.timeout === undefined) return undefined;
  const ms = /^\d+(\.\d+)?$/.test(a.timeout.trim()) ? undefined : parseDuration(a.timeout);
  if (ms === undefined || ms < 1)
    throw new UsageError(
      `--timeout: expected a duration with its unit (30s, 500ms, 2m), got ${JSON.stringify(a.timeout)}`,
    );
  return { [META.timeoutMs]: ms };
}

/** A result without the envelope the 2026-07-28 gateway adds (resultType, its serverInfo and cache hints). */
export function shown(r: JsonObject): JsonObject {
  const { resultType: _t, ttlMs: _ttl, cacheScope: _cs, ...rest } = r;
  if (isObject(rest._meta)) {
    const meta = Object.fromEntries(
      Object.entries(rest._meta).filter(([k]) => !k.startsWith('io.modelcontextprotocol/')),
    );
    if (Object.keys(meta).length) rest._meta = meta;
    else delete rest._meta;
  }
  return rest;
}

/** The text content of a result, one block a line; other content named on stderr. */
export function textOf(r: JsonObject): string {
  const lines: string[] = [];
  for (const c of Array.isArray(r.content) ? r.content.filter(isObject) : []) {
    if (c.type === 'text' && typeof c.text === 'string') lines.push(c.text);
    else process.stderr.write(`mcpx: ${printable(String(c.type))} content, not text\n`);
  }
  return lines.join('\n');
}
