// /v1/pins (docs/gateway.md "Pins"), what `mcpx pins` reads: GET /v1/pins lists each server's pinned
// tools and prompts and what is held (GET /v1/pins/{server} one server); GET /v1/pins/{server}/diff the
// review of its held definitions (`?name=` one), POST /v1/pins/{server}/accept accepts them (`{"name"}`
// one; 404 when nothing is held), POST /v1/pins/{server}/reset forgets its pins. A server's name is
// percent-encoded in the path. Behind the endpoint secret, like every /v1 route.
import type { ServerResponse } from 'node:http';
import type { GatewayFacade } from '../gateway/facade';
import { isObject } from '../protocol/jsonrpc';
import type { Route } from '../transport/http';
import { notJson, readBody } from '../wire/body';
import { sendJson } from '../wire/json';

/** The answer written; true: the route took the request. */
const json = (res: ServerResponse, status: number, body: unknown): true => {
  sendJson(res, status, body, { pretty: true });
  return true;
};

type PinsFacade = Pick<GatewayFacade, 'config' | 'pinViews' | 'pinReviews' | 'acceptPins' | 'resetPins'>;

/** The verbs under /v1/pins/{server}: the method each takes. */
const VERBS: Record<string, string> = { '': 'GET', diff: 'GET', accept: 'POST', reset: 'POST' };

export function pinsRoute(g: PinsFacade): Route {
  return async (req, res, url) => {
    if (url.pathname === '/v1/pins') {
      if (req.method !== 'GET') {
        res.setHeader('Allow', 'GET');
        return json(res, 405, { error: 'GET lists pins' });
      }
      return json(res, 200, { pins: g.pinViews() });
    }
    const m = /^\/v1\/pins\/([^/]+)(?:\/(diff|accept|reset))?$/.exec(url.pathname);
    if (!m) return false;
    let server: string;
    try {
      server = decodeURIComponent(m[1]!);
    } catch {
      return json(res, 400, { error: 'the server name is not percent-encoded UTF-8' });
    }
    const verb = m[2] ?? '';
    if (req.method !== VERBS[verb]) {
      res.setHeader('Allow', VERBS[verb]!);
      return json(res, 405, { error: `${VERBS[verb]} only at this path` });
    }
    const configured = g.config.servers.some((s) => s.name === server);
    if (!configured && !g.pinViews().some((v) => v.server === server))
      // Not quoted: a path segment that names nothing configured may be anything (the secret mistyped).
      return json(res, 404, { error: 'no such server is configured or pinned (GET /v1/pins lists them)' });
    if (verb === '') return json(res, 200, { pins: g.pinViews(server) });
    if (verb === 'diff') {
      const name = url.searchParams.get('name') ?? undefined;
      return json(res, 200, { reviews: g.pinReviews(server, name) });
    }
    if (verb === 'reset') return json(res, 200, { reset: g.resetPins(server) });
    let name: string | undefined;
    // `{"name"}`, JSON, as on /mcp (415); without it, everything held.
    const unsupported = notJson(req, true);
    if (unsupported) return (req.resume(), json(res, 415, { error: unsupported }));
    try {
      const text = await readBody(req, 16 * 1024);
      const b: unknown = text.trim() ? JSON.parse(text) : {};
      if (!isObject(b) || (b.name !== undefined && typeof b.name !== 'string'))
        throw new Error('the body must be a JSON object, {"name"?: string}');
      name = b.name as string | undefined;
    } catch (e) {
      return json(res, 400, { error: (e as Error).message });
    }
    const accepted = g.acceptPins(server, name);
    if (!accepted.length)
      return json(res, 404, { error: `nothing of ${server}${name ? ` named ${JSON.stringify(name)}` : ''} is held` });
    return json(res, 200, { accepted });
  };
}
