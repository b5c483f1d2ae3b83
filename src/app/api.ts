// The HTTP API for callers that do not speak MCP (docs/gateway.md "The HTTP API"): GET /openapi.json, the
// OpenAPI 3.1 document of the tools the caller is offered (app/openapi.ts); GET /v1/tools, those tools;
// POST /v1/call/{server}/{tool}, a call through mcpx_call's path (gateway/toolApi.ts) answered with the
// tool's result as JSON, or — Accept: application/x-ndjson — its progress and log lines first, one JSON
// object a line, then the result's; POST /v1/complete, completion/complete (the gateway's own, through the
// same gate). Behind the endpoint secret like every /v1 route (transport/http.ts).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Settings } from '../config/settings';
import { VERSION } from '../config/version';
import type { ToolApi } from '../gateway/toolApi';
import { CODES, McpxError, ProtocolError } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { type LogLevel, META, atLeastLevel, isLogLevel } from '../protocol/meta';
import { principalIdentity } from '../protocol/principal';
import { NEWEST_FIRST } from '../protocol/revisions';
import { PER_REQUEST, namedIdentity } from '../server/conn';
import type { CallContext } from '../server/provider';
import { principalOf } from '../transport/credentials';
import type { Route } from '../transport/http';
import { BodyTooLarge, notJson, readBody } from '../wire/body';
import { decodeHeaderValue } from '../wire/headers';
import { sendJson } from '../wire/json';
import { callPath, openApiDocument } from './openapi';
import type { CallPath } from '../gateway/activity/record';
import { METHODS, readParams } from '../protocol/methods';

/** What the routes need of the gateway. */
export interface ApiHost {
  readonly api: Pick<ToolApi, 'offeredFor' | 'find' | 'serves' | 'mismatch' | 'call' | 'hasProfile'>;
  readonly settings: Settings;
  /** A call's own identity ended with it (Provider.identityEnded). */
  identityEnded(identity: string): void;
  /** completion/complete through the gate, recorded with this path (Gateway.complete). */
  complete(params: JsonObject, ctx: CallContext, path?: CallPath): Promise<JsonObject>;
}

/** Bytes of progress and log lines a reader may leave unread: past it, such lines are skipped (the result's
 *  line is always written). */
const MAX_UNREAD = 1024 * 1024;
const NDJSON = 'application/x-ndjson';

const json = (res: ServerResponse, status: number, body: unknown, retry = false) =>
  sendJson(res, status, body, { pretty: true, ...(retry ? { headers: { 'Retry-After': '1' } } : {}) });

/** The caller's identity: the one named in `Mcpx-Identity` (as /v1/tasks reads it), else the request's
 *  own, ended with it (docs/protocol.md "Client identity"). */
function identityOf(req: IncomingMessage): { identity: string; own: boolean } | string {
  // A token's caller is its token's subject, whatever it names (docs/security.md "Two ways in").
  const principal = principalOf(req);
  if (principal) return { identity: principalIdentity(principal), own: false };
  const raw = req.headers['mcpx-identity'];
  const named = Array.isArray(raw) ? raw[0] : raw;
  if (named === undefined) return { identity: `${PER_REQUEST}${randomUUID()}`, own: true };
  const name = decodeHeaderValue(named.trim());
  if (!name) return 'Mcpx-Identity must name an identity, plain or =?base64?…?=';
  return { identity: namedIdentity(name), own: false };
}

/** A call's context: the newest revision's shapes, no client capabilities (a question goes to the person
 *  or the broker), progress and log lines to `line` when the caller streams, the profile whose API it
 *  came to, and the shorter timeout it asked for (`?timeoutMs=`, as `_meta["dev.mcpx/timeoutMs"]`). */
