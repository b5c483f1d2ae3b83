// The request runner (src/server/runner.ts) driven in memory: ids in flight, cancellation by id,
// batches, and initialize as a barrier.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, test } from 'node:test';
import type { ErrorResponse, Id, JsonObject, Response, ResultResponse } from '../../src/protocol/jsonrpc';
import { deferred, heldProvider, memoryServer, req } from '../harness/memory';
import { CLIENT_INFO } from '../harness/wire';
import { turn } from '../harness/wait';

const LEGACY = '2025-11-25';
const BATCH_REV = '2025-03-26';

const hold = (id: Id, key: string) => req(id, 'tools/call', { name: 'hold', arguments: { key } });
const isError = (r: Response | undefined): r is ErrorResponse => r !== undefined && 'error' in r;
const textOf = (r: Response | undefined) => ((r as ResultResponse).result.content as Array<{ text: string }>)[0]!.text;

function setup() {
  const provider = heldProvider();
  const mem = memoryServer(provider);
  const { runner, conn, channel } = mem.runner();
  return { provider, mem, runner, conn, channel };
}

describe('Runner: ids in flight', () => {
  test('an id already in flight is refused with -32600; the first request still completes', async () => {
    const { provider, runner, conn, channel } = setup();
    const first = runner.request(hold(1, 'a'), LEGACY, channel);
    await provider.whenStarted('a');
    const second = await runner.request(hold(1, 'b'), LEGACY, channel);
    assert.ok(isError(second.response), 'the duplicate is answered with an error');
    assert.equal(second.response.error.code, -32600);
    assert.equal(second.response.id, 1);
    assert.deepEqual(provider.started, ['a'], 'the duplicate never reached the provider');
    assert.equal(conn.inflight.size, 1, 'the refusal did not untrack the first request');
    provider.release('a');
    const out = await first;
    assert.equal(textOf(out.response), 'hold a');
    assert.equal(conn.inflight.size, 0);
  });

  test('after the first request finishes its id can be used again', async () => {
    const { provider, runner, channel } = setup();
    provider.release('a');
    const a = await runner.request(hold(7, 'a'), LEGACY, channel);
    assert.equal(textOf(a.response), 'hold a');
    provider.release('b');
    const b = await runner.request(hold(7, 'b'), LEGACY, channel);
    assert.equal(textOf(b.response), 'hold b');
  });

  test('string and number ids are distinct ids', async () => {
    const { provider, runner, channel } = setup();
    const a = runner.request(hold(1, 'a'), LEGACY, channel);
    const b = runner.request(hold('1', 'b'), LEGACY, channel);
    await Promise.all([provider.whenStarted('a'), provider.whenStarted('b')]);
    provider.release('a');
    provider.release('b');
    assert.deepEqual([textOf((await a).response), textOf((await b).response)], ['hold a', 'hold b']);
  });

  test('notifications/cancelled aborts exactly the request it names, which gets no response', async () => {
    const { provider, runner, channel } = setup();
    const a = runner.request(hold(1, 'a'), LEGACY, channel);
    const b = runner.request(hold(2, 'b'), LEGACY, channel);
    await Promise.all([provider.whenStarted('a'), provider.whenStarted('b')]);
    runner.notification({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, reason: 'changed my mind' },
    });
    const outA = await a;
    assert.equal(outA.response, undefined, 'a cancelled request is not answered');
    assert.deepEqual(provider.aborted, ['a']);
    provider.release('b');
    assert.equal(textOf((await b).response), 'hold b');
    assert.deepEqual(provider.aborted, ['a'], 'the other request was not aborted');
  });

  test('a cancellation naming no request in flight (or malformed) changes nothing', async () => {
    const { provider, runner, channel } = setup();
    const a = runner.request(hold(1, 'a'), LEGACY, channel);
    await provider.whenStarted('a');
    runner.notification({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } });
    runner.notification({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { reason: 'no id' } });
    runner.notification({ jsonrpc: '2.0', method: 'notifications/cancelled' });
    await turn();
    assert.deepEqual(provider.aborted, []);
    provider.release('a');
    assert.equal(textOf((await a).response), 'hold a');
  });

  test('a response from the client settles the question waiting on its id', async () => {
    const { runner, conn } = setup();
    const waiting = conn.asked.wait(-1);
    runner.response({ jsonrpc: '2.0', id: -1, result: { answer: 42 } });
    assert.deepEqual(((await waiting) as ResultResponse).result, { answer: 42 });
  });
});

