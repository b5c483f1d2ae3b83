// The wire's answers (src/wire/): the lazy SSE stream and the JSON answer, over enough of a ServerResponse
// to record what they do.
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sendJson } from '../../src/wire/json';
import { SseStream } from '../../src/wire/sse';
import { parseSse } from '../harness/wire';

/** Enough of a ServerResponse for SseStream and sendJson, recording what they do. */
class FakeResponse {
  status?: number;
  headers?: Record<string, string | number>;
  headersSent = false;
  flushed = 0;
  chunks: string[] = [];
  writableEnded = false;
  destroyed = false;
  writeHead(status: number, headers: Record<string, string | number>) {
    assert.equal(this.headersSent, false, 'writeHead called twice');
    this.status = status;
    this.headers = headers;
    this.headersSent = true;
    return this;
  }
  flushHeaders() {
    this.flushed++;
  }
  write(chunk: string) {
    assert.equal(this.writableEnded, false, 'write after end');
    this.chunks.push(chunk);
    return true;
  }
  end(chunk?: string) {
    if (chunk !== undefined) this.chunks.push(chunk);
    this.writableEnded = true;
    return this;
  }
  get body() {
    return this.chunks.join('');
  }
  as(): ServerResponse {
    return this as unknown as ServerResponse;
  }
}

describe('SseStream', () => {
  test('lazily started: nothing is written until the first event, which writes the headers then the event', () => {
    const res = new FakeResponse();
    const s = new SseStream(res.as(), 0, { 'Mcp-Session-Id': 'abc' });
    assert.equal(s.isStarted, false);
    assert.equal(res.headersSent, false);
    const msg = {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 1, progress: 1, message: 'ünïcode\nline' },
    };
    assert.equal(s.send(msg), true);
    assert.equal(s.isStarted, true);
    assert.equal(res.status, 200);
    assert.equal(res.headers!['Content-Type'], 'text/event-stream');
    assert.equal(res.headers!['Mcp-Session-Id'], 'abc', "the caller's headers are kept");
    assert.equal(res.headers!['X-Accel-Buffering'], 'no');
    assert.match(String(res.headers!['Cache-Control']), /no-cache/);
    assert.equal(res.flushed, 1);
    s.send({ jsonrpc: '2.0', id: 1, result: {} });
    assert.deepEqual(parseSse(res.body), [msg, { jsonrpc: '2.0', id: 1, result: {} }]);
    assert.ok(
      res.body
        .split('\n\n')
        .filter(Boolean)
        .every((ev) => ev.startsWith('event: message\ndata: ')),
      'each event is one data line',
    );
    assert.doesNotMatch(res.body, /^id:/m, 'no event ids: mcpx offers no resumption');
  });

  test('keep-alive comments every keepAliveMs start the stream if needed, and stop when it ends', (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const res = new FakeResponse();
    const s = new SseStream(res.as(), 1000);
    s.keepAlive();
    t.mock.timers.tick(999);
    assert.equal(res.headersSent, false, 'not before the interval');
    t.mock.timers.tick(1);
    assert.equal(res.headersSent, true, 'a keep-alive starts a stream not yet started');
    assert.equal(res.body, ':\n\n');
    s.send({ n: 1 });
    t.mock.timers.tick(2000);
    assert.equal(res.body.match(/^:\n\n/gm)?.length, 3);
    s.end();
    assert.equal(res.writableEnded, true);
    const before = res.chunks.length;
    t.mock.timers.tick(5000);
    assert.equal(res.chunks.length, before, 'no comment after end()');
  });

  test('start() starts the keep-alive once; keepAliveMs 0 means none', (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const res = new FakeResponse();
    const s = new SseStream(res.as(), 100);
    s.start();
    s.start();
    s.keepAlive();
    t.mock.timers.tick(100);
    assert.deepEqual(res.chunks, [':\n\n'], 'one timer, not three');
    s.end();
    const none = new FakeResponse();
    const quiet = new SseStream(none.as(), 0);
    quiet.start();
    t.mock.timers.tick(10_000);
    assert.deepEqual(none.chunks, []);
  });

  test('a stream whose response went away writes nothing and stops its keep-alive', (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const res = new FakeResponse();
    const s = new SseStream(res.as(), 100);
    s.send({ n: 1 });
    res.destroyed = true;
    assert.equal(s.isOpen, false);
    assert.equal(s.send({ n: 2 }), false);
    t.mock.timers.tick(1000);
    assert.equal(parseSse(res.body).length, 1);
    assert.doesNotMatch(res.body, /^:/m);
    s.end();
    assert.equal(res.writableEnded, false, 'end() does not end a response that is gone');
  });

  test('end() on a stream never started writes nothing (the caller answers with plain JSON)', (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const res = new FakeResponse();
    const s = new SseStream(res.as(), 100);
    s.keepAlive();
    s.end();
    t.mock.timers.tick(1000);
    assert.equal(res.headersSent, false);
    assert.equal(res.writableEnded, false);
    assert.deepEqual(res.chunks, []);
  });

  describe('over a real loopback socket', () => {
    let server: Server;
    let url: string;
    before(async () => {
      server = createServer((_req, res) => {
        const s = new SseStream(res, 0);
        s.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'first' } });
        setImmediate(() => {
          s.send({ jsonrpc: '2.0', id: 7, result: { ok: true } });
          s.end();
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    });
    after(() => new Promise<void>((r) => server.close(() => r())));

    test('the client reads the events in order and the stream ends', async () => {
      const res = await fetch(url);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/event-stream');
      assert.deepEqual(parseSse(await res.text()), [
        { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'first' } },
        { jsonrpc: '2.0', id: 7, result: { ok: true } },
      ]);
    });
  });
});

describe('sendJson', () => {
  test('status, JSON content type and the byte length of the body (not its string length)', () => {
    const res = new FakeResponse();
    const body = { text: 'naïve ✓', n: 1 };
    sendJson(res.as(), 201, body, { headers: { 'X-Extra': 'yes', 'Content-Type': 'text/plain' } });
    assert.equal(res.status, 201);
    assert.equal(res.headers!['Content-Type'], 'application/json', 'the JSON content type wins');
    assert.equal(res.headers!['X-Extra'], 'yes');
    assert.equal(res.headers!['Content-Length'], Buffer.byteLength(res.body));
    assert.notEqual(res.headers!['Content-Length'], res.body.length);
    assert.deepEqual(JSON.parse(res.body), body);
    assert.equal(res.writableEnded, true);
  });

  test('pretty output is indented and parses to the same value', () => {
    const res = new FakeResponse();
    sendJson(res.as(), 200, { a: [1, 2] }, { pretty: true });
    assert.match(res.body, /\n {2}"a"/);
    assert.deepEqual(JSON.parse(res.body), { a: [1, 2] });
  });

  test('after the headers were sent it only ends the response', () => {
    const res = new FakeResponse();
    res.headersSent = true;
    sendJson(res.as(), 500, { error: 'x' });
    assert.equal(res.status, undefined);
    assert.deepEqual(res.chunks, []);
    assert.equal(res.writableEnded, true);
  });
});
