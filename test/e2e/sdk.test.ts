// A real client nobody here wrote: the official TypeScript SDK connects over stdio and Streamable HTTP,
// initializes, lists and calls. Every frame it receives is also checked against the negotiated
// revision's schema (the SDK's transport is wrapped to see them).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Listening } from '../../src/app/app';
import { fixture, startTestServer } from '../harness/gateway';
import { validating } from '../harness/sdk';

async function exercise(client: Client): Promise<void> {
  const tools = await client.listTools();
  assert.ok(tools.tools.some((t) => t.name === 'add'));
  const add = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
  assert.deepEqual(add.structuredContent, { sum: 42 });
  const prompts = await client.listPrompts();
  assert.equal(prompts.prompts[0]!.name, 'greet');
  const read = await client.readResource({ uri: 'test://doc/readme' });
  assert.equal((read.contents[0] as { text: string }).text, 'read me');
  await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), /no tool named/);
  await client.ping();
}

describe('official TypeScript SDK client', () => {
  let gw: Listening;
  before(async () => {
    gw = await startTestServer();
  });
  after(() => gw.close());

  test('over Streamable HTTP', async () => {
    const client = new Client({ name: 'sdk-test', version: '1.0.0' });
    const { transport, frames } = validating(new StreamableHTTPClientTransport(new URL(gw.url)));
    await client.connect(transport);
    assert.equal(client.getServerVersion()?.name, 'mcpx');
    assert.ok((transport as StreamableHTTPClientTransport).sessionId, 'a session was minted');
    await exercise(client);
    await client.close();
    assert.ok(frames.length >= 7);
  });

  test('over stdio (a real process)', async () => {
    const client = new Client({ name: 'sdk-test', version: '1.0.0' });
    const { transport, frames } = validating(
      new StdioClientTransport({ command: process.execPath, args: [fixture('serve')] }),
    );
    await client.connect(transport);
    assert.equal(client.getServerVersion()?.name, 'mcpx');
    await exercise(client);
    await client.close();
    assert.ok(frames.length >= 7);
  });
});
