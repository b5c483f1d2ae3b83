// Watches over GET /v1/events?uri=… (docs/gateway.md "Events and watches") on a real gateway's listener over
// fixture upstreams (stdio; one legacy, one 2026-07-28): the stream holds a subscription while it is open
// (first event `resource.watching`), carries the resource's updates, releases the subscription when it
// closes and subscribes again on reconnecting; a URI that cannot be watched is said so, and the stream ends.
// The event stream's bound: a reader that does not read is ended with an `end` event, not buffered.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eventsRoute } from '../../src/app/events';
import { EventBus } from '../../src/gateway/events';
import { parseSse } from '../harness/wire';
import { type TestGateway, fixtureCommand, gatewayFor } from '../harness/upstreams';
import { turn, until } from '../harness/wait';

type Json = Record<string, unknown>;

let gw: TestGateway;
const record = join(tmpdir(), `mcpx-http-watch-${process.pid}.jsonl`);
const base = () => gw.bare.replace(/\/mcp$/, '');
const auth = () => ({ Authorization: `Bearer ${gw.secret}` });

before(async () => {
  gw = await gatewayFor({
    up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--record', record]),
    modern: fixtureCommand(['--rev', '2026-07-28', '--name', 'modern']),
  });
});
after(async () => {
  await gw?.close();
  rmSync(record, { force: true });
});

const received = (method: string) =>
  readFileSync(record, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { dir: string; frame: Json })
    .filter((l) => l.dir === 'in' && l.frame.method === method).length;

/** A watch stream: its events as they come, and its close. */
async function watch(uri: string, query = `uri=${encodeURIComponent(uri)}`) {
  const ctl = new AbortController();
  const res = await fetch(`${base()}/v1/events?${query}`, {
    headers: auth(),
    signal: ctl.signal,
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  let done = false;
  const events = () => parseSse(text) as Json[];
  return {
    events,
    async next(type: string): Promise<Json> {
      for (;;) {
        const hit = events().find((e) => e.type === type);
        if (hit) return hit;
        if (done) throw new Error(`the stream ended before ${type}: ${text}`);
        const r = await reader.read();
        if (r.done) done = true;
        else text += r.value;
      }
    },
    async ended(): Promise<boolean> {
      while (!done) {
        const r = await reader.read();
        if (r.done) done = true;
        else text += r.value;
      }
      return done;
    },
    close: () => ctl.abort(),
  };
}

const touch = (server: string, uri: string) =>
  fetch(`${base()}/v1/call/${server}/touch`, {
    method: 'POST',
    headers: { ...auth(), 'Content-Type': 'application/json' },
    body: JSON.stringify({ uri }),
  });

describe('GET /v1/events?uri=', () => {
  test('a legacy upstream: subscribed for the life of the stream, updated, released on close, again on reconnect', async () => {
    const uri = 'mcpx://up/fixture://doc';
    const w = await watch(uri);
    const first = await w.next('resource.watching');
    assert.equal(w.events()[0]!.type, 'resource.watching', 'the first event');
    assert.equal(first.uri, uri);
    assert.equal(first.subscribed, true);
    assert.equal(received('resources/subscribe'), 1);
    assert.deepEqual(
      gw.g.watches().map((r) => [r.server, r.uri, r.watchers]),
      [['up', 'fixture://doc', 1]],
    );
    assert.equal((await touch('up', 'fixture://doc')).status, 200);
    const update = await w.next('resource.updated');
    assert.equal(update.uri, uri, 'in the form it was asked for');
    w.close();
    await until(() => gw.g.watches().length === 0, { what: 'released when the stream closed' });
    await until(() => received('resources/unsubscribe') === 1, { what: 'unsubscribed upstream' });
    const again = await watch(uri);
    assert.equal((await again.next('resource.watching')).subscribed, true);
    assert.equal(received('resources/subscribe'), 2, 'subscribed again on reconnecting');
    again.close();
    await until(() => gw.g.watches().length === 0, { what: 'released again' });
  });

  test('?server=NAME&uri=URI: the same watch, named by its server and the upstream’s own URI', async () => {
    const w = await watch('', `server=up&uri=${encodeURIComponent('fixture://doc')}`);
    const first = await w.next('resource.watching');
    assert.equal(first.subscribed, true);
    assert.equal(first.uri, 'mcpx://up/fixture://doc', 'named as the mcpx:// URI it is');
    assert.deepEqual(
      gw.g.watches().map((r) => [r.server, r.uri]),
      [['up', 'fixture://doc']],
    );
    assert.equal((await touch('up', 'fixture://doc')).status, 200);
    assert.equal((await w.next('resource.updated')).uri, 'mcpx://up/fixture://doc');
    w.close();
    await until(() => gw.g.watches().length === 0, { what: 'released' });
  });

  test('a 2026-07-28 upstream: held on its listen stream, updated', async () => {
    const uri = 'mcpx://modern/fixture://doc';
    const w = await watch(uri);
    assert.equal((await w.next('resource.watching')).subscribed, true);
    assert.equal((await touch('modern', 'fixture://doc')).status, 200);
    assert.equal((await w.next('resource.updated')).uri, uri);
    w.close();
    await until(() => gw.g.watches().length === 0, { what: 'released' });
  });

  test('a URI nothing serves: resource.watching says why, and the stream ends', async () => {
    const w = await watch('mcpx://nowhere/x');
    const first = await w.next('resource.watching');
    assert.equal(first.subscribed, false);
    assert.match(String(first.reason), /names no configured server/);
    assert.equal(await w.ended(), true);
    assert.equal(gw.g.watches().length, 0);
  });

  test('bad queries: 400', async () => {
    for (const q of ['uri=', 'uri=a&uri=b', 'other=1', 'server=up', 'server=&uri=x', 'server=a&server=b&uri=x']) {
      const res = await fetch(`${base()}/v1/events?${q}`, { headers: auth() });
      assert.equal(res.status, 400, q);
      assert.ok(((await res.json()) as Json).error);
    }
  });
});

describe('the bound on unread events', () => {
  test('a reader that does not read is ended with an end event, not buffered', async () => {
    const bus = new EventBus();
    let listeners = 0;
    const route = eventsRoute(
      {
        onEvent: (l) => {
          listeners++;
          const off = bus.on(l);
          return () => {
            listeners--;
            off();
          };
        },
        subscribe: async () => ({ deliverable: false, release: () => undefined }),
      },
      { keepAliveMs: () => 0, maxUnread: 64 * 1024 },
    );
    const server = createServer((req, res) => void route(req, res, new URL(req.url!, 'http://127.0.0.1')));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    try {
      socket.pause();
      socket.write('GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      await until(() => listeners === 1, { what: 'the stream is open' });
      // The reader reads nothing: events pile up until the bound ends the stream (at most 64 MiB sent).
      const data = 'x'.repeat(64 * 1024);
      for (let i = 0; i < 1024 && listeners === 1; i++) {
        bus.emit({ type: 'server.log', server: 's', level: 'info', data });
        await turn();
      }
      assert.equal(listeners, 0, 'the stream ended and stopped listening');
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (text += d));
      socket.resume();
      await new Promise((r) => socket.once('end', r));
      const blocks = text.split('\n\n').filter((b) => b.includes('event: '));
      assert.match(blocks.at(-1)!, /event: end\ndata: .*more than 65536 bytes unread/);
    } finally {
      socket.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});
