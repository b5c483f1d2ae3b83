// mcpx as the requestor of a 2025-11-25 core-tasks upstream written with the official TypeScript SDK
// (test/fixtures/sdk-tasks/server.ts), end to end through the real gateway (src/upstream/tasks.ts driven
// by src/upstream/call.ts): a "required" tool is task-augmented and driven for a client that asked for
// no task; a pass-through client's task is one upstream too, polled to its end; the upstream's question,
// queued on its task and carried by tasks/result, reaches the client and its answer the upstream;
// cancelling the client's task sends tasks/cancel upstream; the upstream's notifications/tasks/status
// wakes the poll. Every frame a client receives is validated for its revision, and every frame mcpx sent
// the upstream for 2025-11-25.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { repoRoot } from '../harness/gateway';
import { assertServerFrame } from '../harness/schema';
import { checkRecorded, gatewayFor } from '../harness/upstreams';
import { HttpClient, type Json, StdioClient } from '../harness/wire';
import { until } from '../harness/wait';

const RELATED = 'io.modelcontextprotocol/related-task';
const NAME = 'sdk-tasks';
const dir = mkdtempSync(join(tmpdir(), 'mcpx-sdktasks-'));
/** What a test started and has not stopped yet: stopped here if the test did not get to (a timeout). */
const started = new Set<{ close(): Promise<unknown> }>();
function track<T extends { close(): Promise<unknown> }>(x: T): T {
  started.add(x);
  const close = x.close.bind(x);
  x.close = async () => {
    started.delete(x);
    return close();
  };
  return x;
}
after(async () => {
  await Promise.all([...started].map((x) => x.close().catch(() => undefined)));
  rmSync(dir, { recursive: true, force: true });
});
/** Each test fails rather than hangs. */
const T = { timeout: 20_000 };

let n = 0;
/** A fresh record file and cancellation log for one test, and the server entry that writes them. */
function files(env: Record<string, string> = {}): { record: string; log: string; def: Json } {
  n++;
  const record = join(dir, `record-${n}.jsonl`);
  const log = join(dir, `log-${n}.txt`);
  const server = join(repoRoot(), 'build', 'test', 'fixtures', 'sdk-tasks', 'server.js');
  return {
    record,
    log,
    def: { command: process.execPath, args: [server], env: { FIXTURE_RECORD: record, FIXTURE_LOG: log, ...env } },
  };
}

const textOf = (r: Json | undefined) => String((((r?.content as Json[]) ?? [])[0] as Json)?.text);

