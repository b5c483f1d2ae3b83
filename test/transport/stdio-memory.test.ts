// StdioTransport in-process, over PassThrough pipes (no child process): line handling, initialize as a
// barrier for lines that arrive in one burst, batches per revision, cancellation, and the drain at EOF.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject } from '../../src/protocol/jsonrpc';
import { testProvider } from '../fixtures/provider';
import { heldProvider, memoryServer, memoryStdio } from '../harness/memory';
import { assertServerFrame } from '../harness/schema';
import { CLIENT_INFO } from '../harness/wire';
import { turn } from '../harness/wait';

type Msg = JsonObject & { id?: unknown; result?: JsonObject; error?: JsonObject; method?: string };
const byId = (id: unknown) => (m: unknown) => (m as Msg).id === id;
const init = (id: number, protocolVersion: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: CLIENT_INFO },
});

describe('StdioTransport in memory', () => {
  test('initialize and the request after it in one write: the request is read in the negotiated revision', async () => {
    const mem = memoryServer(testProvider(), {}, 'stdio');
    const io = memoryStdio(mem.server);
    io.write(
      `${JSON.stringify(init(1, '2025-03-26'))}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}`,
    );
    const list = (await io.next(byId(2))) as Msg;
    const add = (list.result!.tools as JsonObject[]).find((t) => t.name === 'add')!;
    assert.equal('annotations' in add, true, '2025-03-26 has tool annotations');
    assert.equal('title' in add, false, 'and no title: the list was not spelled for 2024-11-05 or a later revision');
    assertServerFrame('2025-03-26', list, 'tools/list');
    assert.equal(((await io.next(byId(1))) as Msg).result!.protocolVersion, '2025-03-26');
    io.end();
    await io.transport.closed;
  });

  test('a line that is not JSON is -32700 without id; a malformed message is -32600 with its id; blank lines are skipped', async () => {
    const mem = memoryServer(testProvider(), {}, 'stdio');
    const io = memoryStdio(mem.server);
    io.write('{not json');
    io.write('   ');
    io.write({ jsonrpc: '2.0', id: 'bad', method: 42 });
    io.write({ jsonrpc: '2.0', id: 3, method: 'ping' });
    await io.next(byId(3));
    const [parse, bad, ping] = io.messages as Msg[];
    assert.equal(io.messages.length, 3, 'the blank line got no answer');
    assert.deepEqual([parse!.error!.code, 'id' in parse!], [-32700, false]);
    assert.deepEqual([bad!.id, bad!.error!.code], ['bad', -32600]);
    assert.deepEqual(ping!.result, {});
    for (const m of io.messages) assertServerFrame('2024-11-05', m, 'ping');
    io.end();
    await io.transport.closed;
  });

  test('a batch before initialize is answered (2025-03-26); after a 2025-11-25 initialize it is refused', async () => {
    const mem = memoryServer(testProvider(), {}, 'stdio');
    const io = memoryStdio(mem.server);
    io.write([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/list' },
    ]);
    const batch = (await io.next((m) => Array.isArray(m))) as Msg[];
    assert.deepEqual(batch.map((r) => r.id).sort(), ['a', 'b']);
    assertServerFrame('2025-03-26', batch, { a: 'ping', b: 'tools/list' });
    io.write(init(1, '2025-11-25'));
    await io.next(byId(1));
    io.write([{ jsonrpc: '2.0', id: 'c', method: 'ping' }]);
    const refused = (await io.next(
      (m) => !Array.isArray(m) && (m as Msg).error !== undefined && !('id' in (m as Msg)),
    )) as Msg;
    assert.equal(refused.error!.code, -32600);
    assert.equal(
      io.messages.some((m) => Array.isArray(m) && m.some(byId('c'))),
      false,
    );
    io.end();
    await io.transport.closed;
  });

  test('notifications/cancelled on the pipe cancels the request it names, which is never answered', async () => {
    const provider = heldProvider();
    const mem = memoryServer(provider, {}, 'stdio');
    const io = memoryStdio(mem.server);
    const hold = (id: number, key: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'hold', arguments: { key } },
    });
    io.write(hold(1, 'a'));
    io.write(hold(2, 'b'));
    await Promise.all([provider.whenStarted('a'), provider.whenStarted('b')]);
    io.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    await turn();
    provider.release('b');
    const b = (await io.next(byId(2))) as Msg;
    assert.ok(b.result);
    assert.deepEqual(provider.aborted, ['a']);
    io.end();
    await io.transport.closed;
    assert.equal(io.messages.some(byId(1)), false, 'the cancelled request got no response');
  });

  test('at EOF a request in flight may still answer within the drain; one that does not is aborted', async () => {
    const provider = heldProvider();
    const mem = memoryServer(provider, {}, 'stdio');
    const io = memoryStdio(mem.server, 200);
    const hold = (id: number, key: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'hold', arguments: { key } },
    });
    io.write(hold(1, 'quick'));
    io.write(hold(2, 'never'));
    await Promise.all([provider.whenStarted('quick'), provider.whenStarted('never')]);
    io.end();
    setTimeout(() => provider.release('quick'), 20);
    await io.transport.closed;
    assert.ok(((await io.next(byId(1))) as Msg).result, 'answered during the drain');
    assert.deepEqual(provider.aborted, ['never'], 'the other was aborted when the drain ran out');
    assert.equal(io.transport.conn.isClosed, true);
  });
});
