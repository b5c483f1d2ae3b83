// McpServer.handle() through the Runner, in memory, for what rides a request's stream: progress and log
// messages on the request channel, and subscriptions/listen streams (every frame checked against its
// revision's schema).
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, test } from 'node:test';
import type { JsonObject, Notification, Request } from '../../src/protocol/jsonrpc';
import { Conn } from '../../src/server/conn';
import { testProvider } from '../fixtures/provider';
import { heldProvider, memoryServer, req, modern, result, error } from '../harness/memory';
import { type Revision, assertServerFrame } from '../harness/schema';
import { CLIENT_INFO } from '../harness/wire';
import { turn } from '../harness/wait';

const MODERN: Revision = '2026-07-28';
const SUB = 'io.modelcontextprotocol/subscriptionId';

describe('McpServer: progress and log messages ride the request channel', () => {
  test('2026-07-28: progress when a token is given, log messages at the level asked for in _meta, each valid', async () => {
    const mem = memoryServer(testProvider());
    const { runner, channel } = mem.runner();
    const out = await runner.request(
      modern(
        1,
        'tools/call',
        { name: 'slow', arguments: { ms: 3, steps: 3 } },
        { progressToken: 'p1', 'io.modelcontextprotocol/logLevel': 'info' },
      ),
      MODERN,
      channel,
    );
    result(out.response);
    const progress = channel.emitted.filter((n) => n.method === 'notifications/progress');
    assert.deepEqual(
      progress.map((n) => n.params!.progress),
      [1, 2, 3],
      'only increasing progress is sent',
    );
    assert.ok(progress.every((n) => n.params!.progressToken === 'p1'));
    const logs = channel.emitted.filter((n) => n.method === 'notifications/message');
    assert.deepEqual(
      logs.map((n) => n.params!.level),
      ['info', 'info', 'info'],
      'debug messages are below the level asked for',
    );
    for (const n of channel.emitted) assertServerFrame(MODERN, n);
  });

  test('no log level asked for, no log messages; no token, no progress', async () => {
    const mem = memoryServer(testProvider());
    const { runner, channel } = mem.runner();
    result(
      (await runner.request(modern(1, 'tools/call', { name: 'slow', arguments: { ms: 3, steps: 2 } }), MODERN, channel))
        .response,
    );
    assert.deepEqual(channel.emitted, []);
  });

  test("legacy: logging/setLevel sets the connection's level for the requests that follow", async () => {
    const mem = memoryServer(testProvider());
    const { runner, channel } = mem.runner();
    result((await runner.request(req(0, 'logging/setLevel', { level: 'debug' }), '2025-11-25', channel)).response);
    const out = await runner.request(
      req(1, 'tools/call', { name: 'slow', arguments: { ms: 3, steps: 2 }, _meta: { progressToken: 7 } }),
      '2025-11-25',
      channel,
    );
    result(out.response);
    const logs = channel.emitted.filter((n) => n.method === 'notifications/message');
    assert.deepEqual(
      logs.map((n) => n.params!.level),
      ['info', 'debug', 'info', 'debug'],
    );
    const progress = channel.emitted.filter((n) => n.method === 'notifications/progress');
    assert.deepEqual(
      progress.map((n) => [n.params!.progressToken, n.params!.progress, n.params!.message]),
      [
        [7, 1, 'step 1'],
        [7, 2, 'step 2'],
      ],
    );
    for (const n of channel.emitted) assertServerFrame('2025-11-25', n);
  });

  test('progress message to 2024-11-05: kept by default, removed when 2024-11-05 is first in spec.precedence', async () => {
    const messagesIn = async (values: Record<string, unknown>) => {
      const mem = memoryServer(testProvider(), values);
      const { runner, channel } = mem.runner();
      result(
        (
          await runner.request(
            req(1, 'tools/call', { name: 'slow', arguments: { ms: 2, steps: 2 }, _meta: { progressToken: 't' } }),
            '2024-11-05',
            channel,
          )
        ).response,
      );
      const progress = channel.emitted.filter((n) => n.method === 'notifications/progress');
      assert.equal(progress.length, 2);
      return { progress, messages: progress.map((n) => 'message' in n.params!) };
    };
    assert.deepEqual((await messagesIn({})).messages, [true, true]);
    const strict = await messagesIn({ 'spec.first': '2024-11-05' });
    assert.deepEqual(strict.messages, [false, false]);
    for (const n of strict.progress) assertServerFrame('2024-11-05', n);
  });

  test('an unknown level in logging/setLevel is -32602 and leaves the level unchanged', async () => {
    const mem = memoryServer(testProvider());
    const { runner, conn, channel } = mem.runner();
    await runner.request(req(0, 'logging/setLevel', { level: 'error' }), '2025-11-25', channel);
    const out = await runner.request(req(1, 'logging/setLevel', { level: 'shouty' }), '2025-11-25', channel);
    assert.equal(error(out.response).code, -32602);
    assert.equal(conn.logLevel, 'error');
  });
});