interface Line {
  dir: 'in' | 'out';
  frame: Json;
  at: number;
}
/** The fixture's record: what it received (`in`) and sent (`out`), and when. */
const recordLines = (record: string): Line[] =>
  readFileSync(record, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

/** Frames mcpx sent the upstream (validated for 2025-11-25), and the upstream's frames. */
function upstreamFrames(record: string): { received: Json[]; sent: Json[] } {
  const received = checkRecorded(record, '2025-11-25') as Json[];
  const sent = recordLines(record)
    .filter((l) => l.dir === 'out')
    .map((l) => l.frame);
  return { received, sent };
}

/** The tools/call mcpx sent upstream for `tool` (asserted there unless `must` is false), and the
 *  upstream's answer to it. */
function upstreamCall(record: string, tool: string, must = true): { call?: Json; answer?: Json } {
  const { received, sent } = upstreamFrames(record);
  const call = received.find((f) => f.method === 'tools/call' && (f.params as Json).name === tool);
  if (must) assert.ok(call, `mcpx called ${tool} upstream`);
  return { call, answer: call && sent.find((f) => f.id === call.id && !('method' in f)) };
}

/** The taskId of the upstream's CreateTaskResult, if that is what it answered. */
const upstreamTask = (answer?: Json) => ((answer?.result as Json)?.task as Json)?.taskId;

/** One request over HTTP, its response validated against the client's revision with its method. */
async function ask(c: HttpClient, method: string, params: Json): Promise<Json> {
  const ex = await c.request(method, params);
  assert.ok(ex.response, `${method} was answered`);
  assertServerFrame(c.rev, ex.response, method);
  assert.equal(ex.error, undefined, `${method}: ${JSON.stringify(ex.error)}`);
  return ex.result!;
}

describe('a 2025-11-25 core-tasks upstream (the official SDK), driven by mcpx', () => {
  for (const rev of ['2025-06-18', '2025-11-25'] as const) {
    test(`a: a ${rev} client's mcpx_call of a "required" tool, no task asked: the final result inline`, T, async () => {
      const f = files();
      const gw = track(await gatewayFor({ [NAME]: f.def }));
      try {
        const c = new HttpClient(gw.url, rev);
        await c.initialize();
        const r = await ask(c, 'tools/call', {
          name: 'mcpx_call',
          arguments: { server: NAME, tool: 'must_task', arguments: {} },
        });
        assert.equal(r.isError, undefined, textOf(r));
        assert.equal(textOf(r), 'done as a task');
        assert.equal(r.task, undefined, 'the client asked for no task and got none');
        // Upstream: the call was task-augmented, answered with a task, polled and collected.
        const { call, answer } = upstreamCall(f.record, 'must_task');
        assert.deepEqual((call!.params as Json).task, {}, 'task-augmented');
        const upId = upstreamTask(answer);
        assert.equal(typeof upId, 'string', 'the upstream made it a task');
        const { received } = upstreamFrames(f.record);
        const about = (m: string) => received.filter((x) => x.method === m && (x.params as Json).taskId === upId);
        assert.equal(about('tasks/result').length, 1, 'tasks/result collected the result once');
      } finally {
        await gw.close();
      }
    });
  }

  test(
    'b: a 2025-11-25 client calls pass-through `slow` as a task: CreateTaskResult, tasks/get, tasks/result',
    T,
    async () => {
      const f = files();
      const gw = track(await gatewayFor({ [NAME]: f.def }, { 'mcp.passthrough': [NAME] }));
      try {
        const c = new HttpClient(gw.url, '2025-11-25');
        await c.initialize();
        const listed = (await ask(c, 'tools/list', {})).tools as Json[];
        assert.deepEqual(listed.find((t) => t.name === 'slow')?.execution, { taskSupport: 'optional' });
        const created = await ask(c, 'tools/call', { name: 'slow', arguments: { ms: 400 }, task: {} });
        const task = created.task as Json;
        assert.ok(task, `a CreateTaskResult: ${JSON.stringify(created)}`);
        assert.equal(typeof task.taskId, 'string');
        assert.ok(['working', 'completed'].includes(String(task.status)), String(task.status));
        assert.equal(created.content, undefined, 'no result yet: a task');
        const seen: string[] = [];
        const done = await until(
          async () => {
            const g = await ask(c, 'tasks/get', { taskId: task.taskId });
            assert.equal(g.taskId, task.taskId);
            seen.push(String(g.status));
            return g.status === 'completed' ? g : undefined;
          },
          { what: 'the task to complete', timeout: 10_000 },
        );
        assert.equal(done.status, 'completed');
        assert.ok(seen[0] === 'working', `working first (400 ms): ${seen.join(',')}`);
        const r = await ask(c, 'tasks/result', { taskId: task.taskId });
        assert.equal(textOf(r), 'slept 400');
        assert.equal(((r._meta as Json)?.[RELATED] as Json)?.taskId, task.taskId);
        // Upstream: an "optional" tool, task-augmented because the client wanted a task, driven to its end.
        const { call, answer } = upstreamCall(f.record, 'slow');
        assert.deepEqual((call!.params as Json).task, {}, 'task-augmented');
        const upId = upstreamTask(answer);
        assert.equal(typeof upId, 'string', 'the upstream made it a task');
        const { received } = upstreamFrames(f.record);
        assert.ok(received.some((x) => x.method === 'tasks/result' && (x.params as Json).taskId === upId));
      } finally {
        await gw.close();
      }
    },
  );

  // A question asked during tasks/result belongs to the call driving the task (the driver's own requests
  // are not counted as calls of their own: UpstreamClient.request partOfCall).
  const C = { timeout: 8000 };
  describe('c: the upstream asks mid-task (elicitation through tasks/result); a 2025-11-25 stdio client answers', () => {
    const serve = (def: Json) => {
      const config = join(dir, `serve-${++n}.json`);
      writeFileSync(config, JSON.stringify({ servers: { [NAME]: def }, settings: { 'mcp.passthrough': [NAME] } }));
      const c = track(
        new StdioClient(
          process.execPath,
          [join(repoRoot(), 'dist', 'cli.js'), 'serve', '--transport', 'stdio', '--standalone', '--config', config],
          '2025-11-25',
          { elicitation: {} },
        ),
      );
      const asked: Json[] = [];
      c.answer = (req) => {
        asked.push(req);
        if (req.method !== 'elicitation/create') return {};
        return { action: 'accept', content: { name: 'Ada' } };
      };
      return { c, asked };
    };
    /** The upstream's elicitation was answered with the client's answer (the response mcpx sent it). */
    const answeredUpstream = (record: string) => {
      const { received, sent } = upstreamFrames(record);
      const q = sent.find((x) => x.method === 'elicitation/create');
      assert.ok(q, 'the upstream asked');
      assert.equal(
        typeof (((q.params as Json)._meta as Json)?.[RELATED] as Json)?.taskId,
        'string',
        'queued on its task',
      );
      const a = received.find((x) => x.id === q.id && !('method' in x));
      assert.deepEqual((a?.result as Json)?.content, { name: 'Ada' });
    };

    test(
      'without a task (mcpx_call): the question reaches the client on the wire, the greeting comes back',
      C,
      async () => {
        const f = files();
        const { c, asked } = serve(f.def);
        try {
          await c.initialize();
          const r = await c.request('tools/call', {
            name: 'mcpx_call',
            arguments: { server: NAME, tool: 'ask_name', arguments: {} },
          });
          assert.equal(r.error, undefined, JSON.stringify(r.error));
          assert.equal(textOf(r.result as Json), 'Hello, Ada!');
          const q = asked.find((x) => x.method === 'elicitation/create');
          assert.ok(q, 'the question reached the client');
          assert.match(String((q.params as Json).message), /What is your name\?/);
          assert.deepEqual((((q.params as Json).requestedSchema as Json).properties as Json).name, { type: 'string' });
          answeredUpstream(f.record);
        } finally {
          await c.close();
        }
      },
    );

    test(
      'as a task (pass-through, task: {}): the question rides tasks/result with the related-task _meta',
      C,
      async () => {
        const f = files();
        const { c, asked } = serve(f.def);
        try {
          await c.initialize();
          const created = await c.request('tools/call', { name: 'ask_name', arguments: {}, task: {} });
          assert.equal(created.error, undefined, JSON.stringify(created.error));
          const task = (created.result as Json).task as Json;
          assert.equal(typeof task?.taskId, 'string', JSON.stringify(created.result));
          const r = await c.request('tasks/result', { taskId: task.taskId });
          assert.equal(r.error, undefined, JSON.stringify(r.error));
          assert.equal(textOf(r.result as Json), 'Hello, Ada!');
          assert.equal((((r.result as Json)._meta as Json)?.[RELATED] as Json)?.taskId, task.taskId);
          const q = asked.find((x) => x.method === 'elicitation/create');
          assert.ok(q, 'the question reached the client');
          assert.equal((((q.params as Json)._meta as Json)?.[RELATED] as Json)?.taskId, task.taskId);
          const g = await c.request('tasks/get', { taskId: task.taskId });
          assert.equal((g.result as Json).status, 'completed');
          answeredUpstream(f.record);
        } finally {
          await c.close();
        }
      },
    );
  });

  test('d: tasks/cancel of the client task cancels it, and mcpx sends tasks/cancel upstream', T, async () => {
    const f = files();
    const gw = track(await gatewayFor({ [NAME]: f.def }, { 'mcp.passthrough': [NAME] }));
    try {
      const c = new HttpClient(gw.url, '2025-11-25');
      await c.initialize();
      const created = await ask(c, 'tools/call', { name: 'long', arguments: {}, task: {} });
      const taskId = (created.task as Json)?.taskId;
      assert.equal(typeof taskId, 'string', JSON.stringify(created));
      // The upstream's task exists (mcpx's tools/call was answered with one) before it is cancelled.
      const upId = await until(
        () => {
          if (!existsSync(f.record)) return undefined;
          const id = upstreamTask(upstreamCall(f.record, 'long', false).answer);
          return typeof id === 'string' ? id : undefined;
        },
        { what: 'the upstream task' },
      );
      const cancelled = await ask(c, 'tasks/cancel', { taskId });
      assert.equal(cancelled.taskId, taskId);
      assert.equal(cancelled.status, 'cancelled');
      const line = `cancelled ${upId}`;
      await until(() => existsSync(f.log) && readFileSync(f.log, 'utf8').split('\n').includes(line), {
        what: `"${line}" in FIXTURE_LOG`,
      });
      const { received } = upstreamFrames(f.record);
      assert.ok(
        received.some((x) => x.method === 'tasks/cancel' && (x.params as Json).taskId === upId),
        'mcpx sent tasks/cancel for the upstream task',
      );
      assert.equal((await ask(c, 'tasks/get', { taskId })).status, 'cancelled', 'it stays cancelled');
    } finally {
      await gw.close();
    }
  });

  test(
    "e: the upstream's notifications/tasks/status wakes the poll (its pollInterval: 60 s, clamped to 5 s)",
    T,
    async () => {
      const f = files({ FIXTURE_POLL: '60000' });
      const gw = track(await gatewayFor({ [NAME]: f.def }));
      try {
        const c = new HttpClient(gw.url, '2025-11-25');
        await c.initialize();
        const r = await ask(c, 'tools/call', {
          name: 'mcpx_call',
          arguments: { server: NAME, tool: 'must_task', arguments: {} },
        });
        assert.equal(textOf(r), 'done as a task');
        const { answer } = upstreamCall(f.record, 'must_task');
        assert.equal(((answer?.result as Json | undefined)?.task as Json | undefined)?.pollInterval, 60_000);
        const upId = upstreamTask(answer);
        const lines = recordLines(f.record);
        const about = (l: Line) => (l.frame.params as Json | undefined)?.taskId === upId;
        const done = lines.find(
          (l) =>
            l.dir === 'out' &&
            l.frame.method === 'notifications/tasks/status' &&
            about(l) &&
            (l.frame.params as Json).status === 'completed',
        );
        assert.ok(done, 'the upstream said the task completed');
        const next = lines.find(
          (l) =>
            l.dir === 'in' &&
            l.at >= done.at &&
            about(l) &&
            ['tasks/get', 'tasks/result'].includes(String(l.frame.method)),
        );
        assert.ok(next, 'mcpx asked again after the notification');
        assert.ok(
          next.at - done.at < 1500,
          `polled ${next.at - done.at} ms after the notification, not at the 5 s interval`,
        );
      } finally {
        await gw.close();
      }
    },
  );
});

describe('the task driver (src/upstream/tasks.ts) against an upstream that keeps asking', () => {
  test('a task asking more than proto.askRounds questions fails naming the setting, and is cancelled upstream', async () => {
    const { driveTask } = await import('../../src/upstream/tasks');
    const { codecOfEra } = await import('../../src/protocol/eras');
    const sent: string[] = [];
    let n = 0;
    // A 2026-07-28 upstream whose task asks a new question on every poll.
    const port = {
      name: 'greedy',
      tasks: codecOfEra('modern').tasks,
      maxQuestions: 3,
      request: async (method: string) => {
        sent.push(method);
        n++;
        return {
          taskId: 't',
          status: 'input_required',
          pollIntervalMs: 50,
          inputRequests: { [`q${n}`]: { method: 'elicitation/create', params: { message: 'again?' } } },
        };
      },
      ask: async () => ({ action: 'accept', content: {} }),
      alive: () => undefined,
      onStatus: () => () => undefined,
      log: () => undefined,
      error: (code: number, message: string) => Object.assign(new Error(message), { code }),
    };
    const created = {
      resultType: 'task',
      taskId: 't',
      status: 'input_required',
      pollIntervalMs: 50,
      inputRequests: { q0: { method: 'elicitation/create', params: { message: '?' } } },
    };
    await assert.rejects(
      driveTask(port, created, new AbortController().signal),
      /more than 3 questions \(proto\.askRounds\)/,
    );
    await until(() => sent.at(-1) === 'tasks/cancel', { what: 'tasks/cancel sent' });
    assert.equal(sent.at(-1), 'tasks/cancel', 'the upstream was told to stop');
  });
});
