// /v1/profiles (docs/gateway.md "Profiles"), what `mcpx profiles` reads: each configured profile with its
// URL — this gateway's endpoint as the caller reached it, with the secret the caller sent, one segment
// further: /mcp/<secret>/<profile> — the stdio shim command that reaches it, its mode and its counts of
// servers and tools. Behind the endpoint secret, like every /v1 route: the secret it shows is the one
// the caller already holds.
import type { GatewayFacade } from '../gateway/editorPort';
import { MCP_PATH, header } from '../transport/refusal';
import type { Route } from '../transport/http';
import { sendJson } from '../wire/json';

/** Whose instances listing starts (a `scope: "identity"` server's): the CLI's, not any client's. */
const PROFILES_IDENTITY = 'mcpx:profiles';

export function profilesRoute(g: Pick<GatewayFacade, 'profileSummaries'>): Route {
  return async (req, res, url) => {
    if (url.pathname !== '/v1/profiles') return false;
    if (req.method !== 'GET') {
      res.setHeader('Allow', 'GET');
      sendJson(res, 405, { error: 'GET lists the profiles' }, { pretty: true });
      return true;
    }
    // Host was checked before any route (transport/head.ts): it names this listener.
    const bearer = /^Bearer[ \t]+(\S+)/i.exec(header(req, 'authorization') ?? '')?.[1];
    const base = `http://${header(req, 'host')}${MCP_PATH}${bearer ? `/${bearer}` : ''}`;
    const profiles = (await g.profileSummaries(PROFILES_IDENTITY)).map((p) => ({
      ...p,
      url: `${base}/${p.name}`,
      shim: ['mcpx', 'serve', '--transport', 'stdio', '--profile', p.name],
    }));
    sendJson(res, 200, { profiles }, { pretty: true });
    return true;
  };
}
