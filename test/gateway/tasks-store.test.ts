// Tasks when their clients go away and at their bounds (docs/protocol.md "Tasks"): a question nobody on the
// wire can take waits at the broker, a task cancelled while it waits, a client gone and its identity
// collecting later, the store's bounds and sweep, and a tool whose task support is "forbidden".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestGateway, gatewayFor } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { stays, until, untilValue } from '../harness/wait';
import { EXT, servers, settings, terminal, listenUntil } from './tasksKit';

describe('tasks: questions, clients that go away, bounds', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await gatewayFor(servers(), { ...settings, 'limits.tasksPerIdentity': 2 });
  });
  after(() => gw.close());

  const modern = (caps: Json = { ...EXT }) => new HttpClient(gw.url, '2026-07-28', { capabilities: caps });
  const nameHeader = (id: unknown) => ({ headers: { 'Mcp-Name': String(id) } });
  /** The broker's question of a task whose client cannot answer it (it declared no elicitation). */
  async function brokerQuestion(): Promise<string> {
    const q = await until(() => gw.g.questions().find((x) => x.method === 'elicitation/create'), {
      what: 'a question at the broker',
      timeout: 10_000,
    });
    return q.id;
  }

  test('a question nobody on the wire can take waits at the broker; answered there, the task completes', async () => {
    const c = modern();
    const created = (await c.request('tools/call', { name: 'confirm_delete', arguments: { filename: 'k.txt' } }))
      .result!;
    assert.equal(created.resultType, 'task');
    const id = await brokerQuestion();
    assert.equal(gw.g.answer(id, { action: 'accept', content: { confirm: true } }), undefined);
    const done = await untilValue(
      async () => (await c.request('tasks/get', { taskId: created.taskId }, nameHeader(created.taskId))).result!,
      terminal,
    );
    assert.equal(done.status, 'completed');
  });

  test('cancelling a task waiting on a question withdraws the question and ends the upstream call', async () => {
    const c = modern();
    const created = (await c.request('tools/call', { name: 'confirm_delete', arguments: { filename: 'w.txt' } }))
      .result!;
    await brokerQuestion();
    await c.request('tasks/cancel', { taskId: created.taskId }, nameHeader(created.taskId));
    await until(() => gw.g.questions().length === 0, { what: 'the question gone', timeout: 5000 });
    assert.equal(gw.g.questions().length, 0, 'the question left the broker with its task');
    const t = (await c.request('tasks/get', { taskId: created.taskId }, nameHeader(created.taskId))).result!;
    assert.equal(t.status, 'cancelled');
  });

  test('a legacy client that went away: its named identity collects the task later from a new session', async () => {
    const meta = { 'dev.mcpx/session': 'carol-0123456789abcdef0' };
    const first = new HttpClient(gw.url, '2025-11-25');
    await first.initialize();
    const created = (
      await first.request(
        'tools/call',
        {
          name: 'mcpx_call',
          arguments: { server: 'conf', tool: 'slow_compute', arguments: { seconds: 1, label: 'away' } },
          task: {},
        },
        { meta },
      )
    ).result!;
    const id = (created.task as Json).taskId;
    const gone = await fetch(gw.url, { method: 'DELETE', headers: first.headers() });
    assert.ok(gone.ok, `DELETE ended the session (${gone.status})`);
    const later = new HttpClient(gw.url, '2025-11-25');
    await later.initialize();
    assert.equal((await later.request('tasks/get', { taskId: id })).error?.code, -32602, 'not without the identity');
    const result = (await later.request('tasks/result', { taskId: id }, { meta })).result!;
    assert.deepEqual((result._meta as Json)['io.modelcontextprotocol/related-task'], { taskId: id });
  });

  test('running tasks are bounded per identity (limits.tasksPerIdentity), with the setting named', async () => {
    const meta = { 'dev.mcpx/session': 'dave-0123456789abcdef01' };
    const c = modern();
    const start = (label: string) =>
      c.request('tools/call', { name: 'slow_compute', arguments: { seconds: 60, label } }, { meta });
    const a = (await start('a')).result!;
    const b = (await start('b')).result!;
    const refused = await start('c');
    assert.equal(refused.error?.code, -32603);
    assert.match(String(refused.error?.message), /limits\.tasksPerIdentity/);
    for (const t of [a, b]) await c.request('tasks/cancel', { taskId: t.taskId }, { meta, ...nameHeader(t.taskId) });
    // Ended tasks do not count.
    const again = (await start('d')).result!;
    assert.equal(again.resultType, 'task');
    await c.request('tasks/cancel', { taskId: again.taskId }, { meta, ...nameHeader(again.taskId) });
  });

  test('a listen cannot subscribe to another identity’s task', async () => {
    const c = modern();
    const mine = { 'dev.mcpx/session': 'erin-0123456789abcdef01' };
    const created = (
      await c.request('tools/call', { name: 'slow_compute', arguments: { seconds: 60, label: 'x' } }, { meta: mine })
    ).result!;
    const frames = await listenUntil(
      c,
      { taskIds: [created.taskId] },
      { 'dev.mcpx/session': 'frank-0123456789abcdef0' },
      (f) => f.some((x) => x.method === 'notifications/subscriptions/acknowledged'),
    );
    const ack = frames.find((f) => f.method === 'notifications/subscriptions/acknowledged')!;
    assert.deepEqual((ack.params as Json).notifications, { taskIds: [] });
    await c.request('tasks/cancel', { taskId: created.taskId }, { meta: mine, ...nameHeader(created.taskId) });
  });
});

