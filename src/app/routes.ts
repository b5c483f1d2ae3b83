// The /v1 API on the gateway's listener, beside /mcp: what tools outside MCP read. GET /v1/protocol is
// the revision table; GET /v1/questions lists what waits at the broker and POST /v1/questions/{id}
// answers one (an invalid answer is refused with the reason, 400); GET /v1/events is the event stream.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Policy } from '../config/policy';
import type { GatewayFacade } from '../gateway/facade';
import { isObject } from '../protocol/jsonrpc';
import { revisionTable } from '../protocol/revisions';
import type { Route } from '../transport/http';
import { readBody } from '../wire/body';
import { sendJson } from '../wire/json';
import { SseStream } from '../wire/sse';

const json = (res: ServerResponse, status: number, body: unknown) => sendJson(res, status, body, { pretty: true });

/** An answer to a question is small: a body past 1 MiB is refused. */
async function body(req: IncomingMessage): Promise<unknown> {
  const text = await readBody(req, 1024 * 1024);
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('the body is not JSON');
  }
}

/** GET /v1/events: the gateway's events as an SSE stream, held open with keep-alive comments. */
function eventsRoute(g: Pick<GatewayFacade, 'onEvent'>, keepAliveMs: () => number): Route {
  return (req, res, url) => {
    if (url.pathname !== '/v1/events') return false;
    if (req.method !== 'GET') {
      res.setHeader('Allow', 'GET');
      json(res, 405, { error: 'GET opens the event stream' });
      return true;
    }
    const stream = new SseStream(res, keepAliveMs());
    stream.start();
    const off = g.onEvent((e) => {
      if (!stream.isOpen) return;
      res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
    });
    res.on('close', () => {
      off();
      stream.end();
    });
    return true;
  };
}

function questionsRoute(g: Pick<GatewayFacade, 'questions' | 'answer'>): Route {
  return async (req, res, url) => {
    if (url.pathname === '/v1/questions' && req.method === 'GET') {
      json(res, 200, { questions: g.questions() });
      return true;
    }
    const m = /^\/v1\/questions\/([0-9a-f-]{36})$/.exec(url.pathname);
    if (!m) return false;
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      json(res, 405, { error: 'POST an answer to a question' });
      return true;
    }
    let answer: unknown;
    try {
      answer = await body(req);
    } catch (e) {
      json(res, 400, { error: (e as Error).message });
      return true;
    }
    if (!isObject(answer)) return (json(res, 400, { error: 'the answer must be a JSON object' }), true);
    const refused = g.answer(m[1]!, answer);
    if (refused === undefined) json(res, 200, { answered: m[1] });
    else json(res, /no pending question/.test(refused) ? 404 : 400, { error: refused });
    return true;
  };
}

/** The gateway's /v1 routes: its questions and its event stream. */
export function gatewayRoutes(g: GatewayFacade): Route[] {
  return [questionsRoute(g), eventsRoute(g, () => g.settings.duration('transport.sseKeepAlive'))];
}

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
