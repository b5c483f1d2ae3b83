// Bounds per identity and in total (docs/security.md "Bounds"): each with small limits, each asserting
// what happens at the bound by counts and errors, never by durations.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Broker } from '../../src/gateway/inbox/broker';
import { routeQuestion } from '../../src/gateway/inbox/questions';
import type { ProtocolError } from '../../src/protocol/errors';
import {
  type ErrorResponse,
  type JsonObject,
  type Request,
  type Response,
  type ResultResponse,
  parseJson,
} from '../../src/protocol/jsonrpc';
import type { CallContext, Provider } from '../../src/server/provider';
import { toolsOf } from '../fixtures/provider';
import { LineSplitter } from '../../src/wire/lines';
import { startTestServer } from '../harness/gateway';
import { heldProvider, memoryServer, memoryStdio } from '../harness/memory';
import { fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { alive } from '../harness/process';

after(() => killAll());

const LEGACY = '2025-11-25';
const req = (id: number, method: string, params?: JsonObject): Request =>
  params ? { jsonrpc: '2.0', id, method, params } : { jsonrpc: '2.0', id, method };
const hold = (id: number, key: string) => req(id, 'tools/call', { name: 'hold', arguments: { key } });
const isError = (r: Response | undefined): r is ErrorResponse => r !== undefined && 'error' in r;
const tick = () => new Promise<void>((r) => setImmediate(r));
const text = (r: Json | undefined) => String(((r?.content as Json[]) ?? [])[0]?.text ?? '');

/** A provider whose one tool, `blob`, answers `n` characters. */
const blobs: Provider = {
  capabilities: () => ({ tools: true }),
  listTools: async () => [{ name: 'blob', inputSchema: { type: 'object' } }],
  resolveTool: toolsOf(
    () => [{ name: 'blob' }],
    async (_name, args) => ({ content: [{ type: 'text', text: 'x'.repeat(Number(args.n)) }] }),
  ),
};

describe('transport.maxLineBytes', () => {
  test('a stdio line over the bound is answered -32600 naming the setting; the next line still works', async () => {
    const mem = memoryServer(heldProvider(), { 'transport.maxLineBytes': 2048 });
    const io = memoryStdio(mem.server);
    try {
      io.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(100_000)}"}}`);
      io.write(req(2, 'ping'));
      const refused = (await io.next((m) => !('id' in (m as Json)))) as ErrorResponse;
      assert.equal(refused.error.code, -32600);
      assert.match(refused.error.message, /transport\.maxLineBytes/);
      const pong = (await io.next((m) => (m as Json).id === 2)) as ResultResponse;
      assert.deepEqual(pong.result, {});
      assert.equal(io.messages.filter((m) => (m as Json).id === 1).length, 0, 'nothing of the long line was run');
    } finally {
      io.end();
      mem.close();
    }
  });

  test('the splitter holds nothing past the bound while a long line streams in', () => {
    const lines: string[] = [];
    let overlong = 0;
    const s = new LineSplitter(2048, { line: (l) => lines.push(l), overlong: () => overlong++ });
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    for (let i = 0; i < 50; i++) {
      s.push(chunk);
      assert.ok((s as unknown as { size: number }).size <= 2049, 'no more than the bound is buffered');
    }
    s.push(Buffer.from('tail\n{"a":1}\r\n{"b":'));
    s.push(Buffer.from('2}\n'));
    assert.equal(overlong, 1, 'reported once');
    assert.deepEqual(lines, ['{"a":1}', '{"b":2}'], 'the rest of the long line is dropped; what follows is read');
  });

  test("a stdio upstream's line over the bound fails its call naming the setting; the next call works", async () => {
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', LEGACY, '--name', 'up']) },
      { 'transport.maxLineBytes': 65_536 },
    );
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      const call = (tool: string, args: Json = {}) =>
        c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'up', tool, arguments: args } });
      const big = await call('big');
      assert.equal(big.error?.code, -32603);
      assert.match(big.error!.message, /transport\.maxLineBytes/);
      assert.equal(text((await call('echo', { text: 'after' })).result), 'after');
    } finally {
      await gw.close();
    }
  });
});

