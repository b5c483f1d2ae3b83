// POST /v1/servers/{server}/restart (`mcpx restart`, docs/gateway.md "The surface"): every running
// instance of the server stopped (its calls in flight end with it), then a shared server started again at
// once, so a start that fails is said now (502 with the reason); a `scope: "identity"` server's instances
// start again at each client's next call. 404 for a server not configured. A server's name is
// percent-encoded in the path. Behind the endpoint secret, like every /v1 route.
import type { ServerResponse } from 'node:http';
import type { GatewayFacade } from '../gateway/facade';
import type { Route } from '../transport/http';
import { sendJson } from '../wire/json';

const json = (res: ServerResponse, status: number, body: unknown): true => {
  sendJson(res, status, body, { pretty: true });
  return true;
};

/** Whom a shared server is started for: nobody's instance (its scope is shared). */
const RESTART_IDENTITY = 'mcpx:restart';

type ServersFacade = Pick<GatewayFacade, 'config' | 'servers' | 'stopServer' | 'restartServer'>;

export function serversRoute(g: ServersFacade): Route {
  return async (req, res, url) => {
    const m = /^\/v1\/servers\/([^/]+)\/restart$/.exec(url.pathname);
    if (!m) return false;
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return json(res, 405, { error: 'POST restarts the server' });
    }
    let server: string;
    try {
      server = decodeURIComponent(m[1]!);
    } catch {
      return json(res, 400, { error: 'the server name is not percent-encoded UTF-8' });
    }
    const def = g.config.servers.find((s) => s.name === server);
    // Not quoted: a path segment that names nothing configured may be anything (the secret mistyped).
    if (!def) return json(res, 404, { error: 'no such server is configured' });
    try {
      if (def.scope === 'identity') await g.stopServer(server);
      else await g.restartServer(server, RESTART_IDENTITY);
    } catch (e) {
      // The pool's own message: it names the server and the cause, its secrets masked (upstream/pool.ts).
      return json(res, 502, {
        error: e instanceof Error ? e.message : String(e),
        servers: g.servers().filter((s) => s.name === server),
      });
    }
    return json(res, 200, { restarted: server, servers: g.servers().filter((s) => s.name === server) });
  };
}
