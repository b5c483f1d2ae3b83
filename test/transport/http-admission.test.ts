// Admission before the body is read (docs/security.md "Bounds", "Which bound answers"): requests in
// flight per connection (pipelined on one socket) and per identity (a legacy session, across
// connections) are counted on the request head; past a bound the answer is 429 with Retry-After and a
// -32603 naming the setting, given while the client is still sending a body that is never parsed.
// Another identity is admitted meanwhile. Raw sockets (node:net) where fetch cannot pipeline or stop
// half-way through a body.
import assert from 'node:assert/strict';
import { type Socket, connect } from 'node:net';
import { describe, test } from 'node:test';
import { heldProvider } from '../harness/memory';
import { startTestServer } from '../harness/gateway';
import { HttpClient, type Json } from '../harness/wire';

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
/** The body the refused requests announce: far more than they ever send. */
const ANNOUNCED = 1_000_000;
/** What they send of it: not JSON, and not all of it. */
const GARBAGE = '{"jsonrpc": "2.0", "id": 1, "method": [[[[ not json'.padEnd(4096, '{');

interface Reply {
  status: number;
  head: string;
  body: Json;
}

/** Reads HTTP responses off `socket` as they arrive, each complete (Content-Length). */
class Replies {
  private buf = Buffer.alloc(0);
  private readonly waiting: (() => void)[] = [];
  closed = false;

  constructor(socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      for (const w of this.waiting.splice(0)) w();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      for (const w of this.waiting.splice(0)) w();
    });
  }

  async next(): Promise<Reply> {
    for (;;) {
      const at = this.buf.indexOf('\r\n\r\n');
      if (at >= 0) {
        const head = this.buf.subarray(0, at).toString('latin1');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (this.buf.length >= at + 4 + length) {
          const body = this.buf.subarray(at + 4, at + 4 + length).toString('utf8');
          this.buf = this.buf.subarray(at + 4 + length);
          return {
            status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
            head,
            body: body ? (JSON.parse(body) as Json) : {},
          };
        }
      }
      if (this.closed) throw new Error('closed before a whole response arrived');
      await new Promise<void>((r) => this.waiting.push(r));
    }
  }
}

