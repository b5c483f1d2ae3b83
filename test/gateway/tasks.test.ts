// Tasks through the gateway, end to end, both eras (docs/protocol.md "Tasks"): a 2026-07-28 client with
// the extension, a 2025-11-25 session and a 2025-11-25 stdio client, in front of a task-supporting
// 2026-07-28 upstream (the conformance fixture, which mcpx drives as a task requestor) and a plain
// upstream without tasks. Every frame the clients receive is validated strictly (HttpClient and
// StdioClient do it; the extension's messages against its own schema).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { repoRoot } from '../harness/gateway';
import { type TestGateway, fixtureCommand, gatewayFor } from '../harness/upstreams';
import { HttpClient, type Json, StdioClient } from '../harness/wire';

const EXT = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const CONFORMANCE = () => join(repoRoot(), 'build', 'test', 'fixtures', 'conformance', 'server.js');
const servers = () => ({
  conf: { command: process.execPath, args: [CONFORMANCE()] },
  plain: fixtureCommand(['--rev', '2025-06-18', '--name', 'plain']),
  stuck: fixtureCommand(['--rev', '2025-11-25', '--name', 'stuck', '--fail', 'hang']),
});
const settings = { 'mcp.passthrough': 'conf', 'protoMessages.taskAfter': '300ms', 'proto.taskPollInterval': '100ms' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const text = (r: Json | undefined) => ((r?.content as Json[] | undefined)?.[0]?.text as string | undefined) ?? '';

/** tasks/get until `done` says so (10 s at most). */
async function pollUntil(get: () => Promise<Json>, done: (t: Json) => boolean): Promise<Json> {
  const until = Date.now() + 10_000;
  for (;;) {
    const t = await get();
    if (done(t)) return t;
    if (Date.now() > until) throw new Error(`task still ${String(t.status)} after 10 s`);
    await sleep(100);
  }
}
const terminal = (t: Json) => ['completed', 'failed', 'cancelled'].includes(String(t.status));

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

/** Opens a subscriptions/listen stream and reads its SSE frames until `enough` says so; then closes it. */
async function listenUntil(
  c: HttpClient,
  notifications: Json,
  meta: Json,
  enough: (frames: Json[]) => boolean,
): Promise<Json[]> {
  const body = {
    jsonrpc: '2.0',
    id: c.id(),
    method: 'subscriptions/listen',
    params: c.params({ notifications }, meta),
  };
  const ctl = new AbortController();
  const res = await fetch(c.url, {
    method: 'POST',
    headers: c.headers(body),
    body: JSON.stringify(body),
    signal: ctl.signal,
  });
  const reader = res.body!.getReader();
  let buf = '';
  const frames: Json[] = [];
  try {
    while (!enough(frames)) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += Buffer.from(value).toString();
      for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
        const data = buf
          .slice(0, i)
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5))
          .join('');
        buf = buf.slice(i + 2);
        if (data.trim()) frames.push(JSON.parse(data) as Json);
      }
    }
  } finally {
    ctl.abort();
  }
  return frames;
}

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
    const done = await pollUntil(async () => (await get(c, created.taskId)).result!, terminal);
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
    const waiting = await pollUntil(
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
    const done = await pollUntil(async () => (await get(c, created.taskId)).result!, terminal);
    assert.equal(done.status, 'completed');
  });

  test('an upstream JSON-RPC error fails the task with that error; a tool error completes it', async () => {
    const c = client();
    const failed = (await c.request('tools/call', { name: 'protocol_error_job', arguments: {} })).result!;
    const f = await pollUntil(async () => (await get(c, failed.taskId)).result!, terminal);
    assert.equal(f.status, 'failed');
    assert.equal(typeof (f.error as Json).code, 'number');
    const isError = (await c.request('tools/call', { name: 'failing_job', arguments: {} })).result!;
    const e = await pollUntil(async () => (await get(c, isError.taskId)).result!, terminal);
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
    await sleep(200);
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
      const waiting = await pollUntil(
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
      await pollUntil(
        async () => (await c.request('tasks/get', { taskId: id })).result as Json,
        (t) => t.status === 'input_required',
      );
      const q = c.frames.find((f) => f.method === 'elicitation/create')!;
      const cancelled = (await c.request('tasks/cancel', { taskId: id })).result as Json;
      assert.equal(cancelled.status, 'cancelled');
      const until = Date.now() + 5000;
      const withdrawn = () =>
        c.frames.some((f) => f.method === 'notifications/cancelled' && (f.params as Json).requestId === q.id);
      while (!withdrawn() && Date.now() < until) await sleep(50);
      assert.ok(withdrawn(), 'the question was withdrawn from the client');
      assert.equal(((await c.request('tasks/get', { taskId: id })).result as Json).status, 'cancelled');
    } finally {
      await c.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

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
    const until = Date.now() + 10_000;
    for (;;) {
      const q = gw.g.questions().find((x) => x.method === 'elicitation/create');
      if (q) return q.id;
      if (Date.now() > until) throw new Error('no question reached the broker');
      await sleep(50);
    }
  }

  test('a question nobody on the wire can take waits at the broker; answered there, the task completes', async () => {
    const c = modern();
    const created = (await c.request('tools/call', { name: 'confirm_delete', arguments: { filename: 'k.txt' } }))
      .result!;
    assert.equal(created.resultType, 'task');
    const id = await brokerQuestion();
    assert.equal(gw.g.answer(id, { action: 'accept', content: { confirm: true } }), undefined);
    const done = await pollUntil(
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
    const until = Date.now() + 5000;
    while (gw.g.questions().length > 0 && Date.now() < until) await sleep(50);
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
      await sleep(10);
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
      await sleep(10);
      assert.equal(lt.status, 'failed');
      // Cancelled stays cancelled, whatever the work does after.
      const c = new BackgroundCall('tools/call', 'tools/call z', 'client:a');
      const ct = tasks.create(c, { label: 'z', era: 'modern', identity: 'client:a' });
      let finish!: (r: Json) => void;
      c.run(new Promise<Json>((r) => (finish = r)));
      assert.equal(ct.cancel('test'), true);
      assert.equal(ct.cancel('again'), false);
      finish({ content: [] });
      await sleep(10);
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
