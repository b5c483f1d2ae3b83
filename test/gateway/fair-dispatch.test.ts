// Calls to one upstream dispatched fairly across identities (docs/security.md "Bounds", "Fair
// scheduling"): past limits.upstreamInflight a call waits in its identity's own queue, bounded by
// limits.upstreamQueuePerIdentity, and the queues are served in turn. Asserted by the order in which the
// upstream (a real stdio fixture recording what it receives) sees the calls, never by durations.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Dispatch } from '../../src/upstream/dispatch';
import { Abort } from '../../src/wire/abort';
import { fixtureCommand, gatewayFor, killAll, receivedBy, untilCalled } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { turn, until } from '../harness/wait';

after(() => killAll());

const MODERN = '2026-07-28';
const text = (r: Json | undefined) => String(((r?.content as Json[]) ?? [])[0]?.text ?? '');
/** The tools/call frames the upstream received, in order, as the tool's name and its text argument. */
const calls = (file: string) =>
  receivedBy(file)
    .filter((f) => f.method === 'tools/call')
    .map((f) => {
      const p = f.params as { name: string; arguments?: { text?: string } };
      return p.name === 'echo' ? `echo ${p.arguments?.text}` : p.name;
    });

describe('limits.upstreamInflight: calls dispatched in turn per identity', () => {
  test("one client's backlog does not hold back another's call; a queued call cancelled never reaches the upstream, and only its own client can cancel it", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-fair-'));
    const rec = join(dir, 'up.jsonl');
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--record', rec]) },
      { 'mcp.passthrough': ['up'], 'limits.upstreamInflight': 2, 'limits.upstreamQueuePerIdentity': 8 },
    );
    try {
      // A pipelines 11 slow calls in one batch (2025-03-26): 2 run, 8 wait, the 11th is refused.
      const a = new HttpClient(gw.url, '2025-03-26');
      await a.initialize();
      const ids = Array.from({ length: 11 }, (_, i) => 101 + i);
      const slow = (id: number) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'slow', arguments: { ms: 600_000, steps: 1 } },
      });
      const batch = a.post(ids.map(slow));
      await untilCalled(rec, 'slow', 2);

      // B's one call is dispatched at once, ahead of A's eight waiting.
      const b = new HttpClient(gw.url, '2025-11-25');
      await b.initialize();
      const answer = await b.request('tools/call', { name: 'echo', arguments: { text: 'B' } });
      assert.equal(text(answer.result), 'B');
      assert.deepEqual(calls(rec), ['slow', 'slow', 'echo B'], "A's backlog waits in mcpx, not in the upstream");

      // B names A's waiting calls' ids: its cancellations reach only its own requests.
      for (const id of ids.slice(2)) await b.notify('notifications/cancelled', { requestId: id, reason: 'not mine' });
      // A ends its two running calls: the next two of its own take their places.
      for (const id of ids.slice(0, 2)) await a.notify('notifications/cancelled', { requestId: id });
      await untilCalled(rec, 'slow', 4);

      // A cancels the rest, the six waiting first (they leave the queue unsent), then the two running
      // (cancelled upstream).
      for (const id of [...ids.slice(4, 10), ...ids.slice(2, 4)])
        await a.notify('notifications/cancelled', { requestId: id });
      await until(() => receivedBy(rec).filter((f) => f.method === 'notifications/cancelled').length >= 4, {
        what: 'four cancellations upstream',
      });
      const c = new HttpClient(gw.url, '2025-11-25');
      await c.initialize();
      assert.equal(text((await c.request('tools/call', { name: 'echo', arguments: { text: 'C' } })).result), 'C');
      assert.deepEqual(calls(rec), ['slow', 'slow', 'echo B', 'slow', 'slow', 'echo C']);

      const replies = (await batch).frames;
      const refused = replies.find((f) => f.id === 111)?.error as { code: number; message: string } | undefined;
      assert.equal(refused?.code, -32603);
      assert.match(refused!.message, /upstream up: this client has 8 calls waiting .*limits\.upstreamQueuePerIdentity/);
    } finally {
      await gw.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the same on other paths: an mcpx_exec script's backlog waits, another client's mcpx_call goes ahead; every call sent is cancelled when the script's request ends", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-fair-'));
    const rec = join(dir, 'up.jsonl');
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--record', rec]) },
      { 'limits.upstreamInflight': 2 },
    );
    try {
      const a = new HttpClient(gw.url, MODERN);
      const stop = new AbortController();
      const script = `await Promise.all([1, 2, 3, 4, 5, 6].map(() => mcpx.call('up', 'slow', { ms: 600000, steps: 1 })));`;
      const exec = a
        .request('tools/call', { name: 'mcpx_exec', arguments: { script } }, { signal: stop.signal })
        .catch(() => undefined);
      await untilCalled(rec, 'slow', 2);
      const b = new HttpClient(gw.url, MODERN);
      const viaTool = { name: 'mcpx_call', arguments: { server: 'up', tool: 'echo', arguments: { text: 'B' } } };
      const answer = await b.request('tools/call', viaTool, { meta: { 'dev.mcpx/session': 'client-b' } });
      assert.equal(text(answer.result), 'B');
      assert.deepEqual(calls(rec), ['slow', 'slow', 'echo B']);
      stop.abort();
      await exec;
      const received = (m: string) => receivedBy(rec).filter((f) => f.method === m).length;
      await until(() => received('notifications/cancelled') >= 2, { what: "the script's calls cancelled upstream" });
      const c = new HttpClient(gw.url, MODERN);
      const after = await c.request('tools/call', {
        ...viaTool,
        arguments: { ...viaTool.arguments, arguments: { text: 'C' } },
      });
      assert.equal(text(after.result), 'C');
      const slow = calls(rec).filter((n) => n === 'slow').length;
      assert.ok(slow >= 2 && slow <= 6, `the script's calls the upstream received: ${slow}`);
      await until(() => received('notifications/cancelled') === slow, {
        what: 'a cancellation for every call of the script the upstream received',
      });
    } finally {
      await gw.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Dispatch', () => {
  const limits = { inflight: 1, queuedPerIdentity: 4 };

  /** Calls of one Dispatch: `run` enters one that must run at once, `wait` one that must wait (its start
   *  is pushed to `started`), `end` ends one of an identity's running calls. */
  const dispatch = (l: typeof limits) => {
    const d = new Dispatch();
    const started: string[] = [];
    const waiting: Promise<unknown>[] = [];
    return {
      started,
      run: (identity: string) => assert.equal(d.enter('up', identity, l), undefined, `${identity} runs at once`),
      wait: (identity: string, name: string) => {
        const p = d.enter('up', identity, l);
        assert.ok(p, `${name} waits`);
        waiting.push(p.then(() => started.push(name)));
      },
      end: async (identity: string) => {
        d.done(identity, l);
        await turn();
      },
      all: () => Promise.all(waiting),
    };
  };

  test('waiting calls are started round-robin across identities, each first come first served within its own', async () => {
    const l = { inflight: 4, queuedPerIdentity: 4 };
    const x = dispatch(l);
    for (const who of ['a', 'a', 'b', 'b']) x.run(who);
    x.wait('a', 'a3');
    x.wait('a', 'a4');
    x.wait('a', 'a5');
    x.wait('b', 'b3');
    x.wait('b', 'b4');
    for (const who of ['a', 'a', 'a', 'b', 'a']) await x.end(who);
    // First come first served would have been a3, a4, a5, b3, b4.
    assert.deepEqual(x.started, ['a3', 'b3', 'a4', 'b4', 'a5']);
    for (const who of ['a', 'a', 'b', 'b']) await x.end(who);
    await x.all();
  });

  test('an identity with no call running never waits, and its next waiting call starts as its last one ends', async () => {
    const x = dispatch(limits);
    x.run('a');
    x.wait('a', 'a2');
    x.wait('a', 'a3');
    x.run('b');
    x.wait('b', 'b2');
    x.run('c');
    for (const who of ['b', 'c', 'a', 'a', 'b', 'a']) await x.end(who);
    assert.deepEqual(x.started, ['b2', 'a2', 'a3']);
    await x.all();
  });

  test("an identity's queue is bounded, naming the setting; a cancelled waiting call leaves it", async () => {
    const d = new Dispatch();
    assert.equal(d.enter('up', 'a', limits), undefined);
    const stop = new Abort();
    const cancelled = d.enter('up', 'a', limits, stop)!;
    const kept = [1, 2, 3].map(() => d.enter('up', 'a', limits)!);
    assert.throws(
      () => d.enter('up', 'a', limits),
      /upstream up: this client has 4 calls waiting for it \(limits\.upstreamQueuePerIdentity/,
    );
    stop.abort(new Error('cancelled by its client'));
    await assert.rejects(cancelled, /cancelled by its client/);
    const again = d.enter('up', 'a', limits)!;
    for (let i = 0; i < 4; i++) d.done('a', limits);
    await Promise.all([...kept, again]);
  });
});