describe('tasks: the store', () => {
  test('an ended task is kept proto.askTTL, then pruned (-32602 after); its ttl says when', async () => {
    const { Tasks } = await import('../../src/server/tasks');
    const { BackgroundCall } = await import('../../src/server/mrtr');
    const tasks = new Tasks(
      () => 1000,
      () => 100,
      () => ({ perIdentity: 4, total: 8, held: 2 }),
    );
    try {
      const call = new BackgroundCall('tools/call', 'tools/call x', 'client:a');
      const t = tasks.create(call, { label: 'x', era: 'modern', identity: 'client:a' });
      const seen: string[] = [];
      t.onChange((x) => seen.push(x.status));
      call.run(Promise.resolve({ content: [], isError: true }));
      await until(() => t.status !== 'working', { what: 'the task ended' });
      assert.equal(t.status, 'completed', 'the extension: a tool error completes');
      assert.deepEqual(seen, ['completed']);
      assert.equal(t.ttl(), t.endedAt! - t.createdAt + 1000);
      assert.equal(tasks.get(t.id, 'client:a'), t);
      assert.throws(() => tasks.get(t.id, 'client:b'), /no task/);
      tasks.sweep(t.endedAt! + 999);
      assert.equal(tasks.get(t.id, 'client:a'), t);
      tasks.sweep(t.endedAt! + 1001);
      assert.throws(() => tasks.get(t.id, 'client:a'), /no task/);
      // The 2025-11-25 reading of the same outcome: failed.
      const legacy = new BackgroundCall('tools/call', 'tools/call y', 'client:a');
      const lt = tasks.create(legacy, { label: 'y', era: 'legacy', identity: 'client:a' });
      legacy.run(Promise.resolve({ content: [], isError: true }));
      await until(() => lt.status !== 'working', { what: 'the legacy task ended' });
      assert.equal(lt.status, 'failed');
      // Cancelled stays cancelled, whatever the work does after.
      const c = new BackgroundCall('tools/call', 'tools/call z', 'client:a');
      const ct = tasks.create(c, { label: 'z', era: 'modern', identity: 'client:a' });
      let finish!: (r: Json) => void;
      c.run(new Promise<Json>((r) => (finish = r)));
      assert.equal(ct.cancel('test'), true);
      assert.equal(ct.cancel('again'), false);
      finish({ content: [] });
      await stays(() => ct.status === 'cancelled', { for: 10 });
      assert.equal(ct.status, 'cancelled');
      assert.ok(c.abort.aborted, 'the work behind it was aborted');
      // Two held (one of three created was pruned): another is refused, ended ones counting, naming the setting.
      assert.throws(
        () =>
          tasks.create(new BackgroundCall('tools/call', 'w', 'client:b'), {
            label: 'w',
            era: 'modern',
            identity: 'client:b',
          }),
        /limits\.tasks\b/,
      );
    } finally {
      tasks.close();
    }
  });
});

describe('a tool whose task support is "forbidden"', () => {
  test('never a task: inline to a 2026-07-28 client that declared the extension however slow it is; a 2025-11-25 task call is -32601', async () => {
    const { hostile, killHostiles } = await import('../harness/hostile');
    const slow = {
      tool: { name: 'slowly', inputSchema: { type: 'object' }, execution: { taskSupport: 'forbidden' } },
      result: { content: [{ type: 'text', text: 'inline' }] },
      delayMs: 600,
    };
    const gw = await gatewayFor(
      { h: hostile('--tool-json', JSON.stringify([slow])) },
      { 'mcp.passthrough': ['h'], 'protoMessages.taskAfter': '100ms' },
    );
    try {
      const modern = new HttpClient(gw.url, '2026-07-28', { capabilities: EXT });
      const r = (await modern.request('tools/call', { name: 'slowly', arguments: {} })).result!;
      assert.equal(r.resultType, 'complete', 'past the eager window and taskAfter, still answered inline');
      assert.equal(((r.content as Json[])[0] as Json).text, 'inline');
      const legacy = new HttpClient(gw.url, '2025-11-25');
      await legacy.initialize();
      const listed = ((await legacy.request('tools/list')).result!.tools as Json[]).find((t) => t.name === 'slowly')!;
      assert.deepEqual(listed.execution, { taskSupport: 'forbidden' });
      const asTask = await legacy.request('tools/call', { name: 'slowly', arguments: {}, task: { ttl: 60_000 } });
      assert.equal(asTask.error?.code, -32601);
      assert.match(String(asTask.error?.message), /does not support task-augmented calls/);
      const inline = (await legacy.request('tools/call', { name: 'slowly', arguments: {} })).result!;
      assert.equal(((inline.content as Json[])[0] as Json).text, 'inline');
    } finally {
      await gw.close();
      killHostiles();
    }
  });
});
