// Bounds per identity and in total (docs/security.md "Bounds"): each with small limits, each asserting
// what happens at the bound by counts and errors, never by durations.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { ProtocolError } from '../../src/protocol/errors';
import {
  type ErrorResponse,
  type JsonObject,
  type Request,
  type Response,
  type ResultResponse,
  parseJson,
} from '../../src/protocol/jsonrpc';
import type { Provider } from '../../src/server/provider';
import { toolsOf } from '../fixtures/provider';
import { LineSplitter } from '../../src/wire/lines';
import { startTestServer } from '../harness/gateway';
import { heldProvider, memoryServer, memoryStdio } from '../harness/memory';
import { fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { turn } from '../harness/wait';

after(() => killAll());

const LEGACY = '2025-11-25';
const req = (id: number, method: string, params?: JsonObject): Request =>
  params ? { jsonrpc: '2.0', id, method, params } : { jsonrpc: '2.0', id, method };
const hold = (id: number, key: string) => req(id, 'tools/call', { name: 'hold', arguments: { key } });
const isError = (r: Response | undefined): r is ErrorResponse => r !== undefined && 'error' in r;
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
    await turn();
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
      await turn();
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
    for (let i = 0; i < 5; i++) await turn();
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
