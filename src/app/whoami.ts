// GET /v1/whoami, and /v1/profiles/<name>/v1/whoami for a profile's endpoint (`mcpx auth whoami`;
// docs/security.md "Two ways in"): how mcpx sees the credential a request carries — the person (the
// endpoint secret), or a token's subject, its identity, scopes and claims. The admission before it
// (transport/credentials.ts) has already checked the token for that endpoint, its audience, scopes and
// access.
import { principalIdentity } from '../protocol/principal';
import { principalOf } from '../transport/credentials';
import type { Route } from '../transport/http';
import { sendJson } from '../wire/json';

const WHOAMI = /^(?:\/v1\/profiles\/([a-z0-9-]{1,32}))?\/v1\/whoami$/;

export function whoamiRoute(): Route {
  return (req, res, url) => {
    const m = WHOAMI.exec(url.pathname);
    if (!m) return false;
    if (req.method !== 'GET') {
      res.setHeader('Allow', 'GET');
      sendJson(res, 405, { error: 'GET says how mcpx sees the request' });
      return true;
    }
    const p = principalOf(req);
    const endpoint = m[1] === undefined ? null : m[1];
    sendJson(
      res,
      200,
      p
        ? { via: 'token', endpoint, identity: principalIdentity(p), principal: p }
        : { via: 'secret', endpoint, identity: null },
      { pretty: true },
    );
    return true;
  };
}