/** A POST head to the MCP endpoint with the secret in the path. */
function postHead(port: number, secret: string, length: number, extra: string[] = []): string {
  return [
    `POST /mcp/${secret} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    `Content-Length: ${length}`,
    ...extra,
    '',
    '',
  ].join('\r\n');
}

function assertRefused(r: Reply, setting: string): void {
  assert.equal(r.status, 429, r.head);
  assert.match(r.head, /\r\nretry-after: 1(\r\n|$)/i);
  const body = r.body;
  assert.equal(body.jsonrpc, '2.0');
  assert.equal('id' in body, false, 'no id: the request was not read');
  const error = body.error as Json;
  assert.equal(error.code, -32603);
  assert.match(String(error.message), new RegExp(setting.replace('.', '\\.')));
}

/** Answered with a result (a 2026-07-28 one carries its envelope). */
const served = (ex: { result?: Json; error?: Json }) =>
  assert.ok(ex.result !== undefined && ex.error === undefined, JSON.stringify(ex));

const hold = (c: HttpClient, key: string) => c.request('tools/call', { name: 'hold', arguments: { key } });

describe('admission before the body is read', () => {
  test('per identity, across connections: past transport.maxInflightPerIdentity a session gets 429 before it has sent its body; another session and a sessionless client are served meanwhile', {
    timeout: 60_000,
  }, async () => {
    const provider = heldProvider();
    const gw = await startTestServer({ 'transport.maxInflightPerIdentity': 2 }, { provider });
    const sockets: Socket[] = [];
    try {
      const a = new HttpClient(gw.url, LEGACY);
      await a.initialize();
      // Two calls of session a in flight, each on a connection of its own.
      const calls = [hold(a, 'a1'), hold(a, 'a2')];
      // Should an assertion fail first, the calls end with the gateway: not an unhandled rejection.
      for (const c of calls) c.catch(() => undefined);
      await Promise.all([provider.whenStarted('a1'), provider.whenStarted('a2')]);
      // The third announces a megabyte of body and sends 4 KB of what is not JSON: the answer comes while
      // the rest is still unsent, so the body was neither awaited nor parsed (a parse would be -32700 and
      // would need all of it).
      const s = connect(gw.port, '127.0.0.1');
      sockets.push(s);
      const replies = new Replies(s);
      s.write(postHead(gw.port, gw.secret!, ANNOUNCED, [`Mcp-Session-Id: ${a.sessionId}`]));
      s.write(GARBAGE);
      assertRefused(await replies.next(), 'transport.maxInflightPerIdentity');
      assert.ok(!s.destroyed && s.bytesWritten < ANNOUNCED, 'the client had not finished its body');
      // Another identity at the same moment: a second session, and a request outside any session.
      const b = new HttpClient(gw.url, LEGACY);
      await b.initialize();
      assert.deepEqual((await b.request('ping')).result, {});
      assert.deepEqual((await new HttpClient(gw.url, LEGACY).request('ping')).result, {});
      served(await new HttpClient(gw.url, MODERN).request('tools/list'));
      assert.deepEqual(provider.started, ['a1', 'a2'], 'the refused request never reached the server');
      // Session a is served again once one of its calls is answered.
      provider.release('a1');
      await calls[0];
      assert.deepEqual((await a.request('ping')).result, {});
      provider.release('a2');
      const done = await Promise.all(calls);
      assert.deepEqual(
        done.map((d) => ((d.result!.content as Json[])[0] as Json).text),
        ['hold a1', 'hold a2'],
      );
    } finally {
      for (const s of sockets) s.destroy();
      await gw.close();
    }
  });

  for (const era of [LEGACY, MODERN]) {
    test(`per connection (${era}): a request pipelined behind transport.maxInflightPerConnection in flight on one socket gets 429 before its body is sent; another connection is served`, {
      timeout: 60_000,
    }, async () => {
      const provider = heldProvider();
      const gw = await startTestServer({ 'transport.maxInflightPerConnection': 1 }, { provider });
      const sockets: Socket[] = [];
      try {
        const call = JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'hold', arguments: { key: 'p1' } },
        });
        const s = connect(gw.port, '127.0.0.1');
        sockets.push(s);
        const replies = new Replies(s);
        // A whole request that runs until released, then, on the same socket at once, the head of a
        // second and a part of its body. The first is a legacy one outside any session; the second is
        // of the era under test.
        const eraHeaders =
          era === MODERN ? [`MCP-Protocol-Version: ${MODERN}`, 'Mcp-Method: tools/call', 'Mcp-Name: hold'] : [];
        s.write(postHead(gw.port, gw.secret!, Buffer.byteLength(call)) + call);
        s.write(postHead(gw.port, gw.secret!, ANNOUNCED, eraHeaders) + GARBAGE);
        await provider.whenStarted('p1');
        // Another connection at the same moment is served.
        assert.deepEqual((await new HttpClient(gw.url, LEGACY).request('ping')).result, {});
        provider.release('p1');
        // HTTP/1.1 answers in order: the first request's result, then the refusal of the second, which
        // was counted in while the first was in flight (admitted, it would still wait for its body).
        const first = await replies.next();
        assert.equal(first.status, 200);
        assert.equal((((first.body.result as Json).content as Json[])[0] as Json).text, 'hold p1');
        assertRefused(await replies.next(), 'transport.maxInflightPerConnection');
        assert.ok(s.bytesWritten < ANNOUNCED, 'the client had not finished its body');
        assert.deepEqual(provider.started, ['p1'], 'the refused request never reached the server');
      } finally {
        for (const s of sockets) s.destroy();
        await gw.close();
      }
    });
  }
});
