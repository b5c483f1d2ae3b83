// The /v1 API on the gateway's listener, beside /mcp: what tools outside MCP read. GET /v1/protocol is
// the revision table; GET /v1/questions lists what waits at the broker and POST /v1/questions/{id}
// answers one (an invalid answer is refused with the reason, 400); GET /v1/events is the event stream
// and a resource's watch (app/events.ts);
// GET /v1/tasks lists one identity's tasks, GET /v1/tasks/{id} shows one, POST /v1/tasks/{id}/cancel
// cancels it (docs/security.md "Tasks belong to their owner"); GET /v1/activity is the activity log
// (app/activity.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Policy } from '../config/policy';
import type { Settings } from '../config/settings';
import type { GatewayFacade, TaskBoard, TaskView } from '../gateway/editorPort';
import { type ConfigDiff, ReloadError } from '../gateway/reload';
import { isTypedError } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { methodTable } from '../protocol/methods';
import { principalIdentity } from '../protocol/principal';
import { NEWEST_FIRST, revisionTable } from '../protocol/revisions';
import { principalOf } from '../transport/credentials';
import type { Route } from '../transport/http';
import { notJson, readBody } from '../wire/body';
import { decodeHeaderValue, encodeHeaderValue } from '../wire/headers';
import { sendJson } from '../wire/json';
import { namedIdentity } from '../server/conn';
import type { Provider } from '../server/provider';
import { BackgroundCall } from '../server/mrtr';
import { activityRoute } from './activity';
import { type ApiHost, apiRoutes } from './api';
import { type BackgroundBoard, abandonedOf, callDetail, callRow, ownedCall } from './background';
import { eventsRoute } from './events';
import { pinsRoute } from './pins';
import { profilesRoute } from './profiles';
import { serversRoute } from './servers';

const json = (res: ServerResponse, status: number, body: unknown) => sendJson(res, status, body, { pretty: true });

/** A body that is JSON, as on /mcp (a Content-Type of application/json, else 415: `Unsupported`). An answer
 *  to a question is small: a body past 1 MiB is refused (a cancel's reason, past 16 KiB). `empty`: the body
 *  may be left out (with its type), and is this then. */
async function body(req: IncomingMessage, max = 1024 * 1024, empty?: unknown): Promise<unknown> {
  const unsupported = notJson(req, empty !== undefined);
  if (unsupported) {
    req.resume();
    throw new Unsupported(unsupported);
  }
  const text = await readBody(req, max);
  if (empty !== undefined && text.trim() === '') return empty;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('the body is not JSON');
  }
}

/** A body whose Content-Type is not JSON: 415. */
class Unsupported extends Error {}

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
      json(res, e instanceof Unsupported ? 415 : 400, { error: (e as Error).message });
      return true;
    }
    if (!isObject(answer)) return (json(res, 400, { error: 'the answer must be a JSON object' }), true);
    const refused = g.answer(m[1]!, answer);
    if (refused === undefined) json(res, 200, { answered: m[1] });
    else json(res, /no pending question/.test(refused) ? 404 : 400, { error: refused });
    return true;
  };
}

/** A task id: a UUID (server/tasks.ts). */
const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The header a /v1/tasks caller names its identity in: `Mcpx-Identity: <name>` is the identity a
 *  request naming `_meta["dev.mcpx/session"]: <name>` has (`client:<name>`, server/server.ts
 *  identityOf). A name that is not plain ASCII travels as `=?base64?…?=` (wire/headers.ts). */
const IDENTITY_HEADER = 'Mcpx-Identity';

/** `name` as the Mcpx-Identity header carries it. */
export function identityHeader(name: string): Record<string, string> {
  return { [IDENTITY_HEADER]: encodeHeaderValue(name) };
}

/** A refusal of /v1/tasks: its HTTP status and message. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Whose tasks a /v1/tasks request is about: the identity it names, or undefined for every task (only
 *  with tasks.adminAccess). */
function callerOf(
  req: IncomingMessage,
  settings: Settings,
  sessionIdentity: (id: string) => string | undefined,
): string | undefined {
  // A token's caller sees its own tasks, whatever it names (docs/security.md "Two ways in").
  const principal = principalOf(req);
  if (principal) return principalIdentity(principal);
  const named = header(req, IDENTITY_HEADER.toLowerCase());
  const session = header(req, 'mcp-session-id');
  if (named !== undefined && session !== undefined)
    throw new Refusal(400, `Send one of ${IDENTITY_HEADER} and Mcp-Session-Id, not both`);
  if (named !== undefined) {
    const name = decodeHeaderValue(named.trim());
    if (!name)
      throw new Refusal(
        400,
        `${IDENTITY_HEADER} must name an identity (the _meta["dev.mcpx/session"] of its calls), plain or =?base64?…?=`,
      );
    return namedIdentity(name);
  }
  if (session !== undefined) {
    const identity = sessionIdentity(session);
    // The id is not quoted back: it is the session's credential.
    if (identity === undefined) throw new Refusal(404, 'Session not found: the Mcp-Session-Id is unknown or has ended');
    return identity;
  }
  if (settings.get<boolean>('tasks.adminAccess')) return undefined;
  throw new Refusal(
    400,
    `Whose tasks? Name the identity in ${IDENTITY_HEADER}: <name> (the _meta["dev.mcpx/session"] of its calls) or a legacy session's Mcp-Session-Id; every task is listed without one only with tasks.adminAccess on`,
  );
}

