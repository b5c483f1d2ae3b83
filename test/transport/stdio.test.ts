// MCP over stdio against a real process (fixtures/serve.ts): defaults per era, concurrency and
// cancellation, initialize as a barrier, batches, bad input, the drain at EOF.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixture } from '../harness/gateway';
import type { Revision } from '../harness/schema';
import { type Json, StdioClient } from '../harness/wire';
import { until } from '../harness/wait';

const spawnServer = (rev: Revision, args: string[] = []) =>
  new StdioClient(process.execPath, [fixture('serve'), ...args], rev);

describe('stdio', () => {
  test('a client that declared nothing is spelled for 2024-11-05 (Oldest)', async () => {
    const c = spawnServer('2024-11-05');
    const r = await c.request('tools/call', { name: 'add', arguments: { a: 1, b: 2 } });
    assert.equal('structuredContent' in (r.result as Json), false);
    const rich = await c.request('tools/call', { name: 'rich', arguments: {} });
    assert.deepEqual(
      ((rich.result as Json).content as Json[]).map((b) => b.type),
      ['text', 'image', 'resource', 'text', 'resource'],
    );
    assert.equal(await c.close(), 0);
  });

  for (const rev of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as Revision[]) {
    test(`${rev}: handshake, paginated list, call, errors`, async () => {
      const c = spawnServer(rev, ['--page-size', '4']);
      const init = await c.initialize();
      assert.equal((init.result as Json).protocolVersion, rev);
      const p1 = (await c.request('tools/list')).result as Json;
      assert.equal((p1.tools as Json[]).length, 4);
      const p2 = (await c.request('tools/list', { cursor: p1.nextCursor })).result as Json;
      assert.equal((p2.tools as Json[]).length, 4);
      const call = (await c.request('tools/call', { name: 'echo', arguments: { text: 'yo' } })).result as Json;
      assert.deepEqual(call.content, [{ type: 'text', text: 'yo' }]);
      assert.equal(((await c.request('tools/call', { name: 'nope' })).error as Json).code, -32602);
      assert.equal(((await c.request('resources/read', { uri: 'test://x' })).error as Json).code, -32002);
      assert.equal(((await c.request('server/discover')).error as Json).code, -32601);
      assert.deepEqual((await c.request('ping')).result, {});
      assert.equal(await c.close(), 0);
    });
  }

  test('2026-07-28 per request on stdio: discover, envelope, removed methods', async () => {
    const c = spawnServer('2026-07-28');
    const d = (await c.request('server/discover')).result as Json;
    assert.equal(d.resultType, 'complete');
    assert.equal(d.cacheScope, 'public');
    const ping = await c.request('ping');
    assert.equal((ping.error as Json).code, -32601);
    const missing = await c.request('tools/list', {}, {});
    assert.equal((missing.result as Json).resultType, 'complete', 'a full _meta is present (the client adds it)');
    c.rev = '2026-07-28';
    const nometa = await new Promise<Json>((resolve) => {
      const id = 'x1';
      (c as unknown as { waiting: Map<unknown, unknown> }).waiting.set(id, { method: 'tools/list', resolve });
      c.send({
        jsonrpc: '2.0',
        id,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      });
    });
    assert.equal((nometa.error as Json).code, -32602);
    assert.equal(await c.close(), 0);
  });

  test('requests run concurrently; notifications/cancelled aborts the one it names', async () => {
    const c = spawnServer('2025-11-25');
    await c.initialize();
    const slow = c.request('tools/call', { name: 'slow', arguments: { ms: 3000, steps: 30 } }, {}, 'slow-1');
    const fast = await c.request('tools/call', { name: 'echo', arguments: { text: 'first' } });
    assert.equal(((fast.result as Json).content as Json[])[0]!.text, 'first', 'answered while the slow call runs');
    c.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow-1', reason: 'test' } });
    void slow;
    await until(() => /cancelled slow/.test(c.stderr), { what: 'the cancellation at the running call', every: 10 });
    assert.match(c.stderr, /cancelled slow/, 'the cancellation reached the running call');
    assert.deepEqual((await c.request('ping')).result, {});
    assert.equal(c.frames.filter((f) => f.id === 'slow-1').length, 0, 'a cancelled request is not answered');
    await c.close();
  });

  test('initialize is a barrier: what follows it is read in the negotiated revision', async () => {
    const c = spawnServer('2025-06-18');
    const init = c.initialize('2025-06-18');
    const add = c.request('tools/call', { name: 'add', arguments: { a: 1, b: 1 } });
    await init;
    assert.deepEqual(((await add).result as Json).structuredContent, { sum: 2 });
    await c.close();
  });

  test('a batch before initialize is 2025-03-26; after a 2025-06-18 initialize it is refused', async () => {
    const c = spawnServer('2025-03-26');
    const out = await c.batch([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {} } },
    ]);
    assert.deepEqual(
      out.map((f) => f.id),
      [1, 2],
    );
    assert.equal((out[1]!.error as Json).code, -32600);
    await c.close();
    const d = spawnServer('2025-06-18');
    await d.initialize();
    d.send([{ jsonrpc: '2.0', id: 5, method: 'ping' }]);
    const err = await d.nextFrame();
    assert.equal((err.error as Json).code, -32600);
    assert.match(String((err.error as Json).message), /2025-03-26 only/);
    await d.close();
  });

  test('bad lines get their errors; the server keeps serving', async () => {
    const c = spawnServer('2025-11-25');
    await c.initialize();
    for (const [line, code] of [
      ['{"jsonrpc":"2.0","id":1,"method":', -32700],
      ['{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600],
      ['{"id":3,"method":"ping"}', -32600],
    ] as const) {
      const next = c.nextFrame();
      c.send(line);
      assert.equal(((await next).error as Json).code, code, line);
    }
    assert.deepEqual((await c.request('ping')).result, {});
    await c.close();
  });

  test('at EOF requests in flight get the drain time, then the process exits', async () => {
    const c = spawnServer('2025-11-25');
    await c.initialize();
    const quick = c.request('tools/call', { name: 'slow', arguments: { ms: 100, steps: 1 } });
    const long = c.request('tools/call', { name: 'slow', arguments: { ms: 10_000, steps: 10 } });
    c.child.stdin.end();
    assert.equal(((await quick).result as Json).content instanceof Array, true, 'finished within the drain');
    assert.equal(((await long).error as Json).code, -32603, 'aborted after the drain');
    assert.equal(await c.exited, 0);
  });
});
