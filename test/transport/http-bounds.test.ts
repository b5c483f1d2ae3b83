// Loopback is not a boundary (docs/security.md "Bounds"): bounds on how long a request may take to arrive
// and on how many connections are held, and legacy sessions that a flood of initialize cannot hold. Raw
// sockets (node:net) where fetch cannot say what an attacker sends.
import assert from 'node:assert/strict';
import { type Socket, connect } from 'node:net';
import { describe, test } from 'node:test';
import { startTestServer } from '../harness/gateway';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';
import { PING, type RawReply, parseReply, exchange, request, MCP_HEADERS, errorOf } from './rawHttp';

const LEGACY = '2025-11-25';
describe('connection bounds', () => {
  test('half-sent requests are closed after transport.headersTimeout / requestTimeout; an SSE stream and a long call are not', async () => {
    const gw = await startTestServer({
      'transport.headersTimeout': '150ms',
      'transport.requestTimeout': '300ms',
      'transport.sseKeepAlive': '40ms',
    });
    const sockets: Socket[] = [];
    try {
      // A legacy session's GET stream, opened before: it must outlive requestTimeout many times over.
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      const ctl = new AbortController();
      const stream = await fetch(gw.url, {
        headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': c.sessionId! },
        signal: ctl.signal,
      });
      assert.equal(stream.status, 200);
      const reader = stream.body!.getReader();
      // A call that runs well past requestTimeout, its response streamed (keep-alive comments, progress).
      const long = new HttpClient(gw.url, LEGACY).request('tools/call', {
        name: 'slow',
        arguments: { ms: 1500, steps: 3 },
      });
      const host = `Host: 127.0.0.1:${gw.port}`;
      const answers: string[] = [];
      const open = (first: string) => {
        const s = connect(gw.port, '127.0.0.1');
        let got = '';
        s.on('data', (d) => (got += d.toString('latin1')));
        s.on('close', () => answers.push(got));
        s.on('error', () => undefined);
        if (first) s.write(first);
        sockets.push(s);
      };
      // 300 sockets that sent only their first header lines, 20 that sent a whole head and part of the
      // body they announced, 20 that sent nothing at all.
      for (let i = 0; i < 300; i++) open(`POST /mcp/${gw.secret} HTTP/1.1\r\n${host}\r\n`);
      for (let i = 0; i < 20; i++)
        open(
          `POST /mcp/${gw.secret} HTTP/1.1\r\n${host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"json`,
        );
      for (let i = 0; i < 20; i++) open('');
      await until(() => sockets.every((s) => s.destroyed), { what: 'every half-sent request closed' });
      assert.equal(answers.length, 340);
      // node:http answers 408 before it closes, a connection that sent nothing included.
      assert.equal(answers.filter((a) => a.startsWith('HTTP/1.1 408')).length, 340);
      // Meanwhile and after, the gateway serves.
      assert.equal((await new HttpClient(gw.url, LEGACY).request('ping')).result !== undefined, true);
      const done = await long;
      assert.equal(((done.result!.content as Json[])[0] as Json).text, 'done after 3 steps');
      // The stream is still open: keep-alive comments go on arriving.
      const drained: string[] = [];
      for (let i = 0; i < 3; i++) drained.push(new TextDecoder().decode((await reader.read()).value));
      assert.ok(drained.join('').includes(':'), drained.join(''));
      ctl.abort();
    } finally {
      for (const s of sockets) s.destroy();
      await gw.close();
    }
  });

  test('transport.maxConnections: the connection past the cap gets 503 naming the setting; those held still work, and a closed one makes room', async () => {
    const gw = await startTestServer({ 'transport.maxConnections': 4 });
    const held: KeepAlive[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const k = new KeepAlive(gw.port);
        held.push(k);
        assert.equal((await k.ping(gw.secret!)).status, 200);
      }
      const over = await exchange(
        gw.port,
        request('POST', `/mcp/${gw.secret}`, [`Host: 127.0.0.1:${gw.port}`, ...MCP_HEADERS], PING),
      );
      assert.equal(over.status, 503);
      assert.match(over.head, /\r\nRetry-After: 1\r\n/i);
      assert.equal(errorOf(over).code, -32603);
      assert.match(String(errorOf(over).message), /4 connections \(transport\.maxConnections\)/);
      // A connection that sends nothing is refused as well, without waiting for a request.
      const silent = await new Promise<RawReply>((resolve) => {
        const s = connect(gw.port, '127.0.0.1');
        let got = '';
        s.on('data', (d) => (got += d.toString('latin1')));
        s.on('close', () => resolve(parseReply(got)));
      });
      assert.equal(silent.status, 503);
      // The four held are served, again and again.
      for (const k of held) assert.equal((await k.ping(gw.secret!)).status, 200);
      held.pop()!.close();
      await until(
        async () => {
          const r = await exchange(
            gw.port,
            request('POST', `/mcp/${gw.secret}`, [`Host: 127.0.0.1:${gw.port}`, ...MCP_HEADERS], PING),
          );
          return r.status === 200;
        },
        { what: 'a closed connection makes room' },
      );
    } finally {
      for (const k of held) k.close();
      await gw.close();
    }
  });
});

