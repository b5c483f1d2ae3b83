// GET /v1/events (docs/gateway.md "Events and watches"): the gateway's events as an SSE stream held open
// with keep-alive comments; with `?uri=mcpx://SERVER/URI` (or `?server=SERVER&uri=URI`, the same watch
// named by its server and the upstream's own URI), a watch instead — the stream holds a
// subscription to that resource for as long as it is open (the first event, `resource.watching`, says what
// was subscribed or why nothing was), carries its `resource.updated` events, and releases it when it
// closes; a reader reconnects to subscribe again. Either stream is bounded by what its reader leaves
// unread: past the bound it is ended with an `end` event saying why, never buffered without limit.
import type { ServerResponse } from 'node:http';
import type { GatewayFacade } from '../gateway/facade';
import { toGatewayUri } from '../gateway/uris';
import type { Provider } from '../server/provider';
import { principalOf } from '../transport/credentials';
import type { Route } from '../transport/http';
import { sendJson } from '../wire/json';
import { SseStream } from '../wire/sse';

/** Bytes a reader may leave unread before its stream is ended, and watch streams open at once. */
const MAX_UNREAD = 1024 * 1024;
const MAX_WATCHES = 64;
/** The gateway's events a token's caller sees: servers' states and list changes, nobody's calls. */
const TOKEN_EVENTS = new Set(['server.state', 'list.changed', 'resource.updated', 'pins.held']);

export interface EventsOptions {
  keepAliveMs(): number;
  /** Bytes a reader may leave unread (default 1 MiB). */
  maxUnread?: number;
}

type EventSource = Pick<GatewayFacade, 'onEvent'> & Required<Pick<Provider, 'subscribe'>>;

/** One stream's writer: each event while the reader keeps up, else an `end` event and the stream closed. */
function writer(res: ServerResponse, stream: SseStream, maxUnread: number, ended: () => void) {
  return (type: string, data: unknown) => {
    if (!stream.isOpen) return;
    if (res.writableLength > maxUnread) {
      res.write(
        `event: end\ndata: ${JSON.stringify({ reason: `the reader left more than ${maxUnread} bytes unread; reconnect to continue` })}\n\n`,
      );
      stream.end();
      ended();
      return;
    }
    res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  };
}

export function eventsRoute(g: EventSource, o: EventsOptions): Route {
  const maxUnread = o.maxUnread ?? MAX_UNREAD;
  let watching = 0;
  return async (req, res, url) => {
    if (url.pathname !== '/v1/events') return false;
    const json = (status: number, body: unknown) => sendJson(res, status, body, { pretty: true });
    if (req.method !== 'GET') {
      res.setHeader('Allow', 'GET');
      json(405, { error: 'GET opens the event stream' });
      return true;
    }
    const extra = [...url.searchParams.keys()].find((k) => k !== 'uri' && k !== 'server');
    if (extra !== undefined)
      return (json(400, { error: `unknown parameter ${JSON.stringify(extra)}: uri, server` }), true);
    const uris = url.searchParams.getAll('uri');
    if (uris.length > 1 || uris[0] === '')
      return (
        json(400, { error: 'uri: name one resource to watch, mcpx://SERVER/URI (or server=SERVER&uri=URI)' }), true
      );
    const servers = url.searchParams.getAll('server');
    if (servers.length > 1 || servers[0] === '' || (servers.length === 1 && uris.length === 0))
      return (json(400, { error: 'server: name one server, with the resource as uri=URI' }), true);
    // The server's own URI is the mcpx:// one that names it.
    if (servers.length === 1) uris[0] = toGatewayUri(servers[0]!, uris[0]!);
    const stream = new SseStream(res, o.keepAliveMs());
    let close = () => undefined as void;
    const send = writer(res, stream, maxUnread, () => close());
    if (uris.length === 0) {
      stream.start();
      // A token's caller gets the events that say nothing of another's calls (docs/security.md "Two ways in").
      const open = principalOf(req) === undefined;
      const off = g.onEvent((e) => (open || TOKEN_EVENTS.has(e.type)) && send(e.type, e));
      close = off;
      res.on('close', () => {
        off();
        stream.end();
      });
      return true;
    }
    if (watching >= MAX_WATCHES)
      return (json(429, { error: `${MAX_WATCHES} watch streams are open already; close one` }), true);
    watching++;
    const uri = uris[0]!;
    let gone = false;
    let release = () => undefined as void;
    close = () => {
      if (gone) return;
      gone = true;
      watching--;
      release();
      stream.end();
    };
    res.on('close', close);
    stream.start();
    // `resource.watching` is the first event: an update before it is sent after it.
    let said = false;
    let early: string | undefined;
    const updated = (u: string) => send('resource.updated', { type: 'resource.updated', uri: u, at: Date.now() });
    let watch: Awaited<ReturnType<EventSource['subscribe']>>;
    try {
      watch = await g.subscribe(uri, (u) => (said ? updated(u) : (early = u)));
    } catch (e) {
      watch = { deliverable: false, reason: (e as Error).message, release: () => undefined };
    }
    // The reader may have gone while the subscription was made: it is released at once.
    release = watch.release;
    if (gone) return (release(), true);
    send('resource.watching', {
      type: 'resource.watching',
      uri,
      subscribed: watch.deliverable,
      ...(watch.reason !== undefined ? { reason: watch.reason } : {}),
      at: Date.now(),
    });
    said = true;
    if (early !== undefined) updated(early);
    // No update will come: the stream has said why, and ends.
    if (!watch.deliverable) close();
    return true;
  };
}