/** One task as /v1/tasks shows it. Never its identity: a session name is a credential. */
function rowOf(t: TaskView): JsonObject {
  const p = t.call.progress;
  return {
    id: t.id,
    kind: 'task',
    label: t.info.label,
    client: t.info.client ?? null,
    era: t.info.era,
    status: t.status,
    statusMessage: t.statusMessage ?? null,
    createdAt: new Date(t.createdAt).toISOString(),
    updatedAt: new Date(t.updatedAt).toISOString(),
    progress: p ? (p.total === undefined ? { progress: p.progress } : { progress: p.progress, total: p.total }) : null,
  };
}

/** The row, with the result of a completed task, or the error of a failed one (a legacy tool's isError
 *  result fails its task: that result, then). */
function detailOf(t: TaskView): JsonObject {
  const row = rowOf(t);
  const o = t.call.finished;
  if (t.status === 'completed' && o?.result) row.result = o.result;
  if (t.status === 'failed') {
    if (o?.error !== undefined) row.error = errorOf(o.error);
    else if (o?.result) row.result = o.result;
  }
  return row;
}

function errorOf(e: unknown): JsonObject {
  if (isTypedError(e)) return e.toWire() as unknown as JsonObject;
  return { message: e instanceof Error ? e.message : String(e) };
}

/** /v1/tasks: the tasks of the identity a request names (docs/security.md "Tasks belong to their
 *  owner"), and the 2026-07-28 background calls it abandoned (app/background.ts). A task or call of
 *  another identity is 404, the same answer as one that never existed. */
export function tasksRoute(
  board: TaskBoard,
  settings: Settings,
  sessionIdentity: (id: string) => string | undefined,
  background?: BackgroundBoard,
  /** A team's replica: the other replicas' tasks of the caller (app/team.ts). */
  elsewhere?: (identity: string | undefined) => Promise<JsonObject[]>,
): Route {
  /** The task `id` as `caller` may see it: a task started by a request alone is reached by its id; else
   *  its owner's abandoned background call of that id. */
  const taskFor = (id: string, caller: string | undefined): TaskView | BackgroundCall => {
    const t = board.find(id);
    const call = t ? undefined : background && ownedCall(background, id, caller);
    if (call) return call;
    if (!t || (caller !== undefined && !t.visibleTo(caller)))
      // Quoted only when it has a task id's shape: a path segment may be anything, the secret included.
      throw new Refusal(
        404,
        `No task${TASK_ID.test(id) ? ` ${JSON.stringify(id)}` : ''} (unknown, expired, or not yours)`,
      );
    return t;
  };
  const only = (res: ServerResponse, method: string, why: string): never => {
    res.setHeader('Allow', method);
    throw new Refusal(405, why);
  };
  return async (req, res, url) => {
    const path = url.pathname;
    if (path !== '/v1/tasks' && !path.startsWith('/v1/tasks/')) return false;
    try {
      if (path === '/v1/tasks') {
        if (req.method !== 'GET') only(res, 'GET', 'GET lists tasks');
        const caller = callerOf(req, settings, sessionIdentity);
        const calls = background ? abandonedOf(background, caller).map(callRow) : [];
        const others = elsewhere ? await elsewhere(caller) : [];
        json(res, 200, { tasks: [...board.list(caller).map(rowOf), ...calls, ...others] });
        return true;
      }
      const m = /^\/v1\/tasks\/([^/]+)(\/cancel)?$/.exec(path);
      if (!m)
        throw new Refusal(
          404,
          `No route for ${req.method} at this path: /v1/tasks, /v1/tasks/{id}, /v1/tasks/{id}/cancel`,
        );
      const id = m[1]!; // a task id is a UUID: nothing in it is escaped
      if (!m[2]) {
        if (req.method !== 'GET') only(res, 'GET', `GET shows a task; POST /v1/tasks/{id}/cancel cancels it`);
        const t = taskFor(id, callerOf(req, settings, sessionIdentity));
        json(res, 200, { task: t instanceof BackgroundCall ? callDetail(t) : detailOf(t) });
        return true;
      }
      if (req.method !== 'POST') only(res, 'POST', 'POST cancels a task');
      const caller = callerOf(req, settings, sessionIdentity);
      let reason = 'cancelled through /v1/tasks';
      try {
        const b = await body(req, 16 * 1024, {});
        if (!isObject(b)) throw new Error('the body must be a JSON object, {"reason"?: string}');
        if (b.reason !== undefined && typeof b.reason !== 'string') throw new Error('"reason" must be a string');
        if (b.reason) reason = b.reason;
      } catch (e) {
        throw new Refusal(e instanceof Unsupported ? 415 : 400, (e as Error).message);
      }
      const t = taskFor(id, caller);
      if (t instanceof BackgroundCall) {
        // A call that ended waits only to be collected: cancelling it is refused, as for a task.
        if (t.finished) json(res, 409, { error: `Call ${id} has already ended (${t.status})`, task: callRow(t) });
        else if (background?.cancel(id, reason)) json(res, 200, { task: { ...callRow(t), status: 'cancelled' } });
        else throw new Refusal(404, `No task ${JSON.stringify(id)} (unknown, expired, or not yours)`);
      } else if (t.cancel(reason)) json(res, 200, { task: rowOf(t) });
      else json(res, 409, { error: `Task ${id} has already ended (${t.status})`, task: rowOf(t) });
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      json(res, e.status, { error: e.message });
    }
    return true;
  };
}

