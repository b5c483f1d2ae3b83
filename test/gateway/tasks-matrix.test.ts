// Tasks across the matrix (docs/protocol.md "Tasks"): three client kinds — a 2026-07-28 client with the
// extension (HTTP), a 2025-11-25 session (the official SDK client, which answers a task's questions on
// the tasks/result stream) and a 2025-11-25 stdio client (mcpx serve) — against upstreams of both eras,
// task-supporting and not: the conformance fixture (2026-07-28, the tasks extension), an upstream on the
// official SDK's 2025-11-25 core tasks (test/fixtures/sdk-tasks), and fixture
// upstreams without tasks (2026-07-28 and 2025-11-25). Each cell runs one call that finishes and one that
// asks mid-way, both through mcpx_call as a task where the client's era makes one; every frame the
// clients receive is validated strictly (HttpClient, StdioClient, the SDK's validating transport).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { repoRoot } from '../harness/gateway';
import { validating } from '../harness/sdk';
import { type TestGateway, fixtureCommand, gatewayFor } from '../harness/upstreams';
import { HttpClient, type Json, StdioClient } from '../harness/wire';
import { until } from '../harness/wait';

const EXT = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** An upstream and the calls that exercise it: one that takes a while, one that asks. */
interface Upstream {
  server: string;
  def: () => Json;
  slow: { tool: string; arguments: Json; expect: RegExp };
  asks: { tool: string; arguments: Json; expect: RegExp };
}
const answer = (q: Json): Json => {
  const schema = ((q.params as Json | undefined)?.requestedSchema ?? {}) as Json;
  const props = Object.keys((schema.properties ?? {}) as Json);
  // The conformance fixture's confirm_delete asks for {confirm}; the fixture upstream's elicit for text.
  return {
    action: 'accept',
    content: props.includes('confirm') ? { confirm: true } : { [props[0] ?? 'answer']: 'forty-two' },
  };
};
const UPSTREAMS: Upstream[] = [
  {
    server: 'conf',
    def: () => ({
      command: process.execPath,
      args: [join(repoRoot(), 'build', 'test', 'fixtures', 'conformance', 'server.js')],
    }),
    slow: { tool: 'slow_compute', arguments: { seconds: 1, label: 'm' }, expect: /./ },
    asks: { tool: 'confirm_delete', arguments: { filename: 'm.txt' }, expect: /./ },
  },
  {
    // 2025-11-25 core tasks, built on the official SDK's task support (mcpx task-augments and drives it).
    server: 'core',
    def: () => ({
      command: process.execPath,
      args: [join(repoRoot(), 'build', 'test', 'fixtures', 'sdk-tasks', 'server.js')],
    }),
    slow: { tool: 'slow', arguments: { ms: 600 }, expect: /slept 600/ },
    asks: { tool: 'ask_name', arguments: {}, expect: /Hello, forty-two!/ },
  },
  {
    server: 'modern',
    def: () => fixtureCommand(['--rev', '2026-07-28', '--name', 'modern']),
    slow: { tool: 'slow', arguments: { ms: 600 }, expect: /slept 600ms/ },
    asks: { tool: 'elicit', arguments: { text: 'Name?' }, expect: /forty-two/ },
  },
  {
    server: 'legacy',
    def: () => fixtureCommand(['--rev', '2025-11-25', '--name', 'legacy']),
    slow: { tool: 'slow', arguments: { ms: 600 }, expect: /slept 600ms/ },
    asks: { tool: 'elicit', arguments: { text: 'Name?' }, expect: /forty-two/ },
  },
];

/** What a client kind reports of one call: whether it became a task, the statuses it saw, the text. */
interface Outcome {
  task: boolean;
  /** Statuses in the order the client saw them, ending in the last one. */
  statuses: string[];
  /** Statuses pushed to it as well (2025-11-25 notifications/tasks/status). */
  pushed?: string[];
  text: string;
}
interface Driver {
  run(server: string, tool: string, args: Json): Promise<Outcome>;
  close(): Promise<void>;
}
const textOf = (r: Json | undefined) =>
  ((r?.content as Json[] | undefined) ?? []).map((b) => String(b.text ?? '')).join('\n');
const call = (server: string, tool: string, args: Json) => ({
  name: 'mcpx_call',
  arguments: { server, tool, arguments: args },
});

/** A 2026-07-28 client with the extension: inline rounds before a task exists, tasks/update after. */
function modernDriver(url: string): Driver {
  const c = new HttpClient(url, '2026-07-28', { capabilities: { elicitation: {}, ...EXT } });
  const named = (id: unknown) => ({ headers: { 'Mcp-Name': String(id) } });
  return {
    async run(server, tool, args) {
      const statuses: string[] = [];
      let params: Json = call(server, tool, args);
      let r = (await c.request('tools/call', params)).result!;
      while (r.resultType === 'input_required') {
        statuses.push('inline');
        const responses = Object.fromEntries(
          Object.entries(r.inputRequests as Record<string, Json>).map(([k, q]) => [k, answer(q)]),
        );
        params = { ...params, inputResponses: responses, requestState: r.requestState };
        r = (await c.request('tools/call', params)).result!;
      }
      if (r.resultType !== 'task') return { task: false, statuses: [...statuses, 'completed'], text: textOf(r) };
      const answered = new Set<string>();
      const ended = await until(
        async () => {
          const t = (await c.request('tasks/get', { taskId: r.taskId }, named(r.taskId))).result!;
          if (statuses.at(-1) !== t.status) statuses.push(String(t.status));
          if (TERMINAL.has(String(t.status))) return t;
          if (t.status === 'input_required') {
            const open = Object.entries(t.inputRequests as Record<string, Json>).filter(([k]) => !answered.has(k));
            for (const [k] of open) answered.add(k);
            if (open.length)
              await c.request(
                'tasks/update',
                { taskId: r.taskId, inputResponses: Object.fromEntries(open.map(([k, q]) => [k, answer(q)])) },
                named(r.taskId),
              );
          }
          return undefined;
        },
        { what: 'the task to end', timeout: 15_000, every: 100 },
      );
      return { task: true, statuses, text: textOf(ended.result as Json) };
    },
    async close() {},
  };
}

