// What mcpx reads from an upstream is bounded (docs/security.md "Bounds", "Hostile shapes"): a message's
// nesting, a stderr line, a JSON body, an SSE event; and a response mcpx cannot serialize is still
// answered. Asserted by codes and messages, never by durations.
import assert from 'node:assert/strict';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import type { ProtocolError } from '../../src/protocol/errors';
import type { ErrorResponse, JsonObject, Request } from '../../src/protocol/jsonrpc';
import type { Provider } from '../../src/server/provider';
import { toolsOf } from '../fixtures/provider';
import { HttpUpstream } from '../../src/upstream/http';
import { StdioUpstream } from '../../src/upstream/stdio';
import { memoryServer, memoryStdio } from '../harness/memory';
import { fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { stays } from '../harness/wait';

after(() => killAll());

const LEGACY = '2025-11-25';
const req = (id: number, method: string, params?: JsonObject): Request =>
  params ? { jsonrpc: '2.0', id, method, params } : { jsonrpc: '2.0', id, method };
const nested = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};
const nestedText = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

describe('a deeply nested upstream result', () => {
  // 3,000 levels: about the deepest the fixture's own JSON.stringify can write (V8's stack).
  const deep = `{"content":[],"structuredContent":{"v":${nestedText(3_000)}}}`;

  test('is answered -32603 with its id over stdio and over HTTP; the gateway stays up', async () => {
    const gw = await gatewayFor({
      up: fixtureCommand(['--rev', LEGACY, '--name', 'up', '--tool-result', `deep=${deep}`]),
    });
    const args = (tool: string, a: Json = {}) => ({
      name: 'mcpx_call',
      arguments: { server: 'up', tool, arguments: a },
    });
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      const r = await c.request('tools/call', args('deep'));
      assert.equal(r.error?.code, -32603);
      assert.match(r.error!.message, /upstream up sent a message nested deeper than 64 levels \(limits\.paramsDepth\)/);
      const after = await c.request('tools/call', args('echo', { text: 'after' }));
      assert.equal(after.error, undefined);

      const mem = memoryServer(gw.g);
      const io = memoryStdio(mem.server);
      try {
        io.write(req(7, 'tools/call', args('deep')));
        const e = (await io.next((m) => (m as Json).id === 7)) as ErrorResponse;
        assert.equal(e.error.code, -32603);
        assert.match(e.error.message, /nested deeper than 64 levels/);
        io.write(req(8, 'ping'));
        await io.next((m) => (m as Json).id === 8);
      } finally {
        io.end();
        mem.close();
      }
    } finally {
      await gw.close();
    }
  });

  test('a response the runner cannot serialize is -32603 for its id, never a rejection', async () => {
    const provider: Provider = {
      capabilities: () => ({ tools: true }),
      listTools: async () => [{ name: 'deep', inputSchema: { type: 'object' } }],
      resolveTool: toolsOf(
        () => [{ name: 'deep' }],
        async () => ({ content: [], structuredContent: { v: nested(1_000_000) } }),
      ),
    };
    const mem = memoryServer(provider);
    const io = memoryStdio(mem.server);
    try {
      io.write(
        req(1, 'initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 't', version: '1' } }),
      );
      await io.next((m) => (m as Json).id === 1);
      io.write(req(2, 'tools/call', { name: 'deep', arguments: {} }));
      const e = (await io.next((m) => (m as Json).id === 2)) as ErrorResponse;
      assert.equal(e.error.code, -32603);
      assert.match(e.error.message, /could not be serialized/);
    } finally {
      io.end();
      mem.close();
    }
  });
});

describe("an upstream's stderr", () => {
  test('a 5 MB stderr line without a newline is logged as a bounded notice, without its content', async () => {
    const lines: string[] = [];
    const script = 'process.stderr.write("x".repeat(5e6)); process.stderr.write("\\nshort\\n", () => process.exit(0));';
    const up = new StdioUpstream(
      'noisy',
      { command: process.execPath, args: ['-e', script], env: { PATH: process.env.PATH } },
      (l) => lines.push(l),
      { maxLineBytes: 65_536 },
    );
    await new Promise<void>((resolve) => {
      up.onClose = () => resolve();
    });
    // stderr's last chunk may follow the exit: none carries the long line through a moment after it.
    await stays(() => lines.every((l) => l.length < 500), { for: 50, what: 'no log line carries the long line' });
    assert.ok(
      lines.every((l) => l.length < 500),
      'no log line carries the long line',
    );
    assert.ok(lines.some((l) => /\[noisy\] a stderr line longer than 65536 bytes \(transport\.maxLineBytes/.test(l)));
    assert.ok(lines.includes('[noisy] short'), 'the next line is logged as usual');
    await up.close();
  });
});

describe('HTTP upstream bodies', () => {
  let server: Server;
  let url = '';
  const start = async (big: (res: import('node:http').ServerResponse, id: unknown) => void) => {
    server = createServer((rq, rs) => {
      let body = '';
      rq.on('data', (c) => (body += c));
      rq.on('end', () => {
        const m = JSON.parse(body) as Json;
        if (m.method === 'tools/call') return big(rs, m.id);
        rs.writeHead(200, { 'Content-Type': 'application/json' });
        rs.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: LEGACY, capabilities: {} } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  };
  const stop = () => new Promise((r) => server.close(r));
  const bigText = (id: unknown) =>
    JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'x'.repeat(100_000) }] } });

  test('a JSON body over transport.maxBodyBytes fails the call with -32603 naming the upstream and the setting', async () => {
    await start((rs, id) => {
      rs.writeHead(200, { 'Content-Type': 'application/json' });
      rs.end(bigText(id));
    });
    const up = new HttpUpstream('web', { url, headers: {}, log: () => undefined, bounds: { maxBodyBytes: 4096 } });
    try {
      const init = await up.request(req(1, 'initialize', { protocolVersion: LEGACY }));
      assert.ok('result' in init);
      await assert.rejects(up.request(req(2, 'tools/call', { name: 't' })), (e: ProtocolError) => {
        assert.equal(e.code, -32603);
        assert.match(e.message, /upstream web sent a body longer than 4096 bytes \(transport\.maxBodyBytes\)/);
        return true;
      });
    } finally {
      await up.close();
      await stop();
    }
  });

  test('an SSE event over transport.maxLineBytes fails the call naming the setting', async () => {
    await start((rs, id) => {
      rs.writeHead(200, { 'Content-Type': 'text/event-stream' });
      rs.end(`event: message\ndata: ${bigText(id)}\n\n`);
    });
    const up = new HttpUpstream('web', { url, headers: {}, log: () => undefined, bounds: { maxLineBytes: 4096 } });
    try {
      await assert.rejects(up.request(req(2, 'tools/call', { name: 't' })), (e: ProtocolError) => {
        assert.equal(e.code, -32603);
        assert.match(
          e.message,
          /upstream web sent an SSE event longer than 4096 characters \(transport\.maxLineBytes\)/,
        );
        return true;
      });
    } finally {
      await up.close();
      await stop();
    }
  });
});
