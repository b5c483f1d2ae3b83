// The /v1 API on the gateway's listener: what tools outside MCP read.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Policy } from '../config/policy';
import { revisionTable } from '../protocol/revisions';
import type { Route } from '../transport/http';
import { sendJson } from '../transport/json';

const json = (res: ServerResponse, status: number, body: unknown) => sendJson(res, status, body, { pretty: true });

/** GET /v1/protocol: the revision table and the effective spec policy (docs/protocol.md "Revision precedence"). */
export function protocolRoute(policy: Policy): Route {
  return (req: IncomingMessage, res: ServerResponse, url: URL) => {
    if (url.pathname !== '/v1/protocol') return false;
    if (req.method !== 'GET') {
      res.setHeader('Allow', 'GET');
      json(res, 405, { error: 'GET only' });
      return true;
    }
    json(res, 200, {
      ...revisionTable(),
      spec: { precedence: policy.precedence, lenient: policy.lenient, first: policy.first },
    });
    return true;
  };
}
