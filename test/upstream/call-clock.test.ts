// The upstream call clock (UpstreamClient's pool.callTimeout, src/upstream/call.ts callClock): it is
// private, so it is driven through UpstreamClient over an in-memory upstream transport, on mocked
// setTimeout and Date. Time spent answering the upstream's questions does not count; progress restarts
// the clock, never past maxTotalMs; an answered call stops it.
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { makePolicy } from '../../src/config/policy';
import type { JsonObject, Notification, Request, Response } from '../../src/protocol/jsonrpc';
import { codecOfEra } from '../../src/protocol/eras';
import { NEWEST_FIRST } from '../../src/protocol/revisions';
import { type ClientHooks, type Negotiated, UpstreamClient } from '../../src/upstream/client';
import type { SendOptions, UpstreamTransport } from '../../src/upstream/transport';
import { listen } from '../../src/wire/abort';
import { TransportClosed } from '../../src/wire/correlator';
import { deferred } from '../harness/memory';
import { turn } from '../harness/wait';

/** An upstream on the other end of nothing: requests wait until the test answers them (or their signal
 *  aborts); notifications and answers to the upstream's own questions are recorded. */
class MemoryUpstream implements UpstreamTransport {
  readonly kind = 'stdio' as const;
  isClosed = false;
  onIncoming?: (msg: Request | Notification) => void;
  readonly requests: Request[] = [];
  readonly notified: Notification[] = [];
  readonly responded: Response[] = [];
  private readonly waiting = new Map<unknown, (r: Response) => void>();

  request(req: Request, opts: SendOptions = {}): Promise<Response> {
    this.requests.push(req);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiting.delete(req.id);
        reject(opts.signal!.reason);
      };
      if (opts.signal?.aborted) return onAbort();
      const off = opts.signal ? listen(opts.signal, onAbort) : undefined;
      this.waiting.set(req.id, (r) => {
        off?.();
        resolve(r);
      });
    });
  }
  async notify(n: Notification): Promise<void> {
    this.notified.push(n);
  }
  async respond(r: Response): Promise<void> {
    this.responded.push(r);
  }
  async close(): Promise<void> {
    this.isClosed = true;
    this.waiting.clear();
  }

  /** The upstream answers the request it was sent last. */
  answer(result: JsonObject = { content: [] }): void {
    const req = this.requests.at(-1)!;
    const w = this.waiting.get(req.id);
    assert.ok(w, `request ${String(req.id)} is not waiting`);
    this.waiting.delete(req.id);
    w({ jsonrpc: '2.0', id: req.id, result });
  }
  /** The upstream sends something of its own (a question, progress). */
  incoming(msg: Request | Notification): void {
    this.onIncoming!(msg);
  }
}

const NEGOTIATED: Negotiated = {
  era: 'legacy',
  revision: '2025-11-25',
  capabilities: {},
  serverInfo: { name: 'up', version: '1' },
};
const pending = Symbol('pending');

function setup(t: TestContext) {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  const up = new MemoryUpstream();
  const questions: Array<{ method: string; answer: ReturnType<typeof deferred<JsonObject>> }> = [];
  const hooks: ClientHooks = {
    onRequest: (method) => {
      const answer = deferred<JsonObject>();
      questions.push({ method, answer });
      return answer.promise;
    },
    onNotification: () => undefined,
    log: () => undefined,
  };
  const client = new UpstreamClient('up', up, NEGOTIATED, {
    codec: codecOfEra(NEGOTIATED.era),
    hooks,
    policy: makePolicy(NEWEST_FIRST, []),
    capabilities: {},
    clientInfo: { name: 'mcpx', version: '0' },
  });
  return { up, client, questions };
}

