// Bounds per identity (docs/security.md "Bounds"): background calls, questions at the broker, instances of a
// `scope: "identity"` server and legacy sessions — each with small limits, each asserting what happens at the
// bound by counts and errors, never by durations.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Broker } from '../../src/gateway/inbox/broker';
import { routeQuestion } from '../../src/gateway/inbox/questions';
import type { CallContext } from '../../src/server/provider';
import { startTestServer } from '../harness/gateway';
import { fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { alive } from '../harness/process';
import { until } from '../harness/wait';

after(() => killAll());

const LEGACY = '2025-11-25';
const text = (r: Json | undefined) => String(((r?.content as Json[]) ?? [])[0]?.text ?? '');

describe('limits.backgroundPerIdentity (2026-07-28 background calls)', () => {
  const asker = (url: string) => new HttpClient(url, '2026-07-28', { capabilities: { elicitation: {} } });
  const ask = (c: HttpClient, who?: string, extra: Json = {}) =>
    c.request(
      'tools/call',
      { name: 'ask', arguments: { times: 1 }, ...extra },
      { meta: who ? { 'dev.mcpx/session': who } : {} },
    );
  const answer = async (c: HttpClient, first: Json, who?: string) => {
    const [k] = Object.keys(first.inputRequests as Json);
    return (
      await ask(c, who, {
        inputResponses: { [k!]: { action: 'accept', content: { n: 7 } } },
        requestState: first.requestState,
      })
    ).result!;
  };

  test("one identity's flood is refused beyond its bound; another identity's requestState still resumes", async () => {
    const l = await startTestServer({ 'limits.backgroundPerIdentity': 5 });
    try {
      const c = asker(l.url);
      const victim = (await ask(c, 'victim')).result!;
      assert.equal(victim.resultType, 'input_required');
      const flood = await Promise.all(Array.from({ length: 8 }, () => ask(c, 'flood')));
      const held = flood.filter((f) => f.result?.resultType === 'input_required').length;
      const refused = flood.filter((f) => /limits\.backgroundPerIdentity/.test(f.error?.message ?? ''));
      assert.equal(held, 5);
      assert.equal(refused.length, 3);
      const done = await answer(c, victim, 'victim');
      assert.equal(done.resultType, 'complete');
      assert.match(text(done), /"n":7/);
    } finally {
      await l.close();
    }
  });

  test('in total (limits.inflight) new calls are refused, never an older one evicted', async () => {
    const l = await startTestServer({ 'limits.inflight': 16 });
    try {
      const c = asker(l.url);
      const victim = (await ask(c)).result!;
      const outcomes: string[] = [];
      for (let i = 0; i < 20; i++) {
        const r = await ask(c);
        outcomes.push(r.result ? String(r.result.resultType) : String(r.error?.message));
      }
      assert.equal(outcomes.filter((o) => o === 'input_required').length, 15);
      assert.equal(outcomes.filter((o) => /limits\.inflight/.test(o)).length, 5);
      assert.equal((await answer(c, victim)).resultType, 'complete');
    } finally {
      await l.close();
    }
  });
});

describe('limits.questionsPerIdentity (the broker)', () => {
  const owner = (identity: string) =>
    ({ identity, signal: new AbortController().signal, clientCapabilities: {}, rev: LEGACY }) as unknown as CallContext;
  const elicit = { mode: 'form', message: 'q', requestedSchema: { type: 'object', properties: {} } };

  test("beyond the bound a new question is refused naming the setting; another identity's still waits", async () => {
    const broker = new Broker(60_000, undefined, undefined, () => ({ perIdentity: 2, total: 16 }));
    const answerers = { native: false, broker, roots: [], log: () => undefined };
    const ctl = new AbortController();
    const put = (who: string) =>
      routeQuestion(answerers, {
        server: 'up',
        method: 'elicitation/create',
        params: elicit,
        signal: ctl.signal,
        owner: owner(who),
        unowned: '',
      });
    const waiting = [put('client:a'), put('client:a')];
    await assert.rejects(put('client:a'), /limits\.questionsPerIdentity/);
    waiting.push(put('client:b'));
    assert.equal(broker.list().length, 3, 'nothing waiting was dropped');
    ctl.abort(new Error('done'));
    await Promise.allSettled(waiting);
    assert.equal(broker.list().length, 0);
  });

  test('the broker as a whole is bounded by limits.inflight', async () => {
    const broker = new Broker(60_000, undefined, undefined, () => ({ perIdentity: 100, total: 3 }));
    const ctl = new AbortController();
    const ask = (identity: string) =>
      broker.ask({
        server: 'up',
        method: 'elicitation/create',
        params: elicit,
        signal: ctl.signal,
        reason: 'test',
        identity,
      });
    const waiting = [1, 2, 3].map((i) => ask(`c${i}`));
    await assert.rejects(ask('c4'), /limits\.inflight/);
    ctl.abort(new Error('done'));
    await Promise.allSettled(waiting);
  });
});

describe('limits.instancesPerServer (scope "identity")', () => {
  const up = (...extra: string[]) => ({
    ...fixtureCommand(['--rev', LEGACY, '--name', 'up', ...extra]),
    scope: 'identity',
  });
  const modernCall = (c: HttpClient, tool: string, args: Json = {}, who?: string, signal?: AbortSignal) =>
    c.request(
      'tools/call',
      { name: 'mcpx_call', arguments: { server: 'up', tool, arguments: args } },
      { meta: who ? { 'dev.mcpx/session': who } : {}, signal },
    );

  test('20 sessionless 2026-07-28 calls leave no instance behind once they finish', async () => {
    const gw = await gatewayFor({ up: up() });
    try {
      const c = new HttpClient(gw.url, '2026-07-28');
      const pids = new Set<number>();
      for (let round = 0; round < 4; round++) {
        const rs = await Promise.all(Array.from({ length: 5 }, () => modernCall(c, 'whoami')));
        for (const r of rs) pids.add(Number(text(r.result).split(':')[1]));
      }
      assert.equal(pids.size, 20, 'each request had its own instance');
      await until(() => ![...pids].some(alive), { what: 'every instance ended', every: 50 });
      assert.deepEqual(
        [...pids].filter(alive),
        [],
        'every instance ended with its request, not after pool.idleTimeout',
      );
      assert.equal(gw.g.servers().filter((s) => s.state === 'running').length, 0);
    } finally {
      await gw.close();
    }
  });

  test('sessionless legacy HTTP calls leave no instance behind once they finish', async () => {
    const gw = await gatewayFor({ up: up() });
    try {
      // No initialize, so no Mcp-Session-Id: each POST is a request of its own.
      const c = new HttpClient(gw.url, LEGACY);
      const pids = new Set<number>();
      for (let i = 0; i < 5; i++) pids.add(Number(text((await modernCall(c, 'whoami')).result).split(':')[1]));
      assert.equal(pids.size, 5, 'each request had its own instance');
      await until(() => ![...pids].some(alive), { what: 'every instance ended', every: 50 });
      assert.deepEqual([...pids].filter(alive), [], 'every instance ended with its request');
      assert.equal(gw.g.servers().filter((s) => s.name === 'up' && s.scope !== 'shared').length, 0);
    } finally {
      await gw.close();
    }
  });

  test('evictions at the cap are logged once a minute with a count, not once each', async () => {
    const lines: string[] = [];
    const gw = await gatewayFor({ up: up() }, { 'limits.instancesPerServer': 1 }, {}, { log: (l) => lines.push(l) });
    try {
      const c = new HttpClient(gw.url, '2026-07-28');
      // Six identities one after another: each call's instance makes room by stopping the last one.
      for (const who of ['a', 'b', 'c', 'd', 'e', 'f'])
        assert.equal(text((await modernCall(c, 'echo', { text: who }, who)).result), who);
      const notices = lines.filter((l) => l.includes('limits.instancesPerServer'));
      assert.equal(notices.length, 1, notices.join('\n'));
    } finally {
      await gw.close();
    }
  });

  test('at the cap a call is refused naming the server and the setting; an idle instance makes room', async () => {
    const gw = await gatewayFor({ up: up() }, { 'limits.instancesPerServer': 2 });
    const ctl = new AbortController();
    try {
      const c = new HttpClient(gw.url, '2026-07-28');
      const busy = ['a', 'b'].map((who) =>
        modernCall(c, 'slow', { ms: 60_000 }, who, ctl.signal).catch(() => undefined),
      );
      await until(() => gw.g.servers().filter((s) => s.state === 'running').length === 2, {
        what: 'two instances running',
        every: 50,
      });
      const refused = await modernCall(c, 'echo', { text: 'c' }, 'c');
      assert.equal(refused.error?.code, -32603);
      assert.match(refused.error!.message, /upstream up: .*limits\.instancesPerServer/);
      ctl.abort();
      await Promise.all(busy);
      // a and b are idle now (their calls were cancelled): the least recently used one gives way.
      const ok = await until(async () => (await modernCall(c, 'echo', { text: 'c' }, 'c')).result, {
        what: 'c admitted',
        every: 50,
      });
      assert.equal(text(ok), 'c');
      assert.ok(gw.g.servers().filter((s) => s.state === 'running').length <= 2);
    } finally {
      ctl.abort();
      await gw.close();
    }
  });
});

describe('limits.sessions', () => {
  test('beyond limits.sessions a new initialize is refused naming the setting; an ended session makes room', async () => {
    const gw = await startTestServer({ 'limits.sessions': 2 });
    try {
      const a = new HttpClient(gw.url, LEGACY);
      const b = new HttpClient(gw.url, LEGACY);
      assert.ok((await a.initialize()).result);
      assert.ok((await b.initialize()).result);
      assert.equal(gw.server.listens.pushableCount, 2);
      const c = new HttpClient(gw.url, LEGACY);
      const refused = await c.initialize();
      assert.equal(refused.error?.code, -32603);
      assert.match(refused.error!.message, /limits\.sessions/);
      assert.equal(c.sessionId, undefined);
      // The sessions already held still work.
      assert.ok((await a.request('ping')).result);
      const del = await fetch(gw.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': b.sessionId! } });
      assert.ok(del.ok);
      // An ended session is no longer a connection to push to.
      assert.equal(gw.server.listens.pushableCount, 1);
      assert.ok((await c.initialize()).result);
      assert.ok(c.sessionId);
    } finally {
      await gw.close();
    }
  });
});