/** A 2025-11-25 stdio client (mcpx serve): `task` on the call, tasks/get until it ends, tasks/result. */
async function stdioDriver(config: string): Promise<Driver> {
  const c = new StdioClient(
    process.execPath,
    [join(repoRoot(), 'dist', 'cli.js'), 'serve', '--transport', 'stdio', '--standalone', '--config', config],
    '2025-11-25',
    { elicitation: {} },
  );
  c.answer = (req) => (req.method === 'elicitation/create' ? answer(req) : {});
  await c.initialize();
  return {
    async run(server, tool, args) {
      // From before the call: a status may be pushed before the CreateTaskResult is read.
      const seen = c.frames.length;
      const created = (await c.request('tools/call', { ...call(server, tool, args), task: {} })).result as Json;
      const taskId = (created.task as Json).taskId;
      const statuses = [String((created.task as Json).status)];
      await until(
        async () => {
          const t = (await c.request('tasks/get', { taskId })).result as Json;
          if (statuses.at(-1) !== t.status) statuses.push(String(t.status));
          return TERMINAL.has(String(t.status));
        },
        { what: 'the task to end', timeout: 15_000, every: 50 },
      );
      // Every status change was also pushed (notifications/tasks/status), input_required included.
      const pushed = c.frames
        .slice(seen)
        .filter((f) => f.method === 'notifications/tasks/status' && (f.params as Json).taskId === taskId)
        .map((f) => String((f.params as Json).status));
      const result = (await c.request('tasks/result', { taskId })).result as Json;
      return { task: true, statuses, pushed, text: textOf(result) };
    },
    async close() {
      await c.close();
    },
  };
}

/** A 2025-11-25 session: the official SDK client's experimental tasks. */
async function sdkDriver(url: string): Promise<Driver> {
  const client = new Client({ name: 'matrix', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => answer(req as unknown as Json) as never);
  await client.connect(validating(new StreamableHTTPClientTransport(new URL(url))).transport);
  return {
    async run(server, tool, args) {
      const statuses: string[] = [];
      let text = '';
      let taskId = '';
      for await (const m of client.experimental.tasks.callToolStream(call(server, tool, args), undefined, {
        task: { ttl: 60_000 },
      })) {
        if (m.type === 'taskCreated') {
          statuses.push(m.task.status);
          taskId = m.task.taskId;
        }
        if (m.type === 'taskStatus' && statuses.at(-1) !== m.task.status) statuses.push(m.task.status);
        if (m.type === 'result') {
          text = textOf(m.result as Json);
          // The SDK yields the result without a last status: the result is the completion.
          if (statuses.at(-1) !== 'completed') statuses.push('completed');
        }
        if (m.type === 'error') {
          const t = taskId ? await client.experimental.tasks.getTask(taskId) : undefined;
          throw new Error(`${m.error.message}: ${t?.statusMessage ?? ''} (${statuses.join(' → ')})`);
        }
      }
      return { task: statuses.length > 0, statuses, text };
    },
    async close() {
      await client.close();
    },
  };
}

describe('tasks across client kinds × upstreams', () => {
  let gw: TestGateway;
  let dir: string;
  let config: string;
  before(async () => {
    const servers = Object.fromEntries(UPSTREAMS.map((u) => [u.server, u.def()]));
    gw = await gatewayFor(servers, { 'proto.taskPollInterval': '100ms' });
    dir = mkdtempSync(join(tmpdir(), 'mcpx-matrix-'));
    config = join(dir, 'serve.json');
    writeFileSync(config, JSON.stringify({ servers, settings: { 'proto.taskPollInterval': '100ms' } }));
  });
  after(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const kinds: Array<[string, () => Promise<Driver>]> = [
    ['2026-07-28 (HTTP, the extension)', async () => modernDriver(gw.url)],
    ['2025-11-25 session (official SDK)', () => sdkDriver(gw.url)],
    ['2025-11-25 stdio (mcpx serve)', () => stdioDriver(config)],
  ];
  for (const [kind, start] of kinds) {
    for (const u of UPSTREAMS) {
      test(`${kind} × ${u.server}: a task that finishes, and one that asks mid-way`, async () => {
        const d = await start();
        try {
          const slow = await d.run(u.server, u.slow.tool, u.slow.arguments);
          assert.ok(slow.task, `${u.slow.tool} ran as a task (${slow.statuses.join(' → ')})`);
          assert.equal(slow.statuses.at(-1), 'completed');
          assert.match(slow.text, u.slow.expect);
          const asks = await d.run(u.server, u.asks.tool, u.asks.arguments);
          assert.equal(asks.statuses.at(-1), 'completed', asks.statuses.join(' → '));
          assert.match(asks.text, u.asks.expect);
          // The question was put while a task existed (input_required), or — a 2026-07-28 call that
          // asked in its eager window — inline, before any task.
          const all = [...asks.statuses, ...(asks.pushed ?? [])];
          assert.ok(all.includes('input_required') || all[0] === 'inline', all.join(' → '));
          if (asks.pushed) assert.ok(asks.pushed.includes('input_required'), `pushed: ${asks.pushed.join(', ')}`);
        } finally {
          await d.close();
        }
      });
    }
  }
});
