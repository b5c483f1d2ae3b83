// Tasks through the gateway, end to end, both eras (docs/protocol.md "Tasks"): a 2026-07-28 client with
// the extension, a 2025-11-25 session and a 2025-11-25 stdio client, in front of a task-supporting
// 2026-07-28 upstream (the conformance fixture, which mcpx drives as a task requestor) and a plain
// upstream without tasks. Every frame the clients receive is validated strictly (HttpClient and
// StdioClient do it; the extension's messages against its own schema).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestGateway, gatewayFor } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { untilValue } from '../harness/wait';
import { EXT, servers, settings, terminal, listenUntil } from './tasksKit';

describe('tasks: a 2026-07-28 client (the extension)', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await gatewayFor(servers(), settings);
  });
  after(() => gw.close());

  const client = (caps: Json = { elicitation: {}, ...EXT }, session?: string) =>
    new HttpClient(gw.url, '2026-07-28', { capabilities: caps, ...(session ? {} : {}) });
  const get = (c: HttpClient, taskId: unknown, meta: Json = {}) =>
    c.request('tasks/get', { taskId }, { meta, headers: { 'Mcp-Name': String(taskId) } });

  test('declared in server/discover as the extension, never as core tasks', async () => {
    const r = (await client().request('server/discover')).result!;
    const caps = r.capabilities as Json;
    assert.deepEqual((caps.extensions as Json)['io.modelcontextprotocol/tasks'], {});
    assert.equal('tasks' in caps, false);
  });

  test('a quick call is answered directly; a slow one becomes a task whose result tasks/get inlines', async () => {
    const c = client();
    const quick = (await c.request('tools/call', { name: 'greet', arguments: { name: 'W' } })).result!;
    assert.equal(quick.resultType, 'complete');
    const created = (await c.request('tools/call', { name: 'slow_compute', arguments: { seconds: 1, label: 'x' } }))
      .result!;
    assert.equal(created.resultType, 'task');
    assert.equal(typeof created.taskId, 'string');
    assert.ok(created.ttlMs === null || (typeof created.ttlMs === 'number' && created.ttlMs > 0));
    assert.equal('requestState' in created, false);
    const done = await untilValue(async () => (await get(c, created.taskId)).result!, terminal);
    assert.equal(done.status, 'completed');
    assert.equal(done.resultType, 'complete');
    assert.ok(Array.isArray((done.result as Json).content));
    assert.equal(
      'io.modelcontextprotocol/related-task' in (((done.result as Json)._meta as Json | undefined) ?? {}),
      false,
    );
  });

  test('a question after the window parks the task in input_required; tasks/update answers it', async () => {
    const c = client();
    const created = (await c.request('tools/call', { name: 'confirm_delete', arguments: { filename: 'a.txt' } }))
      .result!;
    assert.equal(created.resultType, 'task', 'the upstream made it a task, so mcpx does too');
    const waiting = await untilValue(
      async () => (await get(c, created.taskId)).result!,
      (t) => t.status !== 'working',
    );
    assert.equal(waiting.status, 'input_required');
    const [key, q] = Object.entries(waiting.inputRequests as Record<string, Json>)[0]!;
    assert.equal(q.method, 'elicitation/create');
    // An unknown key is ignored; the real one answers.
    const ack = await c.request(
      'tasks/update',
      {
        taskId: created.taskId,
        inputResponses: { nope: { action: 'accept' }, [key]: { action: 'accept', content: { confirm: true } } },
      },
      { headers: { 'Mcp-Name': String(created.taskId) } },
    );
    assert.deepEqual(Object.keys(ack.result!).sort(), ['_meta', 'resultType']);
    const done = await untilValue(async () => (await get(c, created.taskId)).result!, terminal);
    assert.equal(done.status, 'completed');
  });

  test('an upstream JSON-RPC error fails the task with that error; a tool error completes it', async () => {
    const c = client();
    const failed = (await c.request('tools/call', { name: 'protocol_error_job', arguments: {} })).result!;
    const f = await untilValue(async () => (await get(c, failed.taskId)).result!, terminal);
    assert.equal(f.status, 'failed');
    assert.equal(typeof (f.error as Json).code, 'number');
    const isError = (await c.request('tools/call', { name: 'failing_job', arguments: {} })).result!;
    const e = await untilValue(async () => (await get(c, isError.taskId)).result!, terminal);
    assert.equal(e.status, 'completed');
    assert.equal((e.result as Json).isError, true);
  });

  test('without the extension: tasks/* and a required tool are -32021; tasks/list is -32601; a bad id -32602', async () => {
    const bare = client({});
    const r = await bare.request('tasks/get', { taskId: 'x' }, { headers: { 'Mcp-Name': 'x' } });
    assert.equal(r.error?.code, -32021);
    assert.ok(((r.error!.data as Json).requiredCapabilities as Json).extensions);
    assert.equal(r.reply.status, 400);
    const req = await bare.request('tools/call', { name: 'failing_job', arguments: {} });
    assert.equal(req.error?.code, -32021);
    const withExt = client();
    assert.equal((await withExt.request('tasks/list')).error?.code, -32601);
    assert.equal((await withExt.request('tasks/result', { taskId: 'x' })).error?.code, -32601);
    assert.equal((await get(withExt, 'no-such-task')).error?.code, -32602);
    // A sync optional tool for a client without the extension: answered directly.
    const sync = (await bare.request('tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 's' } }))
      .result!;
    assert.equal(sync.resultType, 'complete');
  });

  test('Mcp-Name mirrors the taskId: a contradiction is -32020, an omission is tolerated', async () => {
    const c = client();
    const created = (await c.request('tools/call', { name: 'slow_compute', arguments: { seconds: 5, label: 'h' } }))
      .result!;
    const wrong = await c.request('tasks/get', { taskId: created.taskId }, { headers: { 'Mcp-Name': 'other' } });
    assert.equal(wrong.error?.code, -32020);
    const body = { jsonrpc: '2.0', id: c.id(), method: 'tasks/get', params: c.params({ taskId: created.taskId }) };
    const h = c.headers(body);
    delete h['Mcp-Name'];
    const omitted = await c.post(body, h);
    assert.equal((omitted.frames[0]!.result as Json).taskId, created.taskId);
    await c.request('tasks/cancel', { taskId: created.taskId }, { headers: { 'Mcp-Name': String(created.taskId) } });
  });

  test('a task belongs to its identity: another cannot see or cancel it; a cancelled task stays cancelled', async () => {
    const alice = client(undefined);
    const bob = client(undefined);
    const as = { 'dev.mcpx/session': 'alice-0123456789abcdef' };
    const bs = { 'dev.mcpx/session': 'bob-0123456789abcdef01' };
    const created = (
      await alice.request(
        'tools/call',
        { name: 'slow_compute', arguments: { seconds: 60, label: 'own' } },
        { meta: as },
      )
    ).result!;
    assert.equal((await get(bob, created.taskId, bs)).error?.code, -32602);
    const bobCancel = await bob.request(
      'tasks/cancel',
      { taskId: created.taskId },
      { meta: bs, headers: { 'Mcp-Name': String(created.taskId) } },
    );
    assert.equal(bobCancel.error?.code, -32602);
    assert.equal((await get(alice, created.taskId, as)).result!.status, 'working');
    const ack = await alice.request(
      'tasks/cancel',
      { taskId: created.taskId },
      { meta: as, headers: { 'Mcp-Name': String(created.taskId) } },
    );
    assert.equal(ack.result!.resultType, 'complete');
    assert.equal((await get(alice, created.taskId, as)).result!.status, 'cancelled');
    // Cancel on a finished task is acknowledged too (the extension), and it stays cancelled.
    const again = await alice.request(
      'tasks/cancel',
      { taskId: created.taskId },
      { meta: as, headers: { 'Mcp-Name': String(created.taskId) } },
    );
    assert.equal(again.result!.resultType, 'complete');
    assert.equal(gw.g !== undefined, true);
  });

  test('a tool declaring nothing becomes a task after protoMessages.taskAfter for a client that cannot answer inline; cancel reaches the upstream', async () => {
    const c = client({ ...EXT });
    // Started first (without the extension): a cold upstream's start-up alone may outlast the window.
    const echo = { name: 'mcpx_call', arguments: { server: 'plain', tool: 'echo', arguments: { text: 'hi' } } };
    await client({}).request('tools/call', echo);
    await client({}).request('tools/call', { name: 'mcpx_tools', arguments: { server: 'stuck' } });
    const t0 = Date.now();
    const created = (
      await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'plain', tool: 'echo', arguments: { text: 'hi' } },
      })
    ).result!;
    assert.equal(created.resultType, 'complete', 'a quick call is answered directly');
    const slow = (
      await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'stuck', tool: 'echo', arguments: { text: 'x' } },
      })
    ).result!;
    assert.equal(slow.resultType, 'task');
    assert.ok(Date.now() - t0 >= 250, 'mcpx_call is "optional": the eager window passed first');
    await c.request('tasks/cancel', { taskId: slow.taskId }, { headers: { 'Mcp-Name': String(slow.taskId) } });
    assert.equal((await get(c, slow.taskId)).result!.status, 'cancelled');
  });

  test('subscriptions/listen with taskIds: acknowledged with the visible ones, then notifications/tasks', async () => {
    const c = client();
    const created = (await c.request('tools/call', { name: 'slow_compute', arguments: { seconds: 1, label: 'l' } }))
      .result!;
    const frames = await listenUntil(c, { taskIds: [created.taskId, 'not-a-task'] }, {}, (f) =>
      f.some((x) => x.method === 'notifications/tasks' && (x.params as Json).status === 'completed'),
    );
    const ack = frames.find((f) => f.method === 'notifications/subscriptions/acknowledged')!;
    assert.deepEqual((ack.params as Json).notifications, { taskIds: [created.taskId] });
    const updates = frames.filter((f) => f.method === 'notifications/tasks').map((f) => (f.params as Json).status);
    assert.equal(updates[0], 'working', 'the current state at once');
    assert.equal(updates.at(-1), 'completed');
    const { assertServerFrame } = await import('../harness/schema');
    for (const f of frames) if (!('id' in f)) assertServerFrame('2026-07-28', f);
    const bare = client({});
    const refused = await bare.request('subscriptions/listen', { notifications: { taskIds: [created.taskId] } });
    assert.equal(refused.error?.code, -32021);
  });
});