describe('McpServer: subscriptions/listen', () => {
  const isAck = (f: Notification | Request) => f.method === 'notifications/subscriptions/acknowledged';

  test('2026-07-28: acknowledged first, a list change reaches the stream tagged with its id, close() ends it', async () => {
    const provider = heldProvider();
    const mem = memoryServer(provider);
    const { runner, channel } = mem.runner();
    const listen = runner.request(
      modern('L1', 'subscriptions/listen', { notifications: { toolsListChanged: true, promptsListChanged: true } }),
      MODERN,
      channel,
    );
    const ack = (await channel.waitFor(isAck)) as Notification;
    assert.equal(channel.frames[0], ack, 'nothing goes on the stream before the acknowledgement');
    assert.deepEqual(
      ack.params!.notifications,
      { toolsListChanged: true },
      'prompts are not offered by this provider: not agreed',
    );
    assert.equal((ack.params!._meta as JsonObject)[SUB], 'L1');
    assertServerFrame(MODERN, ack);

    provider.changed('prompts');
    provider.changed('tools');
    const changed = (await channel.waitFor((f) => f.method === 'notifications/tools/list_changed')) as Notification;
    assert.equal((changed.params!._meta as JsonObject)[SUB], 'L1');
    assertServerFrame(MODERN, changed);
    assert.equal(
      channel.frames.some((f) => f.method === 'notifications/prompts/list_changed'),
      false,
      'a change not agreed is not sent',
    );

    mem.close();
    const out = await listen;
    const r = result(out.response);
    assert.equal((r._meta as JsonObject)[SUB], 'L1');
    assert.equal(r.resultType, 'complete');
    assertServerFrame(MODERN, out.response, 'subscriptions/listen');
    const frames = channel.frames.length;
    provider.changed('tools');
    assert.equal(channel.frames.length, frames, 'an ended stream gets nothing more');
  });

  test('two listen streams each get the change with their own id', async () => {
    const provider = heldProvider();
    const mem = memoryServer(provider);
    const a = mem.runner();
    const b = mem.runner();
    const la = a.runner.request(
      modern(1, 'subscriptions/listen', { notifications: { toolsListChanged: true } }),
      MODERN,
      a.channel,
    );
    const lb = b.runner.request(
      modern(2, 'subscriptions/listen', { notifications: { toolsListChanged: true } }),
      MODERN,
      b.channel,
    );
    await Promise.all([a.channel.waitFor(isAck), b.channel.waitFor(isAck)]);
    provider.changed('tools');
    const ca = (await a.channel.waitFor((f) => f.method === 'notifications/tools/list_changed')) as Notification;
    const cb = (await b.channel.waitFor((f) => f.method === 'notifications/tools/list_changed')) as Notification;
    assert.deepEqual([(ca.params!._meta as JsonObject)[SUB], (cb.params!._meta as JsonObject)[SUB]], [1, 2]);
    mem.close();
    await Promise.all([la, lb]);
  });

  test('a listen cancelled by id gets no response and leaves no listener on the server-wide signal', async () => {
    const provider = heldProvider();
    const mem = memoryServer(provider);
    const { runner, channel } = mem.runner();
    const before = getEventListeners(mem.server.listens.closingSignal, 'abort').length;
    const listen = runner.request(
      modern(5, 'subscriptions/listen', { notifications: { toolsListChanged: true } }),
      MODERN,
      channel,
    );
    await channel.waitFor(isAck);
    assert.equal(getEventListeners(mem.server.listens.closingSignal, 'abort').length, before + 1);
    runner.notification({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } });
    const out = await listen;
    assert.equal(out.response, undefined);
    assert.equal(getEventListeners(mem.server.listens.closingSignal, 'abort').length, before);
    const frames = channel.frames.length;
    provider.changed('tools');
    await turn();
    assert.equal(channel.frames.length, frames, 'a cancelled stream gets nothing more');
  });

  test('legacy on stdio: no acknowledgement notification; when mcpx ends it, notifications/cancelled comes before the result', async () => {
    const provider = heldProvider();
    const mem = memoryServer(provider, {}, 'stdio');
    const { runner, channel } = mem.runner();
    const listen = runner.request(
      req(3, 'subscriptions/listen', { notifications: { toolsListChanged: true } }),
      '2025-11-25',
      channel,
    );
    await turn();
    assert.equal(channel.frames.some(isAck), false, 'a legacy client gets no acknowledgement notification');
    provider.changed('tools');
    const changed = (await channel.waitFor((f) => f.method === 'notifications/tools/list_changed')) as Notification;
    assert.equal((changed.params!._meta as JsonObject)[SUB], 3);
    mem.close();
    const out = await listen;
    const cancelled = channel.emitted.find((n) => n.method === 'notifications/cancelled');
    assert.ok(cancelled, 'the stream end is announced on stdio');
    assert.equal(cancelled.params!.requestId, 3);
    assert.equal((result(out.response)._meta as JsonObject)[SUB], 3);
    assert.equal('resultType' in result(out.response), false);
  });

  test('a legacy connection that can be pushed to gets list changes unsolicited once initialized', async () => {
    const provider = heldProvider();
    const mem = memoryServer(provider, {}, 'stdio');
    const pushed: Notification[] = [];
    const conn = new Conn('stdio', 'memory', (n) => (pushed.push(n), true));
    mem.server.listens.registerPush(conn);
    const { runner, channel } = mem.runner(conn);
    provider.changed('tools');
    assert.equal(pushed.length, 0, 'not before notifications/initialized');
    await runner.request(
      req(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO }),
      '2024-11-05',
      channel,
    );
    runner.notification({ jsonrpc: '2.0', method: 'notifications/initialized' });
    provider.changed('tools');
    assert.deepEqual(
      pushed.map((n) => n.method),
      ['notifications/tools/list_changed'],
    );
    conn.close();
    provider.changed('tools');
    assert.equal(pushed.length, 1, 'a closed connection gets nothing');
  });
});