describe('Runner: batches', () => {
  test('refused outside 2025-03-26, and when empty', async () => {
    const { runner, channel } = setup();
    for (const rev of ['2024-11-05', '2025-06-18', '2025-11-25', '2026-07-28'] as const) {
      const out = await runner.batch([req(1, 'ping')], rev, channel);
      assert.ok('refused' in out, `a batch is refused in ${rev}`);
      assert.equal(out.refused.code, -32600);
    }
    const empty = await runner.batch([], BATCH_REV, channel);
    assert.ok('refused' in empty);
    assert.equal(empty.refused.code, -32600);
    const ok = await runner.batch([req(1, 'ping')], BATCH_REV, channel);
    assert.ok('responses' in ok);
    assert.deepEqual(ok.responses, [{ jsonrpc: '2.0', id: 1, result: {} }]);
  });

  test('initialize inside a batch is refused; the other items are answered', async () => {
    const { runner, conn, channel } = setup();
    const init = req('i', 'initialize', { protocolVersion: BATCH_REV, capabilities: {}, clientInfo: CLIENT_INFO });
    const out = await runner.batch([init, req('p', 'ping'), req('t', 'tools/list')], BATCH_REV, channel);
    assert.ok('responses' in out);
    const byId = new Map(out.responses.map((r) => [r.id, r]));
    assert.equal(out.responses.length, 3);
    const refused = byId.get('i');
    assert.ok(isError(refused));
    assert.equal(refused.error.code, -32600);
    assert.equal(conn.revision, undefined, 'the refused initialize negotiated nothing');
    assert.deepEqual((byId.get('p') as ResultResponse).result, {});
    assert.deepEqual(
      ((byId.get('t') as ResultResponse).result.tools as JsonObject[]).map((t) => t.name),
      ['hold'],
    );
  });

  test('invalid items get their own error; notifications and responses get none', async () => {
    const { runner, conn, channel } = setup();
    const items = [
      { jsonrpc: '1.0', id: 5, method: 'ping' },
      42,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: -3, result: {} },
      req(6, 'ping'),
    ];
    const out = await runner.batch(items, BATCH_REV, channel);
    assert.ok('responses' in out);
    assert.equal(out.responses.length, 3, JSON.stringify(out.responses));
    const [bad, notObject, ping] = out.responses;
    assert.ok(isError(bad));
    assert.deepEqual([bad.id, bad.error.code], [5, -32600]);
    assert.ok(isError(notObject));
    assert.equal(notObject.error.code, -32600);
    assert.equal('id' in notObject, false, 'an item without a readable id is answered without one');
    assert.deepEqual(ping, { jsonrpc: '2.0', id: 6, result: {} });
    assert.equal(conn.initialized, true, 'the notification inside the batch was acted on');
  });

  test('two requests with one id in a batch: one is refused, the other completes', async () => {
    const { provider, runner, channel } = setup();
    const pending = runner.batch([hold(1, 'a'), hold(1, 'b')], BATCH_REV, channel);
    await provider.whenStarted('a');
    provider.release('a');
    provider.release('b');
    const out = await pending;
    assert.ok('responses' in out);
    assert.equal(out.responses.length, 2);
    assert.deepEqual(
      out.responses.map((r) => r.id),
      [1, 1],
    );
    const errors = out.responses.filter(isError);
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.error.code, -32600);
    assert.deepEqual(provider.started, ['a'], 'only one of the two ran');
  });

  test('the signal passed to batch() aborts every request in it', async () => {
    const { provider, runner, conn, channel } = setup();
    const ctl = new AbortController();
    const pending = runner.batch([hold(1, 'a'), hold(2, 'b'), req(3, 'ping')], BATCH_REV, channel, ctl.signal);
    await Promise.all([provider.whenStarted('a'), provider.whenStarted('b')]);
    ctl.abort(new Error('the client went away'));
    const out = await pending;
    assert.deepEqual(provider.aborted.sort(), ['a', 'b']);
    assert.ok('responses' in out);
    const byId = new Map(out.responses.map((r) => [r.id, r]));
    for (const id of [1, 2]) {
      const r = byId.get(id);
      assert.ok(isError(r), `request ${id} ended in an error`);
      assert.equal(r.error.code, -32603);
    }
    assert.deepEqual((byId.get(3) as ResultResponse).result, {});
    assert.equal(conn.inflight.size, 0);
  });

  test('a batch of many requests puts one listener on the signal, and its abort still reaches each', async () => {
    const { provider, runner, channel } = setup();
    const ctl = new AbortController();
    const names = Array.from({ length: 24 }, (_, i) => `h${i}`);
    const pending = runner.batch(
      names.map((n, i) => hold(i + 1, n)),
      BATCH_REV,
      channel,
      ctl.signal,
    );
    await Promise.all(names.map((n) => provider.whenStarted(n)));
    assert.equal(getEventListeners(ctl.signal, 'abort').length, 1, 'one listener for the whole batch');
    ctl.abort(new Error('the client went away'));
    await pending;
    assert.deepEqual(provider.aborted.sort(), [...names].sort());
    const kept = new AbortController();
    await runner.batch([req(100, 'ping'), req(101, 'ping')], BATCH_REV, channel, kept.signal);
    assert.equal(getEventListeners(kept.signal, 'abort').length, 0, 'removed when a batch ends');
  });

  test('a cancellation by id reaches a request inside a batch, which then has no response', async () => {
    const { provider, runner, channel } = setup();
    const pending = runner.batch([hold(1, 'a'), hold(2, 'b')], BATCH_REV, channel);
    await Promise.all([provider.whenStarted('a'), provider.whenStarted('b')]);
    runner.notification({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    provider.release('a');
    const out = await pending;
    assert.ok('responses' in out);
    assert.deepEqual(
      out.responses.map((r) => r.id),
      [1],
    );
    assert.deepEqual(provider.aborted, ['b']);
  });
});