function contextOf(
  req: IncomingMessage,
  identity: string,
  signal: AbortSignal,
  o: { stream?: { level: LogLevel; line(o: JsonObject): void }; profile?: string; timeoutMs?: number } = {},
): CallContext {
  const { stream, profile } = o;
  const agent = req.headers['user-agent'];
  return {
    rev: NEWEST_FIRST[0]!,
    ...(profile !== undefined ? { profile } : {}),
    signal,
    identity,
    ...(principalOf(req) ? { principal: principalOf(req) } : {}),
    clientCapabilities: {},
    ...(agent ? { clientName: agent.slice(0, 200) } : {}),
    transport: 'http',
    meta: {
      ...(stream ? { progressToken: 'http-api' } : {}),
      ...(o.timeoutMs !== undefined ? { [META.timeoutMs]: o.timeoutMs } : {}),
    },
    ...(stream ? { logLevel: stream.level } : {}),
    progress: (progress, total, message) =>
      stream?.line({
        type: 'progress',
        progress,
        ...(total !== undefined ? { total } : {}),
        ...(message !== undefined ? { message } : {}),
      }),
    log: (level, data, logger) => {
      if (stream && atLeastLevel(level, stream.level))
        stream.line({ type: 'log', level, data, ...(logger !== undefined ? { logger } : {}) });
    },
  };
}

/** A refusal before the call: its status and message. */
class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function only(req: IncomingMessage, res: ServerResponse, method: string, why: string): boolean {
  if (req.method === method) return true;
  res.setHeader('Allow', method);
  json(res, 405, { error: why });
  return false;
}

/** The call's arguments: the body, a JSON object (empty: none), within transport.maxBodyBytes. */
async function argumentsOf(req: IncomingMessage, max: number): Promise<JsonObject> {
  let text: string;
  try {
    text = await readBody(req, max);
  } catch (e) {
    if (e instanceof BodyTooLarge) throw new Refused(413, `${e.message} (transport.maxBodyBytes)`);
    throw e;
  }
  if (text.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    throw new Refused(400, `the body is not JSON: ${(e as Error).message}`);
  }
  if (!isObject(body)) throw new Refused(400, "the body must be a JSON object: the tool's arguments");
  return body;
}

/** Calls in flight through the API: each identity's by transport.maxInflightPerIdentity, all of them by
 *  limits.inflight; past either, 429 before the body is read. Released when the response closes. */
class InFlight {
  private total = 0;
  private readonly byIdentity = new Map<string, number>();

  constructor(private readonly settings: Settings) {}

  admit(identity: string, res: ServerResponse): void {
    const total = this.settings.get<number>('limits.inflight');
    if (this.total >= total)
      throw new Refused(
        429,
        `${total} calls are in flight through the HTTP API (limits.inflight); retry when one has ended`,
      );
    const per = this.settings.get<number>('transport.maxInflightPerIdentity');
    const mine = this.byIdentity.get(identity) ?? 0;
    if (mine >= per)
      throw new Refused(
        429,
        `this identity has ${per} calls in flight (transport.maxInflightPerIdentity); retry when one has ended`,
      );
    this.total++;
    this.byIdentity.set(identity, mine + 1);
    res.once('close', () => {
      this.total--;
      const left = (this.byIdentity.get(identity) ?? 1) - 1;
      if (left > 0) this.byIdentity.set(identity, left);
      else this.byIdentity.delete(identity);
    });
  }
}

/** The error a failed call answers with: a JSON-RPC error of the upstream or of mcpx. */
function failure(e: unknown): JsonObject {
  if (e instanceof ProtocolError || e instanceof McpxError) return { error: e.message, code: e.toWire().code };
  return { error: e instanceof Error ? e.message : String(e) };
}

/** The endpoint a path of the API is under: the default one (`/openapi.json`, `/v1/tools`, `/v1/call/…`),
 *  or a profile's — the same paths under `/v1/profiles/<name>` (docs/gateway.md "The HTTP API"). */
function endpointOf(pathname: string): { profile?: string; root: string; path: string } {
  const m = /^(\/v1\/profiles\/([a-z0-9-]{1,32}))(\/openapi\.json|\/v1\/tools|\/v1\/call\/.*|\/v1\/complete)$/.exec(
    pathname,
  );
  return m ? { profile: m[2]!, root: m[1]!, path: m[3]! } : { root: '', path: pathname };
}

