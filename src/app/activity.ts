// GET /v1/activity (docs/gateway.md "Activity"): the activity log's records, newest first, filtered by
// client, server and time; `follow=1` an SSE stream — the last records, oldest first, then each new one
// as it is recorded — bounded by what its reader leaves unread and ended when the reader goes. Behind the
// endpoint secret, like every /v1 route. Records are shown as they are stored: never a result; the
// arguments only under `activity.arguments: full`, redacted.
import type { ServerResponse } from 'node:http';
import { parseDuration } from '../config/settings';
import { matchesFilter } from '../gateway/activity/files';
import type { ActivityFilter, ActivityRecord, GatewayFacade } from '../gateway/editorPort';
import type { Route } from '../transport/http';
import { sendJson } from '../wire/json';
import { SseStream } from '../wire/sse';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 10_000;
/** Followers at once, and the bytes one may leave unread before its stream is ended. */
const MAX_FOLLOWERS = 16;
const MAX_UNREAD = 1024 * 1024;

export class BadQuery extends Error {}

/** `since`: an ISO 8601 time, or a duration back from now (`1h`, `30m`, `7d`). */
export function sinceOf(v: string): number {
  const ago = parseDuration(v);
  if (ago !== undefined) return Date.now() - ago;
  const at = Date.parse(v);
  if (Number.isNaN(at))
    throw new BadQuery(`since: expected an ISO 8601 time or a duration like 1h, got ${JSON.stringify(v)}`);
  return at;
}

function queryOf(url: URL): { filter: ActivityFilter; limit: number; follow: boolean } {
  const q = url.searchParams;
  for (const k of q.keys())
    if (!['client', 'server', 'since', 'limit', 'follow'].includes(k))
      throw new BadQuery(`unknown parameter ${JSON.stringify(k)}: client, server, since, limit, follow`);
  const raw = q.get('limit');
  const limit = raw === null ? DEFAULT_LIMIT : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new BadQuery(`limit: expected an integer from 1 to ${MAX_LIMIT}, got ${JSON.stringify(raw)}`);
  const follow = q.get('follow');
  if (follow !== null && follow !== '1' && follow !== '0') throw new BadQuery('follow: expected 1 or 0');
  const since = q.get('since');
  return {
    filter: {
      ...(q.get('client') !== null ? { client: q.get('client')! } : {}),
      ...(q.get('server') !== null ? { server: q.get('server')! } : {}),
      ...(since !== null ? { since: sinceOf(since) } : {}),
    },
    limit,
    follow: follow === '1',
  };
}

export function activityRoute(g: Pick<GatewayFacade, 'activity' | 'settings'>): Route {
  let followers = 0;
  return async (req, res, url) => {
    if (url.pathname !== '/v1/activity') return false;
    const json = (status: number, body: unknown) => sendJson(res, status, body, { pretty: true });
    if (req.method !== 'GET') {
      res.setHeader('Allow', 'GET');
      json(405, { error: 'GET reads the activity log' });
      return true;
    }
    let q: ReturnType<typeof queryOf>;
    try {
      q = queryOf(url);
    } catch (e) {
      if (!(e instanceof BadQuery)) throw e;
      json(400, { error: e.message });
      return true;
    }
    if (!q.follow) {
      json(200, { records: await g.activity.history(q.filter, q.limit) });
      return true;
    }
    if (followers >= MAX_FOLLOWERS) {
      json(429, { error: `${MAX_FOLLOWERS} activity streams are open already; close one` });
      return true;
    }
    followers++;
    follow(res, g, q, () => followers--);
    return true;
  };
}

/** The stream: new records are held from the start, sent after the history, those it showed skipped. */
function follow(
  res: ServerResponse,
  g: Pick<GatewayFacade, 'activity' | 'settings'>,
  q: ReturnType<typeof queryOf>,
  gone: () => void,
): void {
  const stream = new SseStream(res, g.settings.duration('transport.sseKeepAlive'));
  let held: ActivityRecord[] | undefined = [];
  let shownBefore = new Set<string>();
  const send = (r: ActivityRecord) => {
    if (!stream.isOpen) return;
    if (res.writableLength > MAX_UNREAD) {
      res.write(`event: end\ndata: ${JSON.stringify({ reason: `more than ${MAX_UNREAD} bytes unread` })}\n\n`);
      return end();
    }
    res.write(`event: record\ndata: ${JSON.stringify(r)}\n\n`);
  };
  const off = g.activity.onRecord((r) => {
    if (!matchesFilter(r, q.filter, q.filter.since ?? 0)) return;
    const s = g.activity.shown(r);
    if (held) held.push(s);
    else send(s);
  });
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    off();
    stream.end();
    gone();
  };
  res.on('close', end);
  stream.start();
  void g.activity.history(q.filter, q.limit).then(
    (past) => {
      for (const r of past.reverse()) {
        send(r);
        shownBefore.add(JSON.stringify(r));
      }
      const later = held!.filter((r) => !shownBefore.has(JSON.stringify(r)));
      held = undefined;
      shownBefore = new Set();
      for (const r of later) send(r);
    },
    () => end(),
  );
}