describe('Runner: initialize as a barrier', () => {
  test('a task scheduled after initialize waits until it settles; one scheduled before does not', async () => {
    const { runner } = setup();
    const events: string[] = [];
    const before = deferred();
    const init = deferred();
    const p1 = runner.schedule(false, async () => {
      events.push('before:start');
      await before.promise;
      events.push('before:end');
    });
    const p2 = runner.schedule(true, async () => {
      events.push('init:start');
      await init.promise;
      events.push('init:end');
    });
    const p3 = runner.schedule(false, async () => {
      events.push('after:start');
    });
    await turn();
    assert.deepEqual(
      events,
      ['before:start', 'init:start'],
      'neither the earlier task nor initialize is held; the later one is',
    );
    init.resolve();
    await p2;
    await p3;
    assert.deepEqual(
      events,
      ['before:start', 'init:start', 'init:end', 'after:start'],
      'the earlier task is still running and did not hold anything',
    );
    before.resolve();
    await p1;
  });

  test('a failed initialize releases the barrier; the failure stays with its own task', async () => {
    const { runner } = setup();
    const init = deferred();
    const p = runner.schedule(true, () => init.promise);
    let ran = false;
    const after = runner.schedule(false, async () => {
      ran = true;
      return 'after';
    });
    await turn();
    assert.equal(ran, false);
    init.reject(new Error('bad initialize'));
    await assert.rejects(p, /bad initialize/);
    assert.equal(await after, 'after');
  });

  test('two initializes in a row: the second waits for the first', async () => {
    const { runner } = setup();
    const first = deferred();
    const events: string[] = [];
    void runner.schedule(true, async () => {
      await first.promise;
      events.push('first');
    });
    const second = runner.schedule(true, async () => {
      events.push('second');
    });
    await turn();
    assert.deepEqual(events, []);
    first.resolve();
    await second;
    assert.deepEqual(events, ['first', 'second']);
  });

  test('through the server: a request scheduled after initialize is read in the negotiated revision', async () => {
    const { runner, conn, channel } = setup();
    const init = runner.schedule(true, () =>
      runner.request(
        req(0, 'initialize', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: CLIENT_INFO }),
        '2024-11-05',
        channel,
      ),
    );
    const list = runner.schedule(false, () =>
      runner.request(req(1, 'tools/list'), conn.revision ?? '2025-11-25', channel),
    );
    const [i, l] = await Promise.all([init, list]);
    assert.equal(i.session, true);
    assert.equal(l.rev, '2024-11-05', 'the list ran after initialize had negotiated its revision');
  });
});
