// Tasks with a requestor nobody here wrote: the official TypeScript SDK client's experimental core tasks
// (2025-11-25) drive mcpx's tasks over Streamable HTTP — a task created, polled, its question answered on
// the tasks/result stream (the SDK's way), its result collected; a task listed and cancelled. Every frame
// the SDK receives is validated against 2025-11-25.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { repoRoot } from '../harness/gateway';
import { validating } from '../harness/sdk';
import { type TestGateway, fixtureCommand, gatewayFor } from '../harness/upstreams';

const CONFORMANCE = () => join(repoRoot(), 'build', 'test', 'fixtures', 'conformance', 'server.js');

describe('official TypeScript SDK client: core tasks through mcpx', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await gatewayFor(
      {
        conf: { command: process.execPath, args: [CONFORMANCE()] },
        stuck: fixtureCommand(['--rev', '2025-11-25', '--name', 'stuck', '--fail', 'hang']),
      },
      { 'proto.taskPollInterval': '100ms' },
    );
  });
  after(() => gw.close());

  async function connect(): Promise<{ client: Client; frames: unknown[]; asked: string[] }> {
    const client = new Client({ name: 'sdk-tasks', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(String(req.params.message));
      return { action: 'accept', content: { confirm: true } };
    });
    const { transport, frames } = validating(new StreamableHTTPClientTransport(new URL(gw.url)));
    await client.connect(transport);
    return { client, frames, asked };
  }

  test('a task that asks mid-way: created, polled, asked on the tasks/result stream, its result collected', async () => {
    const { client, frames, asked } = await connect();
    try {
      const seen: string[] = [];
      let result: { content?: Array<{ type: string; text?: string }> } | undefined;
      const stream = client.experimental.tasks.callToolStream(
        { name: 'mcpx_call', arguments: { server: 'conf', tool: 'confirm_delete', arguments: { filename: 's.txt' } } },
        undefined,
        { task: { ttl: 60_000 } },
      );
      for await (const m of stream) {
        seen.push(m.type === 'taskStatus' ? `status:${m.task.status}` : m.type);
        if (m.type === 'result') result = m.result as typeof result;
        if (m.type === 'error') throw m.error;
      }
      assert.equal(seen[0], 'taskCreated');
      assert.ok(seen.includes('status:input_required'), seen.join(','));
      assert.equal(seen.at(-1), 'result');
      assert.equal(asked.length, 1, 'the question reached the SDK once');
      assert.match(asked[0]!, /via mcpx/);
      assert.ok(result?.content?.length);
      const q = frames.find((f) => (f as { method?: string }).method === 'elicitation/create') as {
        params: { _meta: Record<string, unknown> };
      };
      assert.ok(q.params._meta['io.modelcontextprotocol/related-task'], 'the question names its task');
    } finally {
      await client.close();
    }
  });

  test('tasks/list has the task; tasks/cancel cancels it for good', async () => {
    const { client } = await connect();
    try {
      const stream = client.experimental.tasks.callToolStream(
        { name: 'mcpx_call', arguments: { server: 'stuck', tool: 'echo', arguments: { text: 'x' } } },
        undefined,
        { task: {} },
      );
      const first = await stream.next();
      assert.equal(first.value?.type, 'taskCreated');
      const taskId = first.value?.type === 'taskCreated' ? first.value.task.taskId : '';
      const listed = await client.experimental.tasks.listTasks();
      assert.ok(listed.tasks.some((t) => t.taskId === taskId));
      const cancelled = await client.experimental.tasks.cancelTask(taskId);
      assert.equal(cancelled.status, 'cancelled');
      assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'cancelled');
      await stream.return(undefined);
    } finally {
      await client.close();
    }
  });
});
