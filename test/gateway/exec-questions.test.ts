// mcpx_exec's questions and tasks (docs/exec.md "Questions"): a run is one unit for questions — its caller,
// the broker, two runs on one connection, proto.askRounds — and a run as a task; a real gateway over real
// fixture upstreams, every frame checked against its revision's schema, the script in its sandboxed child.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { alive } from '../harness/process';
import { fixtureCommand, killAll, untilCalled } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';
import { exec, EXEC_SERVERS, execClient, execGateway, structured, textOf } from '../harness/exec';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-exec-questions-'));
after(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('mcpx_exec: a run is one unit for questions', () => {
  test('elicitations of parallel calls go to the calling client', async () => {
    const gw = await execGateway(EXEC_SERVERS);
    try {
      const peer = await execClient(gw, { elicitation: {} });
      let n = 0;
      peer.answer = () => ({ action: 'accept', content: { answer: `answer ${++n}` } });
      const r = await exec(
        peer,
        `const [x, y] = await Promise.all([mcpx.call('a', 'elicit', { text: 'one?' }), mcpx.call('a', 'elicit', { text: 'two?' })]);
         return [x.content[0].text, y.content[0].text];`,
      );
      const [x, y] = structured(r).result as string[];
      assert.match(`${x} ${y}`, /answer 1/);
      assert.match(`${x} ${y}`, /answer 2/);
      assert.equal(peer.frames.filter((f) => f.method === 'elicitation/create').length, 2);
      assert.deepEqual(gw.g.questions(), []);
      assert.deepEqual(peer.problems, []);
    } finally {
      await gw.close();
    }
  });

  test('a 2026-07-28 caller: the question comes back as input_required; the retry resumes the same run', async () => {
    const gw = await execGateway(EXEC_SERVERS);
    try {
      const c = new HttpClient(gw.url, '2026-07-28', { capabilities: { elicitation: {} } });
      const args = {
        name: 'mcpx_exec',
        arguments: {
          script: "const r = await mcpx.call('a', 'elicit', { text: 'colour?' }); return r.content[0].text;",
        },
      };
      const r1 = (await c.request('tools/call', args)).result!;
      assert.equal(r1.resultType, 'input_required');
      const [key, q] = Object.entries(r1.inputRequests as Record<string, Json>)[0]!;
      assert.equal((q.params as Json).message, 'a (via mcpx) asks: colour?');
      const r2 = (
        await c.request('tools/call', {
          ...args,
          inputResponses: { [key]: { action: 'accept', content: { answer: 'teal' } } },
          requestState: r1.requestState,
        })
      ).result!;
      assert.equal(r2.resultType, 'complete');
      assert.match(String((r2.structuredContent as Json).result), /teal/);
      assert.equal(gw.pids.length, 1, 'one run, resumed, not restarted');
    } finally {
      await gw.close();
    }
  });

  test('a caller that cannot answer: the question waits at the broker, answered there', async () => {
    const gw = await execGateway(EXEC_SERVERS, {}, { questionTtlMs: 5000 });
    try {
      const peer = await execClient(gw);
      const pending = exec(
        peer,
        "const r = await mcpx.call('a', 'elicit', { text: 'name?' }); return r.content[0].text;",
      );
      const q = await until(() => gw.g.questions()[0], { what: 'the question at the broker' });
      assert.equal(q.reason, 'the calling client cannot take it');
      assert.equal(gw.g.answer(q.id, { action: 'accept', content: { answer: 'Grace' } }), undefined);
      assert.match(String(structured(await pending).result), /Grace/);
    } finally {
      await gw.close();
    }
  });

  test('two runs on one connection: the question goes to the broker', async () => {
    const record = join(dir, 'two-runs.jsonl');
    const servers = { ...EXEC_SERVERS, a: fixtureCommand(['--rev', '2025-11-25', '--name', 'a', '--record', record]) };
    const gw = await execGateway(servers, {}, { questionTtlMs: 5000 });
    try {
      const peer = await execClient(gw, { elicitation: {} });
      peer.answer = () => ({ action: 'accept', content: { answer: 'from the client' } });
      const first = exec(peer, "await mcpx.call('a', 'slow', { ms: 1500 }); return 'slow done';");
      await until(() => (gw.g.runs()[0]?.calls.length ? true : undefined), { what: 'the first run to call' });
      await untilCalled(record, 'slow');
      const second = exec(
        peer,
        "const r = await mcpx.call('a', 'elicit', { text: 'who?' }); return r.content[0].text;",
      );
      const q = await until(() => gw.g.questions()[0], { what: 'the question at the broker' });
      assert.equal(q.reason, 'a script run shares the connection with other calls');
      gw.g.answer(q.id, { action: 'accept', content: { answer: 'from the broker' } });
      assert.match(String(structured(await second).result), /from the broker/);
      assert.equal(structured(await first).result, 'slow done');
      assert.equal(peer.frames.filter((f) => f.method === 'elicitation/create').length, 0);
    } finally {
      await gw.close();
    }
  });

  test('a script asking more than proto.askRounds questions is abandoned', async () => {
    const gw = await execGateway(EXEC_SERVERS, { 'proto.askRounds': 2 });
    try {
      const peer = await execClient(gw, { elicitation: {} });
      peer.answer = () => ({ action: 'accept', content: { answer: 'again' } });
      const r = await exec(
        peer,
        "for (let i = 0; i < 5; i++) await mcpx.call('a', 'elicit', { text: 'q' + i }); return 'all';",
      );
      assert.equal((r.result as Json).isError, true);
      assert.match(textOf(r), /more than 2 questions \(proto\.askRounds\); abandoned/);
      assert.equal(peer.frames.filter((f) => f.method === 'elicitation/create').length, 2);
      for (const pid of gw.pids) assert.equal(alive(pid), false);
    } finally {
      await gw.close();
    }
  });
});

describe('mcpx_exec: as a task', () => {
  test("a 2025-11-25 task's question reaches its client on tasks/result, with the related-task key", async () => {
    const gw = await execGateway(EXEC_SERVERS);
    try {
      const peer = await execClient(gw, { elicitation: {} });
      peer.answer = () => ({ action: 'accept', content: { answer: 'from the task' } });
      const created = await peer.request('tools/call', {
        name: 'mcpx_exec',
        arguments: { script: "const r = await mcpx.call('a', 'elicit', { text: 'task?' }); return r.content[0].text;" },
        task: { ttl: 60000 },
      });
      const taskId = ((created.result as Json).task as Json).taskId;
      const result = (await peer.request('tasks/result', { taskId })).result as Json;
      assert.match(String((result.structuredContent as Json).result), /from the task/);
      const asked = peer.frames.find((f) => f.method === 'elicitation/create')!;
      assert.deepEqual(((asked.params as Json)._meta as Json)['io.modelcontextprotocol/related-task'], { taskId });
      assert.deepEqual(peer.problems, []);
    } finally {
      await gw.close();
    }
  });

  test('a 2026-07-28 client with the tasks extension: a run past the eager window becomes a task; tasks/get inlines its result', async () => {
    const gw = await execGateway(EXEC_SERVERS);
    try {
      const c = new HttpClient(gw.url, '2026-07-28', {
        capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      });
      const created = (
        await c.request('tools/call', {
          name: 'mcpx_exec',
          arguments: { script: "await mcpx.call('a', 'slow', { ms: 800 }); return 'modern task done';" },
        })
      ).result!;
      assert.equal(created.resultType, 'task');
      const taskId = created.taskId;
      const done = await until(
        async () => {
          const t = (await c.request('tasks/get', { taskId }, { headers: { 'Mcp-Name': String(taskId) } })).result!;
          return t.status === 'completed' ? t : undefined;
        },
        { what: 'the task completed', every: 50 },
      );
      assert.ok(done, 'completed');
      assert.equal(((done.result as Json).structuredContent as Json).result, 'modern task done');
      for (const pid of gw.pids) assert.equal(alive(pid), false);
    } finally {
      await gw.close();
    }
  });

  test('a 2025-11-25 task: CreateTaskResult at once, the running script on the board with its calls, then the result', async () => {
    const gw = await execGateway(EXEC_SERVERS);
    try {
      const peer = await execClient(gw);
      const created = await peer.request('tools/call', {
        name: 'mcpx_exec',
        arguments: {
          script:
            "await mcpx.call('a', 'echo', { text: 'e' }); await mcpx.call('a', 'slow', { ms: 600 }); return 'task done';",
        },
        task: { ttl: 60000 },
      });
      const task = (created.result as Json).task as Json;
      assert.equal(task.status, 'working');
      const run = await until(() => (gw.g.runs()[0]?.calls.length === 2 ? gw.g.runs()[0] : undefined), {
        what: 'two calls',
      });
      assert.deepEqual(
        run.calls.map((c) => [c.label, c.state]),
        [
          ['a/echo', 'completed'],
          ['a/slow', 'running'],
        ],
      );
      const result = (await peer.request('tasks/result', { taskId: task.taskId })).result as Json;
      assert.equal((result.structuredContent as Json).result, 'task done');
      assert.deepEqual(gw.g.runs(), []);
      assert.deepEqual(peer.problems, []);
    } finally {
      await gw.close();
    }
  });
});