describe('limits.batchLength and limits.responseBytes', () => {
  test('a batch longer than limits.batchLength is refused whole (-32600) before any item runs', async () => {
    const provider = heldProvider();
    const mem = memoryServer(provider, { 'limits.batchLength': 2 });
    const { runner, channel } = mem.runner();
    const out = await runner.batch([hold(1, 'a'), hold(2, 'b'), hold(3, 'c')], '2025-03-26', channel);
    assert.ok('refused' in out);
    assert.equal(out.refused.code, -32600);
    assert.match(out.refused.message, /limits\.batchLength \(2\)/);
    await tick();
    assert.deepEqual(provider.started, [], 'no item ran');
    mem.close();
  });

  test('parseJson refuses a long batch by its length before looking at any item', () => {
    // Each item's id is one JSON cannot carry exactly: any per-item check would refuse for that instead.
    const text = `[${Array.from({ length: 20_000 }, () => '{"jsonrpc":"2.0","id":1e2,"method":"ping"}').join(',')}]`;
    assert.throws(
      () => parseJson(text, { maxDepth: 64, maxBatch: 64 }),
      (e: ProtocolError) =>
        e.code === -32600 && /a batch of 20000 messages .*limits\.batchLength \(64\)/.test(e.message),
    );
  });

  test('a 20,000-item batch on stdio is refused -32600 naming limits.batchLength; no item runs', async () => {
    const provider = heldProvider();
    const mem = memoryServer(provider);
    const io = memoryStdio(mem.server);
    try {
      io.write(`[${Array.from({ length: 20_000 }, (_, i) => JSON.stringify(hold(i + 1, `k${i}`))).join(',')}]`);
      io.write(req(0, 'ping'));
      const refused = (await io.next((m) => !('id' in (m as Json)))) as ErrorResponse;
      assert.equal(refused.error.code, -32600);
      assert.match(refused.error.message, /limits\.batchLength \(64\)/);
      await io.next((m) => (m as Json).id === 0);
      await tick();
      assert.deepEqual(provider.started, [], 'no item ran');
    } finally {
      io.end();
      mem.close();
    }
  });

  test('over HTTP the refusal is 400', async () => {
    const l = await startTestServer({ 'limits.batchLength': 2 });
    try {
      const c = new HttpClient(l.url, '2025-03-26', { noValidate: true });
      const reply = await c.post([req(1, 'ping'), req(2, 'ping'), req(3, 'ping')]);
      assert.equal(reply.status, 400);
      assert.equal((reply.frames[0]!.error as Json).code, -32600);
    } finally {
      await l.close();
    }
  });

  test('a response over limits.responseBytes is an error naming the setting', async () => {
    const mem = memoryServer(blobs, { 'limits.responseBytes': 4096 });
    const { runner, channel } = mem.runner();
    const out = await runner.request(req(1, 'tools/call', { name: 'blob', arguments: { n: 10_000 } }), LEGACY, channel);
    assert.ok(isError(out.response));
    assert.equal(out.response.error.code, -32603);
    assert.match(out.response.error.message, /limits\.responseBytes \(4096 bytes\)/);
    const small = await runner.request(req(2, 'tools/call', { name: 'blob', arguments: { n: 100 } }), LEGACY, channel);
    assert.ok(!isError(small.response));
    mem.close();
  });

  test("a batch's responses together stay within limits.responseBytes: the ones past it become errors", async () => {
    const mem = memoryServer(blobs, { 'limits.responseBytes': 4096 });
    const { runner, channel } = mem.runner();
    const items = [1, 2, 3].map((id) => req(id, 'tools/call', { name: 'blob', arguments: { n: 1500 } }));
    const out = await runner.batch(items, '2025-03-26', channel);
    assert.ok('responses' in out);
    assert.deepEqual(
      out.responses.map((r) => (isError(r) ? 'error' : 'result')),
      ['result', 'result', 'error'],
    );
    assert.match((out.responses[2] as ErrorResponse).error.message, /limits\.responseBytes/);
    assert.ok(Buffer.byteLength(JSON.stringify(out.responses)) <= 4096);
    mem.close();
  });
});