/** The call's outcome so far: its result, its error, or `pending`. */
function watch<T>(p: Promise<T>): () => T | Error | typeof pending {
  let out: T | Error | typeof pending = pending;
  p.then(
    (v) => (out = v),
    (e: Error) => (out = e),
  );
  return () => out;
}
/** Advance mocked time, then let the promise callbacks it caused run. One millisecond at a time: Node 20's
 *  mock moves Date to the end of a tick before it runs the timers due within it, so a timer would see a
 *  later time than it was due at (a late event loop), which is not what these tests are about. */
async function tick(t: TestContext, ms: number): Promise<void> {
  if (ms > 60_000) t.mock.timers.tick(ms);
  else for (let i = 0; i < ms; i++) t.mock.timers.tick(1);
  await turn();
}
const cancelNotices = (up: MemoryUpstream) => up.notified.filter((n) => n.method === 'notifications/cancelled');

describe('upstream call clock', () => {
  test('fires after timeoutMs: the call fails naming the timeout, and the upstream is told (timed out)', async (t) => {
    const { up, client } = setup(t);
    const call = watch(client.request('tools/call', { name: 'x' }, { timeoutMs: 1000 }));
    await tick(t, 999);
    assert.equal(call(), pending);
    assert.deepEqual(cancelNotices(up), []);
    await tick(t, 1);
    const e = call();
    assert.ok(e instanceof Error, 'the call failed');
    assert.match(e.message, /did not answer tools\/call within 1000 ms/);
    assert.deepEqual(
      cancelNotices(up).map((n) => n.params),
      [{ requestId: up.requests[0]!.id, reason: 'timed out' }],
    );
    assert.equal(client.inflight, 0);
  });

  test('an answer in time stops the clock: nothing fires later', async (t) => {
    const { up, client } = setup(t);
    const call = watch(client.request('tools/call', { name: 'x' }, { timeoutMs: 1000 }));
    await tick(t, 500);
    up.answer({ content: [] });
    await turn();
    assert.deepEqual(call(), { content: [] });
    await tick(t, 10_000);
    assert.deepEqual(cancelNotices(up), [], 'no cancellation after the answer');
  });

  test("time spent answering the upstream's question does not count", async (t) => {
    const { up, client, questions } = setup(t);
    const call = watch(client.request('tools/call', { name: 'x' }, { timeoutMs: 1000 }));
    await tick(t, 400);
    up.incoming({
      jsonrpc: '2.0',
      id: 'q1',
      method: 'elicitation/create',
      params: { message: 'sure?', requestedSchema: { type: 'object', properties: {} } },
    });
    await turn();
    assert.equal(questions.length, 1);
    await tick(t, 5000);
    assert.equal(call(), pending, 'a question open past the deadline holds the clock');
    questions[0]!.answer.resolve({ action: 'accept', content: {} });
    await turn();
    assert.deepEqual(
      up.responded.map((r) => r.id),
      ['q1'],
    );
    await tick(t, 599);
    assert.equal(call(), pending, '400 ms were used before the question: 600 remain after it');
    await tick(t, 1);
    assert.ok(call() instanceof Error);
    assert.equal(cancelNotices(up).length, 1);
  });

  test('two overlapping questions pause the clock once, until both are answered', async (t) => {
    const { up, client, questions } = setup(t);
    const call = watch(client.request('tools/call', { name: 'x' }, { timeoutMs: 1000 }));
    await tick(t, 100);
    up.incoming({ jsonrpc: '2.0', id: 'a', method: 'roots/list' });
    await tick(t, 100);
    up.incoming({ jsonrpc: '2.0', id: 'b', method: 'roots/list' });
    await turn();
    await tick(t, 300);
    questions[0]!.answer.resolve({ roots: [] });
    await tick(t, 2000);
    assert.equal(call(), pending, 'one question is still open');
    questions[1]!.answer.resolve({ roots: [] });
    await turn();
    await tick(t, 899);
    assert.equal(call(), pending, '100 ms were used before the first question');
    await tick(t, 1);
    assert.ok(call() instanceof Error);
  });

  test('progress for the call restarts the clock (extend)', async (t) => {
    const { up, client } = setup(t);
    const call = watch(client.request('tools/call', { name: 'x' }, { timeoutMs: 1000, meta: { progressToken: 'p' } }));
    assert.equal((up.requests[0]!.params!._meta as JsonObject).progressToken, 'p');
    await tick(t, 800);
    up.incoming({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1 } });
    await tick(t, 999);
    assert.equal(call(), pending, 'a full timeout after the progress');
    await tick(t, 1);
    assert.ok(call() instanceof Error);
  });

  test('progress for another token does not restart it', async (t) => {
    const { up, client } = setup(t);
    const call = watch(client.request('tools/call', { name: 'x' }, { timeoutMs: 1000, meta: { progressToken: 'p' } }));
    await tick(t, 800);
    up.incoming({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'other', progress: 1 } });
    await tick(t, 200);
    assert.ok(call() instanceof Error);
  });

  test('progress never extends the call past maxTotalMs from its start', async (t) => {
    const { up, client } = setup(t);
    const call = watch(
      client.request('tools/call', { name: 'x' }, { timeoutMs: 1000, maxTotalMs: 2500, meta: { progressToken: 7 } }),
    );
    for (let i = 1; i <= 3; i++) {
      await tick(t, 800);
      up.incoming({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: i } });
    }
    await tick(t, 99);
    assert.equal(call(), pending, 'at 2499 ms');
    await tick(t, 1);
    assert.ok(call() instanceof Error, 'at 2500 ms, though the last progress was 100 ms ago');
  });

  test('after the call, its progress token extends nothing (the clock is gone)', async (t) => {
    const { up, client } = setup(t);
    const first = watch(client.request('tools/call', { name: 'x' }, { timeoutMs: 1000, meta: { progressToken: 'p' } }));
    up.answer();
    await turn();
    assert.deepEqual(first(), { content: [] });
    const second = watch(client.request('tools/call', { name: 'y' }, { timeoutMs: 1000 }));
    await tick(t, 900);
    up.incoming({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1 } });
    await tick(t, 100);
    assert.ok(second() instanceof Error);
  });

  test('no timeoutMs, no clock: the call waits as long as the upstream takes', async (t) => {
    const { up, client } = setup(t);
    const call = watch(client.request('tools/call', { name: 'x' }));
    await tick(t, 24 * 3600_000);
    assert.equal(call(), pending);
    up.answer({ content: [], ok: true });
    await turn();
    assert.deepEqual(call(), { content: [], ok: true });
  });

  test("the caller's cancellation ends the call at once, told to the upstream as such", async (t) => {
    const { up, client } = setup(t);
    const ctl = new AbortController();
    const call = watch(client.request('tools/call', { name: 'x' }, { timeoutMs: 1000, signal: ctl.signal }));
    await tick(t, 10);
    ctl.abort(new Error('the client cancelled'));
    await turn();
    const e = call();
    assert.ok(e instanceof Error);
    assert.match(e.message, /cancelled/);
    assert.doesNotMatch(e.message, /within/);
    assert.deepEqual(
      cancelNotices(up).map((n) => (n.params as JsonObject).reason),
      ['cancelled by the caller'],
    );
    await tick(t, 5000);
    assert.equal(cancelNotices(up).length, 1, 'the clock does not fire afterwards');
  });

  test('a transport that closes fails the call with its own error, not a timeout', async (t) => {
    setup(t);
    const up2 = new MemoryUpstream();
    up2.request = async () => {
      throw new TransportClosed('the process exited');
    };
    const c2 = new UpstreamClient('up2', up2, NEGOTIATED, {
      codec: codecOfEra(NEGOTIATED.era),
      hooks: { onRequest: async () => ({}), onNotification: () => undefined, log: () => undefined },
      policy: makePolicy(NEWEST_FIRST, []),
      capabilities: {},
      clientInfo: {},
    });
    await assert.rejects(c2.request('tools/list', {}, { timeoutMs: 1000 }), (e: Error) => e instanceof TransportClosed);
  });
});