/** POST /v1/reload: read the configuration again and apply it in place (docs/gateway.md "Changing the
 *  configuration"): 200 with what was added, removed, changed and kept; 422 with the problems of a
 *  configuration that was refused (the running one is kept). Behind the endpoint secret, like all /v1. */
export function reloadRoute(reload: () => Promise<ConfigDiff>): Route {
  return async (req, res, url) => {
    if (url.pathname !== '/v1/reload') return false;
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      json(res, 405, { error: 'POST reloads the configuration' });
      return true;
    }
    try {
      json(res, 200, await reload());
    } catch (e) {
      if (!(e instanceof ReloadError)) throw e;
      json(res, 422, { error: e.message, problems: e.problems });
    }
    return true;
  };
}

/** GET /v1/permissions: the rules in force and every "always allow"; DELETE /v1/permissions/grants/{id}
 *  revokes one (404: no such grant). `mcpx permissions` reads them (docs/gateway.md "Permissions"). */
function permissionsRoute(g: Pick<GatewayFacade, 'permissions' | 'grants' | 'revokeGrant'>): Route {
  return async (req, res, url) => {
    if (url.pathname === '/v1/permissions' && req.method === 'GET') {
      json(res, 200, { permissions: g.permissions(), grants: g.grants() });
      return true;
    }
    const m = /^\/v1\/permissions\/grants\/([0-9a-f-]{36})$/.exec(url.pathname);
    if (!m) return false;
    if (req.method !== 'DELETE') {
      res.setHeader('Allow', 'DELETE');
      json(res, 405, { error: 'DELETE revokes a grant' });
      return true;
    }
    if (await g.revokeGrant(m[1]!)) json(res, 200, { revoked: m[1] });
    else json(res, 404, { error: `no grant ${m[1]}` });
    return true;
  };
}

/** The gateway's /v1 routes: its questions, its permissions, its pins, its profiles, its servers' restart,
 *  its event stream, its activity log, and the HTTP API (app/api.ts). */
export function gatewayRoutes(g: GatewayFacade & ApiHost & Required<Pick<Provider, 'subscribe'>>): Route[] {
  return [
    questionsRoute(g),
    permissionsRoute(g),
    pinsRoute(g),
    profilesRoute(g),
    serversRoute(g),
    eventsRoute(g, { keepAliveMs: () => g.settings.duration('transport.sseKeepAlive') }),
    activityRoute(g),
    ...apiRoutes(g),
  ];
}

/** GET /health: that this is an mcpx gateway, its version, the revisions it speaks and how many legacy
 *  sessions it holds — nothing else, and open without the endpoint secret (docs/security.md "/health").
 *  No CORS header: a page of another origin cannot read it (Origin and Host are checked before). */
export function healthRoute(version: string, sessions: () => number): Route {
  return (req, res, url) => {
    if (url.pathname !== '/health') return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      json(res, 405, { error: 'GET only' });
      return true;
    }
    sendJson(
      res,
      200,
      { ok: true, name: 'mcpx', version, revisions: [...NEWEST_FIRST], sessions: sessions() },
      { headers: { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' } },
    );
    return true;
  };
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
      methods: methodTable(),
      spec: { precedence: policy.precedence, lenient: policy.lenient, first: policy.first },
    });
    return true;
  };
}
