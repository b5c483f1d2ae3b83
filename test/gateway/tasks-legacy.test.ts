// Tasks through the gateway for 2025-11-25 clients (docs/protocol.md "Tasks"): a session's core tasks and a
// stdio client (mcpx serve), its task that asks, and one cancelled while it waits on its question; in front
// of the task-supporting conformance fixture and a plain upstream. Every frame validated strictly.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { repoRoot } from '../harness/gateway';
import { type TestGateway, fixtureCommand, gatewayFor } from '../harness/upstreams';
import { HttpClient, type Json, StdioClient } from '../harness/wire';
import { stays, until, untilValue } from '../harness/wait';

const CONFORMANCE = () => join(repoRoot(), 'build', 'test', 'fixtures', 'conformance', 'server.js');
const servers = () => ({
  conf: { command: process.execPath, args: [CONFORMANCE()] },
  plain: fixtureCommand(['--rev', '2025-06-18', '--name', 'plain']),
  stuck: fixtureCommand(['--rev', '2025-11-25', '--name', 'stuck', '--fail', 'hang']),
});
const settings = { 'mcp.passthrough': 'conf', 'protoMessages.taskAfter': '300ms', 'proto.taskPollInterval': '100ms' };

const text = (r: Json | undefined) => ((r?.content as Json[] | undefined)?.[0]?.text as string | undefined) ?? '';

/** A 2025-11-25 stdio client that declared elicitation, on `mcpx serve` with these servers. */
function serveClient(dir: string): StdioClient {
  const config = join(dir, 'serve.json');
  writeFileSync(config, JSON.stringify({ servers: servers() }));
  return new StdioClient(
    process.execPath,
    [join(repoRoot(), 'dist', 'cli.js'), 'serve', '--transport', 'stdio', '--standalone', '--config', config],
    '2025-11-25',
    { elicitation: {} },
  );
}

describe('tasks: a 2025-11-25 session (core tasks)', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await gatewayFor(servers(), settings);
  });
  after(() => gw.close());

  test('declared to 2025-11-25 only; mcpx_call is "optional"', async () => {
    const c = new HttpClient(gw.url, '2025-11-25');
    const init = (await c.initialize()).result!;
    assert.deepEqual((init.capabilities as Json).tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const old = new HttpClient(gw.url, '2025-06-18');
    assert.equal('tasks' in ((await old.initialize()).result!.capabilities as Json), false);
    const tools = (await c.request('tools/list')).result!.tools as Json[];
    assert.deepEqual(tools.find((t) => t.name === 'mcpx_call')!.execution, { taskSupport: 'optional' });
    const oldTools = (await old.request('tools/list')).result!.tools as Json[];
    assert.equal('execution' in oldTools.find((t) => t.name === 'mcpx_call')!, false);
  });

  test('task field: CreateTaskResult at once; tasks/get, tasks/list (own only), tasks/result with related-task', async () => {
    const c = new HttpClient(gw.url, '2025-11-25');
    await c.initialize();
    const other = new HttpClient(gw.url, '2025-11-25');
    await other.initialize();
    const args = {
      name: 'mcpx_call',
      arguments: { server: 'conf', tool: 'slow_compute', arguments: { seconds: 1, label: 'c' } },
    };
    const created = (await c.request('tools/call', { ...args, task: { ttl: 60000 } })).result!;
    const task = created.task as Json;
    assert.equal(task.status, 'working');
    assert.equal(typeof task.ttl, 'number');
    assert.equal((await c.request('tasks/get', { taskId: task.taskId })).result!.taskId, task.taskId);
    const listed = (await c.request('tasks/list')).result!.tasks as Json[];
    assert.ok(listed.some((t) => t.taskId === task.taskId));
    assert.equal(((await other.request('tasks/list')).result!.tasks as Json[]).length, 0, 'another session sees none');
    assert.equal((await other.request('tasks/get', { taskId: task.taskId })).error?.code, -32602);
    assert.equal((await other.request('tasks/cancel', { taskId: task.taskId })).error?.code, -32602);
    const result = (await c.request('tasks/result', { taskId: task.taskId })).result!;
    assert.ok(text(result).length > 0);
    assert.deepEqual((result._meta as Json)['io.modelcontextprotocol/related-task'], { taskId: task.taskId });
    // Cancelling a finished task is -32602 (2025-11-25).
    assert.equal((await c.request('tasks/cancel', { taskId: task.taskId })).error?.code, -32602);
  });

  test('a task-augmented call to a tool without task support is -32601; a cancelled task stays cancelled', async () => {
    const c = new HttpClient(gw.url, '2025-11-25');
    await c.initialize();
    const refused = await c.request('tools/call', { name: 'greet', arguments: { name: 'x' }, task: {} });
    assert.equal(refused.error?.code, -32601);
    const created = (
      await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'stuck', tool: 'echo', arguments: { text: 'x' } },
        task: {},
      })
    ).result!;
    const id = (created.task as Json).taskId;
    const cancelled = (await c.request('tasks/cancel', { taskId: id })).result!;
    assert.equal(cancelled.status, 'cancelled');
    await stays(async () => (await c.request('tasks/get', { taskId: id })).result!.status === 'cancelled', {
      for: 200,
      what: 'the task cancelled',
    });
    assert.equal((await c.request('tasks/get', { taskId: id })).result!.status, 'cancelled');
    const r = await c.request('tasks/result', { taskId: id });
    assert.match(String(r.error?.message), /cancelled/);
  });
});

