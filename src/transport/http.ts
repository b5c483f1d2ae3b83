// Streamable HTTP on node:http, both eras on one endpoint (docs/protocol.md "One endpoint for both eras"):
// the listener, the order of the checks every request passes (the head, Origin, the secret, admission),
// and the routes. What each method does is in post.ts (POST), pushStream.ts (GET, DELETE), respond.ts
// (writing the answer); admission.ts bounds requests in flight before a body is read.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Settings } from '../config/settings';
import { invalidRequest } from '../protocol/errors';
import type { McpServer } from '../server/server';
import { sendJson } from '../wire/json';
import { HttpAdmission } from './admission';
import { ConnectionCap, serverOptions } from './connections';
import type { HttpContext } from './context';
import { Credentials, type Surface } from './credentials';
import { type Affinity, forward, relayed } from './forward';
import { NOT_NORMAL, readHead, urlOf } from './head';
import { checkOrigin } from './origin';
import { post } from './post';
import { deleteSession, openPushStream } from './pushStream';
import { HttpRefusal, MCP_PATH, header, headRefusal, sendFailure } from './refusal';
import { Sessions } from './sessions';

const SECRET_PATH_PREFIX = `${MCP_PATH}/`;

/** Extra routes (the /v1 API) mounted on the same listener: return true when handled. */
export type Route = (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | Promise<boolean>;

export interface HttpOptions {
  server: McpServer;
  settings: Settings;
  routes?: Route[];
  log?: (line: string) => void;
  /** The endpoint secret (docs/security.md "The endpoint secret"; 2025-11-25 basic/transports, Security
   *  Warning: servers SHOULD implement proper authentication): when set, /mcp and /v1 serve only a
   *  request that carries it, as `Authorization: Bearer <secret>` or (for /mcp) the path /mcp/<secret>. */
  secret?: string;
  /** Said in a 401: where the URL with the secret is. Never the secret itself. */
  whereIsTheSecret?: string;
  /** In a team: where sessions and work live (docs/team.md "Sessions and forwarding"). */
  affinity?: Affinity;
}

export class HttpTransport {
  private http?: Server;
  private cap?: ConnectionCap;
  private ctx?: HttpContext;
  private readonly admission: HttpAdmission;
  private address = '127.0.0.1';
  private port = 0;
  private readonly credentials: Credentials;

  constructor(private readonly opts: HttpOptions) {
    this.credentials = new Credentials({
      settings: opts.settings,
      provider: opts.server.opts.provider,
      secret: opts.secret,
      whereIsTheSecret: opts.whereIsTheSecret,
      log: opts.log,
    });
    this.admission = new HttpAdmission(opts.settings);
  }

  /** When the last request (not /health) arrived or ended, ms since the epoch: `mcpx daemon`'s
   *  daemon.idleExit. */
  lastActivity = Date.now();
  /** Requests not yet answered, held-open streams included. */
  private inflight = 0;

  /** A request in flight (a held-open stream counts) or a legacy session open. */
  get busy(): boolean {
    return this.inflight > 0 || this.sessionCount > 0;
  }

  get sessionCount(): number {
    return this.ctx?.sessions.size ?? 0;
  }

  /** The identity of legacy session `id`; undefined for one unknown or ended. */
  sessionIdentity(id: string): string | undefined {
    return this.ctx?.sessions.identityOf(id);
  }

  async listen(port: number, address: string): Promise<{ url: string; port: number; address: string }> {
    this.address = address;
    const http = createServer(serverOptions(this.opts.settings), (req, res) => void this.route(req, res));
    http.keepAliveTimeout = 60_000;
    this.cap = new ConnectionCap(http, this.opts.settings.get<number>('transport.maxConnections'));
    this.http = http;
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(port, address, () => {
        http.off('error', reject);
        resolve();
      });
    });
    const a = http.address() as AddressInfo;
    this.port = a.port;
    const { server, settings, log, affinity } = this.opts;
    this.ctx = { server, settings, log, affinity, sessions: new Sessions(server, settings, affinity?.replica) };
    const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
    return { url: `http://${host}:${a.port}${MCP_PATH}`, port: a.port, address: a.address };
  }

  async close(): Promise<void> {
    this.ctx?.sessions.close();
    this.cap?.close();
    const http = this.http;
    this.http = undefined;
    if (!http) return;
    await new Promise<void>((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections();
    });
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A health probe is not use: it keeps no idle daemon alive.
    if (req.url !== '/health' && req.url !== '/ready') {
      this.lastActivity = Date.now();
      this.inflight++;
      res.once('close', () => {
        this.inflight--;
        this.lastActivity = Date.now();
      });
    }
    try {
      // Order (docs/security.md "The endpoint secret"): the head (Host and the request target, 400 or
      // 403), Origin (403), then the secret or a token (401, 403: "Two ways in"), then admission (429,
      // "Bounds"), then the request itself (415 for a POST that is not application/json, and the rest).
      // No refusal quotes the path: it may hold the secret.
      const policy = {
        address: this.address,
        port: this.port,
        allowedOrigins: this.opts.settings.get<string[]>('transport.allowedOrigins'),
      };
      const head = readHead(req, policy);
      if ('status' in head) throw headRefusal(head);
      const refused = checkOrigin(header(req, 'origin'), policy);
      if (refused) throw new HttpRefusal(403, invalidRequest(`Forbidden: ${refused}`));
      // The MCP endpoint without a query string is every message's path: no URL object for it.
      if (head.target === MCP_PATH) {
        await this.credentials.admit(req, res, { kind: 'mcp' });
        return await this.mcp(req, res);
      }
      const url = urlOf(head.target);
      if (!url) throw headRefusal(NOT_NORMAL);
      // 2025-06-18..2026-07-28 basic/authorization: access tokens MUST NOT be in the query string; one
      // there is refused unread, wherever it is sent.
      if (url.searchParams.has('access_token'))
        throw new HttpRefusal(
          400,
          invalidRequest('Bad request: a token goes in the Authorization header, never in the URL'),
        );
      if (url.pathname === MCP_PATH) {
        await this.credentials.admit(req, res, { kind: 'mcp' });
        return await this.mcp(req, res);
      }
      // /mcp/<secret> (for clients that take only a URL) and a profile's /mcp/<secret>/<profile>.
      if (url.pathname.startsWith(SECRET_PATH_PREFIX)) {
        const profile = await this.endpointOf(req, res, url.pathname.slice(SECRET_PATH_PREFIX.length));
        if (profile !== null) return await this.mcp(req, res, profile);
      }
      // Protected Resource Metadata (RFC 9728), open to all: it says where to sign in.
      const known = this.credentials.resource?.wellKnown(url.pathname);
      if (known) return this.metadata(req, res, known.profile);
      // The OpenAPI document lists the tools: as private as the /v1 routes it describes.
      if (url.pathname === '/v1' || url.pathname.startsWith('/v1/') || url.pathname === '/openapi.json')
        await this.credentials.admit(req, res, surfaceOf(url.pathname));
      for (const r of this.opts.routes ?? []) if (await r(req, res, url)) return;
      sendJson(res, 404, { error: `No route for ${req.method} at this path; the MCP endpoint is ${MCP_PATH}` });
    } catch (e) {
      sendFailure(res, e, this.opts.log);
    }
  }

  /** The segments after /mcp/, admitted, as the profile they name (docs/gateway.md "Profiles"):
   *  `<secret>` is the default endpoint (undefined), `<secret>/<profile>` a profile's; with the secret or
   *  a token as `Authorization: Bearer` (or no secret at all), `<profile>` alone. null: not an MCP path.
   *  A profile nobody configured is 404 once the caller is admitted; no refusal quotes a segment (one
   *  may be the secret mistyped). */
  private async endpointOf(
    req: IncomingMessage,
    res: ServerResponse,
    rest: string,
  ): Promise<string | undefined | null> {
    const segments = rest.split('/');
    if (segments.length > 2 || segments.includes('')) {
      await this.credentials.admit(req, res, { kind: 'mcp' });
      return null;
    }
    const inPath = this.credentials.isSecret(segments[0]!);
    const profile = inPath ? segments[1] : segments[0];
    if (!inPath && segments.length === 2) {
      // /mcp/<not the secret>/<x>: a wrong secret, refused as a missing one.
      await this.credentials.admit(req, res, { kind: 'mcp' });
      return null;
    }
    const known = profile === undefined || this.opts.server.opts.provider.hasProfile?.(profile) === true;
    // A challenge names a profile's metadata only when the profile exists: the segment may be a secret.
    await this.credentials.admit(req, res, { kind: 'mcp', ...(known ? { profile } : {}) }, inPath);
    if (!known)
      throw new HttpRefusal(
        404,
        invalidRequest('Not found: no profile of that name is configured (`mcpx profiles` lists them)'),
      );
    return profile;
  }

  /** The Protected Resource Metadata of the default endpoint or a profile's (404 for one nobody
   *  configured). */
  private metadata(req: IncomingMessage, res: ServerResponse, profile: string | undefined): void {
    const resource = this.credentials.resource!;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      throw new HttpRefusal(405, invalidRequest('GET reads the protected resource metadata'));
    }
    const provider = this.opts.server.opts.provider;
    if (profile !== undefined && !provider.hasProfile?.(profile))
      return sendJson(res, 404, { error: 'no profile of that name is configured' });
    const scopes = [...resource.o.scopes, ...((profile && provider.profileAccess?.(profile)?.scopes) || [])];
    sendJson(res, 200, resource.document(resource.resourceOf(header(req, 'host') ?? '', profile), scopes));
  }

  /** An authorized request to the MCP endpoint (of a profile, or the default one): admitted on its head
   *  alone, then served by its method. */
  private async mcp(req: IncomingMessage, res: ServerResponse, profile?: string): Promise<void> {
    const ctx = this.ctx!;
    // The identity a head can name before its body is read: a legacy session's (docs/protocol.md
    // "Client identity"); an unknown id is the method's 404 to give.
    const sessionId = header(req, 'mcp-session-id');
    this.admission.admit(req, res, sessionId === undefined ? undefined : ctx.sessions.identityOf(sessionId));
    // Another replica's session is served there, never here as another session (docs/team.md).
    if (sessionId !== undefined && ctx.affinity && !relayed(req) && !ctx.sessions.identityOf(sessionId)) {
      const owner = await ctx.affinity.sessionOwner(sessionId);
      if (owner === 'gone')
        throw new HttpRefusal(
          404,
          invalidRequest('Session not found: the replica that held this session has stopped; initialize again'),
        );
      if (owner) return forward(req, res, owner, ctx.affinity.replica);
    }
    switch (req.method) {
      case 'POST':
        return post(ctx, req, res, profile);
      case 'GET':
        return openPushStream(ctx, req, res, profile);
      case 'DELETE':
        return deleteSession(ctx, req, res, profile);
      default:
        res.setHeader('Allow', 'GET, POST, DELETE');
        throw new HttpRefusal(405, invalidRequest(`Method ${req.method} is not allowed on ${MCP_PATH}`));
    }
  }
}

/** The /v1 routes a token may use, each as its endpoint (the default one, or a profile's under
 *  /v1/profiles/<name>/); every other one is the person's (docs/security.md "Two ways in"). */
function surfaceOf(pathname: string): Surface {
  const m = /^\/v1\/profiles\/([a-z0-9-]{1,32})(\/openapi\.json|\/v1\/tools|\/v1\/call\/.*|\/v1\/whoami)$/.exec(
    pathname,
  );
  if (m) return { kind: 'v1', profile: m[1]! };
  return TOKEN_ROUTES.test(pathname) ? { kind: 'v1' } : { kind: 'person' };
}
const TOKEN_ROUTES =
  /^(\/openapi\.json|\/v1\/whoami|\/v1\/tools|\/v1\/call\/.*|\/v1\/tasks(\/.*)?|\/v1\/events|\/v1\/protocol)$/;