describe('limits.inflightPerIdentity and limits.inflight', () => {
  test("a third call of one identity waits for one of its two to finish; another identity's ping answers meanwhile", async () => {
    const provider = heldProvider();
    const mem = memoryServer(provider, { 'limits.inflightPerIdentity': 2 });
    const a = mem.runner();
    const b = mem.runner();
    const calls = ['a1', 'a2', 'a3'].map((k, i) => a.runner.request(hold(i + 1, k), LEGACY, a.channel));
    await Promise.all([provider.whenStarted('a1'), provider.whenStarted('a2')]);
    for (let i = 0; i < 5; i++) await tick();
    assert.deepEqual(provider.started, ['a1', 'a2'], 'the third waits');
    const pong = await b.runner.request(req(1, 'ping'), LEGACY, b.channel);
    assert.deepEqual((pong.response as ResultResponse).result, {});
    assert.deepEqual(provider.started, ['a1', 'a2'], "the ping did not wait for, nor start, identity a's third call");
    provider.release('a1');
    await provider.whenStarted('a3');
    assert.deepEqual(provider.started, ['a1', 'a2', 'a3']);
    provider.release('a2');
    provider.release('a3');
    const done = await Promise.all(calls);
    assert.ok(done.every((d) => !isError(d.response)));
    mem.close();
  });

  test('beyond limits.inflight (running and waiting) a new request is refused naming the setting', async () => {
    const provider = heldProvider();
    const mem = memoryServer(provider, { 'limits.inflightPerIdentity': 2, 'limits.inflight': 16 });
    const a = mem.runner();
    const calls = Array.from({ length: 16 }, (_, i) => a.runner.request(hold(i + 1, `k${i}`), LEGACY, a.channel));
    await Promise.all([provider.whenStarted('k0'), provider.whenStarted('k1')]);
    const b = mem.runner();
    const refused = await b.runner.request(req(1, 'ping'), LEGACY, b.channel);
    assert.ok(isError(refused.response));
    assert.equal(refused.response.error.code, -32603);
    assert.match(refused.response.error.message, /limits\.inflight \(16\)/);
    for (let i = 0; i < 16; i++) provider.release(`k${i}`);
    await Promise.all(calls);
    const pong = await b.runner.request(req(2, 'ping'), LEGACY, b.channel);
    assert.ok(!isError(pong.response), 'room again once they finished');
    mem.close();
  });
});

describe('limits.identitiesPerConnection', () => {
  test('one connection may name at most N identities in _meta; beyond, -32602 naming the setting', async () => {
    const mem = memoryServer(heldProvider(), { 'limits.identitiesPerConnection': 2 });
    const { runner, channel } = mem.runner();
    const as = (id: number, who: string) =>
      runner.request(req(id, 'tools/list', { _meta: { 'dev.mcpx/session': who } }), LEGACY, channel);
    assert.ok(!isError((await as(1, 'a')).response));
    assert.ok(!isError((await as(2, 'b')).response));
    const c = (await as(3, 'c')).response;
    assert.ok(isError(c));
    assert.equal(c.error.code, -32602);
    assert.match(c.error.message, /limits\.identitiesPerConnection/);
    assert.ok(!isError((await as(4, 'a')).response), 'an identity already named is still accepted');
    const other = mem.runner();
    const fresh = await other.runner.request(
      req(1, 'tools/list', { _meta: { 'dev.mcpx/session': 'c' } }),
      LEGACY,
      other.channel,
    );
    assert.ok(!isError(fresh.response), 'the bound is per connection');
    mem.close();
  });
});

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
      for (let i = 0; i < 200 && [...pids].some(alive); i++) await new Promise((r) => setTimeout(r, 50));
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
      for (let i = 0; i < 200 && [...pids].some(alive); i++) await new Promise((r) => setTimeout(r, 50));
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
      for (let i = 0; i < 200; i++) {
        if (gw.g.servers().filter((s) => s.state === 'running').length === 2) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const refused = await modernCall(c, 'echo', { text: 'c' }, 'c');
      assert.equal(refused.error?.code, -32603);
      assert.match(refused.error!.message, /upstream up: .*limits\.instancesPerServer/);
      ctl.abort();
      await Promise.all(busy);
      // a and b are idle now (their calls were cancelled): the least recently used one gives way.
      let ok: Json | undefined;
      for (let i = 0; i < 100 && !ok; i++) {
        const r = await modernCall(c, 'echo', { text: 'c' }, 'c');
        ok = r.result;
        if (!ok) await new Promise((res) => setTimeout(res, 50));
      }
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
