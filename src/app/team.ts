// A team's replica on the HTTP listener (docs/team.md): GET /v1/questions lists every replica's questions,
// and a question, task or background call another live replica holds — answered, shown, cancelled
// through /v1 — is relayed to it (transport/forward.ts); GET /ready says whether this replica can serve
// (its store answers), beside /health, which says only that it runs.
import type { Question } from '../gateway/editorPort';
import type { JsonObject } from '../protocol/jsonrpc';
import type { ServerOptions } from '../server/server';
import { type Affinity, type Peer, forward, relayed } from '../transport/forward';
import type { Route } from '../transport/http';
import { sendJson } from '../wire/json';

/** What a team gives the listener (src/team/team.ts makes it). */
export interface TeamPorts {
  readonly records: NonNullable<ServerOptions['records']>;
  readonly affinity: Affinity;
  /** Every replica's questions waiting now. */
  questions(): Promise<Question[]>;
  /** Whether this replica's broker holds question `id`. */
  holdsQuestion(id: string): boolean;
  /** The live replica, other than this one, that holds question `id` or task (or call) `id`. */
  questionOwner(id: string): Promise<Peer | undefined>;
  taskOwner(id: string): Promise<Peer | undefined>;
  /** The other replicas' tasks of `identity` (every one for undefined), as /v1/tasks rows. */
  tasksElsewhere(identity: string | undefined): Promise<JsonObject[]>;
  /** Whether this replica can serve now, and why not. */
  ready(): { ok: boolean; why?: string };
}

const json = (res: Parameters<Route>[1], status: number, body: unknown) =>
  sendJson(res, status, body, { pretty: true, headers: { 'Cache-Control': 'no-store' } });

/** Before the /v1 routes of one gateway: what is another replica's goes there. `holdsTask`: whether this
 *  replica's server holds task or call `id`. */
export function teamRoute(t: TeamPorts, holdsTask: (id: string) => boolean): Route {
  return async (req, res, url) => {
    const path = url.pathname;
    if (path === '/v1/questions' && req.method === 'GET') {
      json(res, 200, { questions: await t.questions() });
      return true;
    }
    if (relayed(req)) return false;
    const q = /^\/v1\/questions\/([0-9a-f-]{36})$/.exec(path);
    if (q && req.method === 'POST' && !t.holdsQuestion(q[1]!)) {
      const owner = await t.questionOwner(q[1]!);
      if (owner) return forward(req, res, owner, t.affinity.replica).then(() => true);
    }
    const task = /^\/v1\/tasks\/([0-9a-f-]{36})(\/cancel)?$/.exec(path);
    if (task && !holdsTask(task[1]!)) {
      const owner = await t.taskOwner(task[1]!);
      if (owner) return forward(req, res, owner, t.affinity.replica).then(() => true);
    }
    return false;
  };
}

/** GET /ready: 200 while this replica can serve, else 503 with why (a load balancer's readiness probe);
 *  open like /health, and saying as little. */
export function readyRoute(ready: () => { ok: boolean; why?: string }): Route {
  return (req, res, url) => {
    if (url.pathname !== '/ready') return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      json(res, 405, { error: 'GET only' });
      return true;
    }
    const r = ready();
    json(res, r.ok ? 200 : 503, r.ok ? { ready: true } : { ready: false, why: r.why });
    return true;
  };
}