export function apiRoutes(g: ApiHost): Route[] {
  const base = (req: IncomingMessage) => `http://${req.headers.host ?? '127.0.0.1'}`;
  /** A path of the API under a profile nobody configured answers 404. A refusal quotes a path segment only
   *  where it is a configured name: any other may be anything, the endpoint secret mistyped included. */
  const unknown = (res: ServerResponse, profile: string | undefined): boolean => {
    if (profile === undefined || g.api.hasProfile(profile)) return false;
    json(res, 404, { error: 'no such profile is configured (mcpx profiles lists them)' });
    return true;
  };
  const openapi: Route = async (req, res, url) => {
    const at = endpointOf(url.pathname);
    if (at.path !== '/openapi.json') return false;
    if (!only(req, res, 'GET', 'GET reads the OpenAPI document')) return true;
    if (unknown(res, at.profile)) return true;
    const who = identityOf(req);
    if (typeof who === 'string') return (json(res, 400, { error: who }), true);
    const ctx = contextOf(req, who.identity, new AbortController().signal, { profile: at.profile });
    try {
      const { tools } = await g.api.offeredFor(ctx);
      json(res, 200, openApiDocument(tools, { version: VERSION, base: `${base(req)}${at.root}` }));
    } finally {
      if (who.own) g.identityEnded(who.identity);
    }
    return true;
  };
  const tools: Route = async (req, res, url) => {
    const at = endpointOf(url.pathname);
    if (at.path !== '/v1/tools') return false;
    if (!only(req, res, 'GET', 'GET lists the tools')) return true;
    if (unknown(res, at.profile)) return true;
    const who = identityOf(req);
    if (typeof who === 'string') return (json(res, 400, { error: who }), true);
    try {
      const ctx = contextOf(req, who.identity, new AbortController().signal, { profile: at.profile });
      const offered = await g.api.offeredFor(ctx);
      json(res, 200, {
        tools: offered.tools.map(({ server, tool }) => ({
          server,
          path: `${at.root}${callPath(server, tool.name)}`,
          ...tool,
        })),
        ...(offered.errors.length ? { errors: offered.errors } : {}),
      });
    } finally {
      if (who.own) g.identityEnded(who.identity);
    }
    return true;
  };
  const inFlight = new InFlight(g.settings);
  const call: Route = async (req, res, url) => {
    const at = endpointOf(url.pathname);
    const m = /^\/v1\/call\/([^/]+)\/([^/]+)$/.exec(at.path);
    if (!m) return false;
    if (!only(req, res, 'POST', 'POST calls the tool')) return true;
    if (unknown(res, at.profile)) return true;
    // The body is the arguments, JSON, as on /mcp (415 before anything else reads the request).
    const unsupported = notJson(req);
    if (unsupported) return (req.resume(), json(res, 415, { error: unsupported }), true);
    const who = identityOf(req);
    if (typeof who === 'string') return (json(res, 400, { error: who }), true);
    // The call ends when its caller goes.
    const stop = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) stop.abort(new Error('the caller closed the connection'));
    });
    try {
      inFlight.admit(who.identity, res);
      const [server, name] = [decode(m[1]!), decode(m[2]!)];
      const accept = String(req.headers.accept ?? '');
      const level = url.searchParams.get('logLevel') ?? 'info';
      if (!isLogLevel(level)) throw new Refused(400, `logLevel: expected a log level, got ${JSON.stringify(level)}`);
      const streamed = accept.includes(NDJSON);
      const line = (o: JsonObject) => {
        if (!res.headersSent) {
          res.writeHead(200, { 'Content-Type': NDJSON, 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
          res.flushHeaders();
        }
        if (!res.writableEnded && res.writableLength <= MAX_UNREAD) res.write(`${JSON.stringify(o)}\n`);
      };
      // A shorter timeout for this call, never a longer one (docs/gateway.md "Timeouts, in order of precedence").
      const asked = url.searchParams.get('timeoutMs');
      const timeoutMs = asked === null ? undefined : Number(asked);
      if (timeoutMs !== undefined && !(Number.isSafeInteger(timeoutMs) && timeoutMs > 0))
        throw new Refused(
          400,
          `timeoutMs: expected a positive whole number of milliseconds, got ${JSON.stringify(asked)}`,
        );
      const ctx = contextOf(req, who.identity, stop.signal, {
        ...(streamed ? { stream: { level, line } } : {}),
        ...(at.profile !== undefined ? { profile: at.profile } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      });
      const offered = await g.api.find(server, name, ctx);
      // A path segment is quoted only where it is a configured name (a server offered here): it may hold
      // anything, the endpoint secret mistyped included.
      if (!offered)
        throw new Refused(
          404,
          g.api.serves(server, ctx)
            ? `No such tool of server ${JSON.stringify(server)} is offered here (GET /v1/tools lists them)`
            : 'No such server is offered here (GET /v1/tools lists the tools of those that are)',
        );
      const args = await argumentsOf(req, g.settings.get<number>('transport.maxBodyBytes'));
      const bad = g.api.mismatch(offered, args);
      if (bad) throw new Refused(400, `Invalid arguments for ${server}/${name}: ${bad}`);
      let result: JsonObject;
      try {
        result = await g.api.call(server, name, args, ctx);
      } catch (e) {
        if (stop.signal.aborted) return true;
        if (streamed) {
          line({ type: 'error', ...failure(e) });
          res.end();
        } else json(res, 502, failure(e));
        return true;
      }
      if (!streamed) json(res, 200, result);
      else {
        // The result's line is written whatever is unread: the reader asked for it.
        if (!res.headersSent) line({ type: 'result', result });
        else res.write(`${JSON.stringify({ type: 'result', result })}\n`);
        res.end();
      }
    } catch (e) {
      if (!(e instanceof Refused)) throw e;
      // The body of a refused call is discarded as it arrives, never read.
      if (e.status === 429) req.resume();
      json(res, e.status, { error: e.message }, e.status === 429);
    } finally {
      if (who.own) g.identityEnded(who.identity);
    }
    return true;
  };
  /** POST /v1/complete: completion/complete's params as the JSON body, its result as the answer. A request
   *  that will not be served as sent (-32602 or -32601: a params mismatch, an unknown prompt, a permission
   *  rule's refusal, the upstream's own -32602) is 400, any other failure 502; both `{error, code}`. */
  const complete: Route = async (req, res, url) => {
    const at = endpointOf(url.pathname);
    if (at.path !== '/v1/complete') return false;
    if (!only(req, res, 'POST', 'POST completes an argument')) return true;
    if (unknown(res, at.profile)) return true;
    const unsupported = notJson(req);
    if (unsupported) return (req.resume(), json(res, 415, { error: unsupported }), true);
    const who = identityOf(req);
    if (typeof who === 'string') return (json(res, 400, { error: who }), true);
    const stop = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) stop.abort(new Error('the caller closed the connection'));
    });
    try {
      inFlight.admit(who.identity, res);
      const body = await argumentsOf(req, g.settings.get<number>('transport.maxBodyBytes'));
      let params: JsonObject;
      try {
        params = readParams(METHODS['completion/complete'].params, body) as JsonObject;
      } catch (e) {
        throw new Refused(400, (e as Error).message);
      }
      const ctx = contextOf(req, who.identity, stop.signal, at.profile !== undefined ? { profile: at.profile } : {});
      try {
        json(res, 200, await g.complete(params, ctx, 'http-api'));
      } catch (e) {
        if (stop.signal.aborted) return true;
        const code = failure(e).code;
        json(res, code === CODES.InvalidParams || code === CODES.MethodNotFound ? 400 : 502, failure(e));
      }
    } catch (e) {
      if (!(e instanceof Refused)) throw e;
      if (e.status === 429) req.resume();
      json(res, e.status, { error: e.message }, e.status === 429);
    } finally {
      if (who.own) g.identityEnded(who.identity);
    }
    return true;
  };
  return [openapi, tools, call, complete];
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new Refused(404, 'the path is not a tool: its server or tool name is not valid percent-encoding');
  }
}
