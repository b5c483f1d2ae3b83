// `mcpx tools`, `mcpx call`, `mcpx read`: the command line as an MCP client of the running gateway, found
// the way a stdio shim finds it (src/shim/resolve.ts, --connect). The client is mcpx's own upstream
// client (connect() and UpstreamClient), so the framing, the era and the errors are the gateway's own.
// Exit status: 0; 1 for a tool's isError result; 2 for a protocol or connection error (bin.ts).
import { makePolicy } from './config/policy';
import { parseServer } from './config/servers';
import { VERSION } from './config/version';
import { CODES, ProtocolError } from './protocol/errors';
import { type JsonObject, isObject } from './protocol/jsonrpc';
import { NEWEST_FIRST } from './protocol/revisions';
import { resolveGateway } from './shim/resolve';
import type { ClientHooks, UpstreamClient } from './upstream/client';
import { EraCache } from './upstream/eras';
import { connect } from './upstream/probe';

export interface ToolsArgs {
  connect?: string;
  text?: boolean;
  positional: string[];
}

const hooks: ClientHooks = {
  // A question for the calling client: the command line answers none, so the gateway's broker takes it
  // (`mcpx elicit`).
  async onRequest(method) {
    throw new ProtocolError(CODES.MethodNotFound, `Method not found: ${method}`);
  },
  onNotification() {},
  log: () => {},
};

const out = (s: string) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`);

/** A client of the gateway `--connect` names (auto: the editor window, the daemon, or a new daemon). */
async function gateway(a: ToolsArgs): Promise<UpstreamClient> {
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

async function withGateway<T>(a: ToolsArgs, f: (c: UpstreamClient) => Promise<T>): Promise<T> {
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

/** `mcpx tools [server]`: the gateway's tools, or (with a server) that server's through mcpx_tools. */
export async function toolsCommand(a: ToolsArgs): Promise<void> {
  const [server, ...extra] = a.positional;
  if (extra.length) throw new Error('usage: mcpx tools [server]');
  await withGateway(a, async (c) => {
    if (server === undefined) {
      const tools = await c.listAll('tools/list', 'tools');
      out(table(tools.map((t) => [String(t.name), summary(t)])));
      return;
    }
    const r = await c.request('tools/call', { name: 'mcpx_tools', arguments: { server } });
    if (r.isError === true) throw new Error(textOf(r) || `mcpx_tools failed for ${server}`);
    const s = isObject(r.structuredContent) ? r.structuredContent : {};
    const tools = Array.isArray(s.tools) ? s.tools.filter(isObject) : [];
    for (const e of Array.isArray(s.errors) ? s.errors.filter(isObject) : []) {
      process.stderr.write(`mcpx: ${String(e.server)}: ${String(e.error)}\n`);
      process.exitCode = 1;
    }
    if (tools.length === 0) return void out(`${server} lists no tools`);
    out(table(tools.map((t) => [String(t.tool), summary(t)])));
  });
}

/** `mcpx call <server> <tool> ['JSON' | -]`: through mcpx_call, so the arguments are checked as it checks them. */
export async function callCommand(a: ToolsArgs, stdin: () => Promise<string>): Promise<void> {
  const [server, tool, json, ...extra] = a.positional;
  if (!server || !tool || extra.length) throw new Error("usage: mcpx call <server> <tool> ['JSON' | -] [--text]");
  const raw = json === '-' ? await stdin() : (json ?? '{}');
  let args: unknown;
  try {
    args = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (e) {
    throw new Error(`the arguments are not JSON: ${(e as Error).message}`);
  }
  if (!isObject(args)) throw new Error('the arguments must be a JSON object');
  const r = await withGateway(a, (c) =>
    c.request('tools/call', { name: 'mcpx_call', arguments: { server, tool, arguments: args } }),
  );
  out(a.text ? textOf(r) : JSON.stringify(shown(r), null, 2));
  if (r.isError === true) process.exitCode = 1;
}

/** `mcpx read <mcpx:// URI>`: resources/read. */
export async function readCommand(a: ToolsArgs): Promise<void> {
  const [uri, ...extra] = a.positional;
  if (!uri || extra.length) throw new Error('usage: mcpx read <mcpx://server/uri> [--text]');
  const r = await withGateway(a, (c) => c.request('resources/read', { uri }));
  if (!a.text) return void out(JSON.stringify(shown(r), null, 2));
  const contents = Array.isArray(r.contents) ? r.contents.filter(isObject) : [];
  for (const c of contents) {
    if (typeof c.text === 'string') out(c.text);
    else process.stderr.write(`mcpx: ${String(c.uri)}: ${String(c.mimeType ?? 'binary')} content, not text\n`);
  }
}

/** A result without the envelope the 2026-07-28 gateway adds (resultType, its serverInfo and cache hints). */
function shown(r: JsonObject): JsonObject {
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
function textOf(r: JsonObject): string {
  const lines: string[] = [];
  for (const c of Array.isArray(r.content) ? r.content.filter(isObject) : []) {
    if (c.type === 'text' && typeof c.text === 'string') lines.push(c.text);
    else process.stderr.write(`mcpx: ${String(c.type)} content, not text\n`);
  }
  return lines.join('\n');
}

function summary(t: JsonObject): string {
  const s = typeof t.title === 'string' ? t.title : typeof t.description === 'string' ? t.description : '';
  return printable(s.split('\n')[0] ?? '');
}

function table(rows: string[][]): string {
  const width = Math.max(0, ...rows.map((r) => r[0]!.length));
  return rows.map(([name, what]) => `${printable(name!).padEnd(width)}  ${what}`.trimEnd()).join('\n');
}

/** One line with nothing a terminal would act on (names and descriptions come from upstreams). */
function printable(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  return s.replace(/[\x00-\x1f\x7f-\x9f]+/g, ' ');
}
