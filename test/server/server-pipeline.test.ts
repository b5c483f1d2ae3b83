// The server's pipeline (src/server/server.ts) seen from a provider: a tool is looked up once per call,
// whatever strategy runs it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject } from '../../src/protocol/jsonrpc';
import type { CallContext } from '../../src/server/provider';
import { testProvider } from '../fixtures/provider';
import { memoryServer, req, modern, result, error } from '../harness/memory';

const MODERN = '2026-07-28';

describe('McpServer: a tool is looked up once per call', () => {
  test('one resolveTool per tools/call, whatever the path: inline, task-capable, headers checked, the 2026-07-28 round', async () => {
    const base = testProvider();
    const looked: string[] = [];
    const mem = memoryServer({
      ...base,
      // Task-capable: the server asks each call's tool whether it becomes a task, then calls it.
      capabilities: () => ({ ...base.capabilities(), tasks: true }),
      resolveTool: async (name: string, ctx: CallContext) => {
        looked.push(name);
        const tool = await base.resolveTool!(name, ctx);
        return tool && { ...tool, taskSupport: 'optional' as const };
      },
    });
    try {
      const { runner, channel } = mem.runner();
      const inline = await runner.request(
        req(1, 'tools/call', { name: 'echo', arguments: { text: 'a' } }),
        '2025-11-25',
        channel,
      );
      assert.deepEqual(result(inline.response).content, [{ type: 'text', text: 'a' }]);
      const round = await runner.request(modern(2, 'tools/call', { name: 'echo', arguments: { text: 'b' } }), MODERN, {
        ...channel,
        paramHeaders: {},
      });
      assert.equal(result(round.response).resultType, 'complete');
      const task = await runner.request(
        req(3, 'tools/call', { name: 'echo', arguments: { text: 'c' }, task: {} }),
        '2025-11-25',
        channel,
      );
      assert.equal(typeof (result(task.response).task as JsonObject).taskId, 'string');
      const unknown = await runner.request(req(4, 'tools/call', { name: 'nope' }), '2025-11-25', channel);
      assert.match(error(unknown.response).message, /no tool named "nope"/);
      assert.deepEqual(looked, ['echo', 'echo', 'echo', 'nope']);
    } finally {
      mem.close();
    }
  });
});