/** One kept-alive connection, one request at a time. */
class KeepAlive {
  private readonly socket: Socket;
  private buffered = '';
  private waiting?: () => void;

  constructor(private readonly port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (d) => {
      this.buffered += d.toString('latin1');
      this.waiting?.();
    });
    this.socket.on('error', () => undefined);
  }

  async ping(secret: string): Promise<RawReply> {
    this.socket.write(
      `POST /mcp/${secret} HTTP/1.1\r\nHost: 127.0.0.1:${this.port}\r\n${MCP_HEADERS.join('\r\n')}\r\nContent-Length: ${PING.length}\r\n\r\n${PING}`,
    );
    for (;;) {
      const at = this.buffered.indexOf('\r\n\r\n');
      const length = at < 0 ? undefined : Number(/\r\ncontent-length: (\d+)/i.exec(this.buffered.slice(0, at))?.[1]);
      if (length !== undefined && this.buffered.length >= at + 4 + length) {
        const reply = parseReply(this.buffered.slice(0, at + 4 + length));
        this.buffered = this.buffered.slice(at + 4 + length);
        return reply;
      }
      await new Promise<void>((r) => (this.waiting = r));
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

describe('legacy sessions a flood cannot hold', () => {
  test('sessions initialized and never used end after transport.sessionInitIdle: the lock-out ends by itself; used ones and one with its GET stream stay', async () => {
    // Long enough that no session here is swept before the steps that need it (a real client's first use,
    // the late initialize refused while the flood holds every place) on a loaded machine.
    const gw = await startTestServer({ 'limits.sessions': 4, 'transport.sessionInitIdle': '2s' });
    const ctl = new AbortController();
    try {
      // Two real clients: one that calls, one that holds its GET stream and then sits idle.
      const calls = new HttpClient(gw.url, LEGACY);
      assert.ok((await calls.initialize()).result);
      assert.ok((await calls.request('tools/list')).result);
      const listens = new HttpClient(gw.url, LEGACY);
      assert.ok((await listens.initialize()).result);
      const stream = await fetch(gw.url, {
        headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': listens.sessionId! },
        signal: ctl.signal,
      });
      assert.equal(stream.status, 200);
      // The flood: initialize (and initialized), then nothing.
      const flood = [new HttpClient(gw.url, LEGACY), new HttpClient(gw.url, LEGACY)];
      for (const f of flood) assert.ok((await f.initialize()).result);
      const late = new HttpClient(gw.url, LEGACY);
      const refused = await late.initialize();
      assert.match(String(refused.error?.message), /limits\.sessions/);
      // No one ends the flood's sessions: the sweep does.
      await until(async () => (await late.initialize()).result !== undefined, { what: 'a new initialize succeeds' });
      assert.ok(late.sessionId);
      const ended = await flood[0]!.request('ping');
      assert.equal(ended.reply.status, 404);
      const error = ended.reply.frames[0]!.error as Json;
      assert.equal(error.code, -32600);
      assert.match(String(error.message), /Session not found.*initialize again/);
      // The real clients' sessions were not touched.
      assert.ok((await calls.request('ping')).result);
      assert.ok((await listens.request('ping')).result);
      // The other flood session goes the same way: left are the two real clients and the late one.
      await until(() => gw.http.sessionCount === 3, { what: 'the flood gone' });
    } finally {
      ctl.abort();
      await gw.close();
    }
  });
});
