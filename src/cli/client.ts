// The command line as an MCP client of the running gateway (`mcpx tools`, `call`, `read`), found the way
// a stdio shim finds it (src/shim/resolve.ts, --connect). The client is mcpx's own upstream client
// (connect() and UpstreamClient), so the framing, the era and the errors are the gateway's own.
// Exit status: 0; 1 for a tool's isError result; 2 for a protocol or connection error (src/bin.ts).
import { makePolicy } from '../config/policy';
import { parseServer } from '../config/servers';
import { VERSION } from '../config/version';
import { CODES, ProtocolError } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { NEWEST_FIRST } from '../protocol/revisions';
import { resolveGateway } from '../shim/resolve';
import type { ClientHooks, UpstreamClient } from '../upstream/client';
import { EraCache } from '../upstream/eras';
import { connect } from '../upstream/probe';
import type { Args } from './args';

const hooks: ClientHooks = {
  // A question for the calling client: the command line answers none, so the gateway's broker takes it
  // (`mcpx elicit`).
  async onRequest(method) {
    throw new ProtocolError(CODES.MethodNotFound, `Method not found: ${method}`);
  },
  onNotification() {},
  log: () => {},
};

/** A client of the gateway `--connect` names (auto: the editor window, the daemon, or a new daemon). */
async function gateway(a: Args): Promise<UpstreamClient> {
  const { endpoint, via } = await resolveGateway({
    connect: a.connect ?? 'auto',
    cwd: process.cwd(),
    env: process.env,
    cli: process.argv[1]!,
    log: (l) => process.stderr.write(`mcpx: ${l}\n`),
  });
  const parsed = parseServer('mcpx', { type: 'http', url: endpoint }, 'connect');
  if (!parsed.def) throw new Error(`--connect: ${parsed.issues.map((i) => i.message).join('; ')}`);
  try {
    return await connect({
      def: parsed.def,
      hooks,
      eras: new EraCache(),
      policy: makePolicy(NEWEST_FIRST, []),
      clientInfo: { name: 'mcpx-cli', version: VERSION },
      capabilities: {},
      timeoutMs: 10_000,
      probeTimeoutMs: 3_000,
    });
  } catch (e) {
    // The endpoint holds the secret: the message names where it came from instead.
    throw new Error(`cannot reach the gateway (${via}): ${scrub((e as Error).message, endpoint)}`);
  }
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
    if (e instanceof ProtocolError) throw new Error(`${e.message} (${e.code})`);
    throw e;
  } finally {
    await c.close().catch(() => {});
  }
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
    else process.stderr.write(`mcpx: ${String(c.type)} content, not text\n`);
  }
  return lines.join('\n');
}