describe('tasks: a 2025-11-25 stdio client (mcpx serve)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcpx-tasks-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a task that asks: input_required while the question is out, the question carries related-task', async () => {
    const c = serveClient(dir);
    try {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      c.answer = async (req) => {
        await held;
        return req.method === 'elicitation/create' ? { action: 'accept', content: { confirm: true } } : {};
      };
      await c.initialize();
      const created = await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'conf', tool: 'confirm_delete', arguments: { filename: 'b.txt' } },
        task: {},
      });
      const id = ((created.result as Json).task as Json).taskId;
      const waiting = await untilValue(
        async () => (await c.request('tasks/get', { taskId: id })).result as Json,
        (t) => t.status !== 'working',
      );
      assert.equal(waiting.status, 'input_required');
      const q = c.frames.find((f) => f.method === 'elicitation/create')!;
      assert.deepEqual(((q.params as Json)._meta as Json)['io.modelcontextprotocol/related-task'], { taskId: id });
      release();
      const result = (await c.request('tasks/result', { taskId: id })).result as Json;
      assert.equal(result.isError ?? false, false);
      const statuses = c.frames
        .filter((f) => f.method === 'notifications/tasks/status')
        .map((f) => (f.params as Json).status);
      assert.ok(statuses.includes('input_required') && statuses.includes('completed'), statuses.join(','));
    } finally {
      await c.close();
    }
  });
});

describe('tasks: a 2025-11-25 stdio client cancels a task waiting on its question', () => {
  test('the question is withdrawn on the wire (notifications/cancelled) and the task stays cancelled', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-tasks-'));
    const c = serveClient(dir);
    try {
      c.answer = () => new Promise<Json>(() => undefined); // the person never answers
      await c.initialize();
      const created = await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'conf', tool: 'confirm_delete', arguments: { filename: 'c.txt' } },
        task: {},
      });
      const id = ((created.result as Json).task as Json).taskId;
      await untilValue(
        async () => (await c.request('tasks/get', { taskId: id })).result as Json,
        (t) => t.status === 'input_required',
      );
      const q = c.frames.find((f) => f.method === 'elicitation/create')!;
      const cancelled = (await c.request('tasks/cancel', { taskId: id })).result as Json;
      assert.equal(cancelled.status, 'cancelled');
      const withdrawn = () =>
        c.frames.some((f) => f.method === 'notifications/cancelled' && (f.params as Json).requestId === q.id);
      await until(withdrawn, { what: 'the question withdrawn', timeout: 5000 });
      assert.ok(withdrawn(), 'the question was withdrawn from the client');
      assert.equal(((await c.request('tasks/get', { taskId: id })).result as Json).status, 'cancelled');
    } finally {
      await c.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
