// The stdio shim (`mcpx serve --transport stdio`) onto a running headless gateway, with clients nobody
// here wrote: the official SDK's stdio client declaring each legacy revision in turn (its initialize
// rewritten to that revision), and mcpx's own strict stdio client for 2026-07-28. Every frame a client
// receives is validated against its revision's schema. A question from an upstream reaches a capable
// client through the shim; two shims are two identities; a shim killed with SIGKILL leaves nothing
// behind in the gateway; the shim exits when its client closes stdin.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { cliJs, repoRoot } from '../harness/gateway';
import { validating } from '../harness/sdk';
import type { Revision } from '../harness/schema';
import { fixtureCommand } from '../harness/upstreams';
import { type Json, StdioClient } from '../harness/wire';
import { until } from '../harness/wait';

const cli = cliJs;
const textOf = (r: unknown) =>
  (((r as { content?: unknown }).content as Array<{ text?: string }> | undefined) ?? [])
    .map((b) => b.text ?? '')
    .join('');

describe('the stdio shim onto a running gateway', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let daemon: ChildProcess;
  let endpoint: string;
  let record: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpx-shim-'));
    env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, MCPX_PORT: '' };
    record = join(dir, 'up.jsonl');
    const config = join(dir, 'mcp.json');
    writeFileSync(
      config,
      JSON.stringify({
        servers: {
          up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--record', record]),
          mine: { ...fixtureCommand(['--rev', '2025-11-25', '--name', 'mine']), scope: 'identity' },
          conf: {
            command: process.execPath,
            args: [join(repoRoot(), 'build', 'test', 'fixtures', 'conformance', 'server.js')],
          },
        },
        settings: { 'mcp.passthrough': 'conf' },
      }),
    );
    daemon = spawn(process.execPath, [cli(), 'daemon', '--port', '0', '--config', config], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const line = await new Promise<string>((r) => createInterface({ input: daemon.stdout! }).once('line', r));
    endpoint = /mcpx listening on (\S+)/.exec(line)![1]!;
  });
  after(async () => {
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  });

  const shimArgs = () => [cli(), 'serve', '--transport', 'stdio', '--connect', endpoint];

  /** The official SDK client over the shim, its initialize spelled for `rev`. */
  async function sdkClient(rev: Revision, caps: Json = {}) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: shimArgs(),
      env: env as Record<string, string>,
      stderr: 'pipe',
    });
    const send = transport.send.bind(transport);
    transport.send = (msg) => {
      const m = msg as { method?: string; params?: { protocolVersion?: string } };
      if (m.method === 'initialize' && m.params) m.params.protocolVersion = rev;
      return send(msg);
    };
    const v = validating(transport);
    const client = new Client({ name: `sdk-${rev}`, version: '1.0.0' }, { capabilities: caps });
    await client.connect(v.transport);
    return { client, frames: v.frames, transport };
  }

  for (const rev of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as Revision[]) {
    test(`the official SDK client at ${rev}: a session in its own revision, tools listed and called`, async () => {
      const { client, frames } = await sdkClient(rev);
      try {
        assert.equal(client.getServerVersion()?.name, 'mcpx');
        const tools = await client.listTools();
        assert.ok(tools.tools.some((t) => t.name === 'mcpx_call'));
        const r = await client.callTool({
          name: 'mcpx_call',
          arguments: { server: 'up', tool: 'echo', arguments: { text: `hi ${rev}` } },
        });
        assert.equal(textOf(r), `hi ${rev}`);
        const init = frames.find((f) => (f as { result?: { protocolVersion?: string } }).result?.protocolVersion) as {
          result: { protocolVersion: string };
        };
        assert.equal(init.result.protocolVersion, rev, 'the gateway answered in the revision the client asked for');
      } finally {
        await client.close();
      }
    });
  }

  test('an upstream question reaches a capable client through the shim, and its answer the upstream', async () => {
    const { client } = await sdkClient('2025-11-25', { elicitation: {} });
    try {
      client.setRequestHandler(ElicitRequestSchema, async (req) => {
        assert.match(String(req.params.message), /up \(via mcpx\) asks: Name\?/);
        return { action: 'accept', content: { answer: 'forty-two' } };
      });
      const r = await client.callTool({
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'elicit', arguments: { text: 'Name?' } },
      });
      assert.match(textOf(r), /forty-two/);
    } finally {
      await client.close();
    }
  });

  test('a client that declared no elicitation: the question waits at the gateway’s broker (mcpx elicit) and is answered there', async () => {
    const { client } = await sdkClient('2025-11-25');
    try {
      const call = client.callTool({
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'elicit', arguments: { text: 'Broker?' } },
      });
      const elicit = (args: string[]) =>
        new Promise<string>((resolve) => {
          const p = spawn(process.execPath, [cli(), 'elicit', ...args, '--endpoint', endpoint], { env });
          let out = '';
          p.stdout.on('data', (d: Buffer) => (out += d.toString()));
          p.on('exit', () => resolve(out));
        });
      const listed = await until(
        async () => {
          const out = await elicit([]);
          return /Broker\?/.test(out) ? out : undefined;
        },
        { what: 'the question listed at the broker', timeout: 10_000, every: 100 },
      );
      const id = /([0-9a-f]{8}-[0-9a-f-]{27})/.exec(listed)?.[1];
      assert.ok(id, `the question is listed at the broker: ${listed}`);
      await elicit(['answer', id, JSON.stringify({ action: 'accept', content: { answer: 'from the broker' } })]);
      assert.match(textOf(await call), /from the broker/);
    } finally {
      await client.close();
    }
  });

  test('a 2026-07-28 client: requests one by one with their headers, a question as input_required', async () => {
    const c = new StdioClient(process.execPath, shimArgs(), '2026-07-28', { elicitation: {} });
    try {
      const d = await c.request('server/discover');
      assert.ok(((d.result as Json).supportedVersions as string[]).includes('2026-07-28'));
      const echo = await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'echo', arguments: { text: 'modern' } },
      });
      assert.equal(textOf(echo.result as Json), 'modern');
      const asked = (
        await c.request('tools/call', {
          name: 'mcpx_call',
          arguments: { server: 'up', tool: 'elicit', arguments: { text: 'Q?' } },
        })
      ).result as Json;
      assert.equal(asked.resultType, 'input_required');
      // A wrong Mcp-Name never happens: the shim sets the headers from the body.
      const bad = await c.request('tools/call', { name: 'no such tool', arguments: {} });
      assert.notEqual((bad.error as Json | undefined)?.code, -32020);
    } finally {
      await c.close();
    }
  });

  test('a 2026-07-28 call of a tool with x-mcp-header arguments carries its Mcp-Param headers (learned from the tools list)', async () => {
    const c = new StdioClient(process.execPath, shimArgs(), '2026-07-28');
    try {
      // Called before the client listed anything: the shim asks for the list once, then sets the header.
      const r = await c.request('tools/call', { name: 'test_custom_header', arguments: { region: 'eu-west1' } });
      assert.equal(textOf(r.result as Json), 'Region: eu-west1', JSON.stringify(r.error));
      const again = await c.request('tools/call', { name: 'test_custom_header', arguments: { region: 'café' } });
      assert.equal(textOf(again.result as Json), 'Region: café');
    } finally {
      await c.close();
    }
  });

  test('both ways through the shim: a listen stream and its list change (2026-07-28), progress, and a cancellation (legacy)', async () => {
    const m = new StdioClient(process.execPath, shimArgs(), '2026-07-28');
    const l = new StdioClient(process.execPath, shimArgs(), '2025-11-25');
    try {
      const listen = m.request('subscriptions/listen', { notifications: { toolsListChanged: true } });
      await until(() => m.frames.some((f) => f.method === 'notifications/subscriptions/acknowledged'), {
        what: 'the acknowledgement',
      });
      await m.request('tools/call', { name: 'test_trigger_tool_change', arguments: {} });
      await until(() => m.frames.some((f) => f.method === 'notifications/tools/list_changed'), {
        what: 'the list change on the listen stream',
      });
      await l.initialize();
      const slow = await l.request(
        'tools/call',
        { name: 'mcpx_call', arguments: { server: 'up', tool: 'slow', arguments: { ms: 300, steps: 3 } } },
        { progressToken: 'p1' },
      );
      assert.match(textOf(slow.result as Json), /slept 300ms/);
      const progress = l.frames.filter((f) => f.method === 'notifications/progress');
      assert.ok(progress.length >= 2, `progress relayed: ${progress.length}`);
      assert.ok(progress.every((f) => (f.params as Json).progressToken === 'p1'));
      // A legacy cancellation goes to the session: the call is cancelled upstream, and the next call works.
      const cancels = () => (readFileSync(record, 'utf8').match(/"method":"notifications\/cancelled"/g) ?? []).length;
      const before = cancels();
      const id = l.id();
      void l.request(
        'tools/call',
        { name: 'mcpx_call', arguments: { server: 'up', tool: 'slow', arguments: { ms: 30_000, steps: 30 } } },
        {},
        id,
      );
      await until(() => readFileSync(record, 'utf8').includes('"ms":30000'), { what: 'the slow call upstream' });
      l.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'test' } });
      await until(() => cancels() > before, { what: 'the cancellation reached the upstream' });
      const echo = await l.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'echo', arguments: { text: 'still here' } },
      });
      assert.equal(textOf(echo.result as Json), 'still here');
      void listen;
    } finally {
      await m.close();
      await l.close();
    }
  });

  test('two shims are two identities: a scope "identity" server runs one instance for each, kept across calls', async () => {
    const whoami = async (c: StdioClient) =>
      textOf(
        (
          await c.request('tools/call', {
            name: 'mcpx_call',
            arguments: { server: 'mine', tool: 'whoami', arguments: {} },
          })
        ).result as Json,
      );
    const a = new StdioClient(process.execPath, shimArgs(), '2026-07-28');
    const b = new StdioClient(process.execPath, shimArgs(), '2026-07-28');
    try {
      const a1 = await whoami(a);
      const a2 = await whoami(a);
      const b1 = await whoami(b);
      assert.equal(a1, a2, 'one shim keeps its instance across its (sessionless) requests');
      assert.notEqual(a1, b1, 'another shim has another');
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a shim killed with SIGKILL: its session ends and its call is cancelled upstream; nothing is orphaned', async () => {
    const c = new StdioClient(process.execPath, shimArgs(), '2025-11-25');
    await c.initialize();
    const pending = c.request('tools/call', {
      name: 'mcpx_call',
      arguments: { server: 'up', tool: 'slow', arguments: { ms: 60_000, steps: 60 } },
    });
    void pending.catch(() => undefined);
    const received = () =>
      readFileSync(record, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { dir: string; frame: Json })
        .filter((l) => l.dir === 'in')
        .map((l) => l.frame);
    const cancelledUpstream = () => received().some((f) => f.method === 'notifications/cancelled');
    const callArrived = () => received().some((f) => f.method === 'tools/call' && (f.params as Json).name === 'slow');
    await until(callArrived, { what: 'the call upstream', timeout: 10_000 });
    assert.ok(callArrived(), 'the call reached the upstream');
    c.child.kill('SIGKILL');
    await c.exited;
    await until(cancelledUpstream, { what: 'the cancellation upstream', timeout: 10_000 });
    assert.ok(cancelledUpstream(), "the shim's call was cancelled upstream when its session ended");
  });

  test('a refusal at the HTTP level (a wrong secret) is answered on the request’s own id, never a hang', async () => {
    const wrong = endpoint.replace(/\/mcp\/[^/]+$/, '/mcp/not-the-secret');
    const c = new StdioClient(
      process.execPath,
      [cli(), 'serve', '--transport', 'stdio', '--connect', wrong],
      '2025-11-25',
    );
    try {
      const r = await c.request('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      });
      assert.ok(r.error, JSON.stringify(r));
      assert.equal(typeof (r.error as Json).code, 'number');
    } finally {
      await c.close();
    }
  });

  test('a client that states no revision is answered in 2024-11-05 until it initializes, as --standalone answers it', async () => {
    const config = join(dir, 'mcp.json');
    for (const argv of [shimArgs(), [cli(), 'serve', '--transport', 'stdio', '--standalone', '--config', config]]) {
      const c = new StdioClient(process.execPath, argv, '2024-11-05', {}, env);
      try {
        const listed = await c.request('tools/list', {});
        const call = ((listed.result as Json).tools as Json[]).find((t) => t.name === 'mcpx_call');
        assert.ok(call, JSON.stringify(listed));
        assert.equal(
          call.annotations,
          undefined,
          `${argv.includes('--standalone') ? 'standalone' : 'shim'}: no annotations in 2024-11-05`,
        );
        assert.equal(call.execution, undefined);
        // Then it initializes at 2025-06-18: its session's revision spells what follows.
        c.rev = '2025-06-18';
        const init = await c.request('initialize', {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        });
        assert.equal((init.result as Json).protocolVersion, '2025-06-18');
        c.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        const after = await c.request('tools/list', {});
        const again = ((after.result as Json).tools as Json[]).find((t) => t.name === 'mcpx_call')!;
        assert.deepEqual(again.annotations, { openWorldHint: true });
      } finally {
        await c.close();
      }
    }
  });

  test('the shim exits when its client closes stdin', async () => {
    const c = new StdioClient(process.execPath, shimArgs(), '2025-11-25');
    await c.initialize();
    const code = await c.close();
    assert.equal(code, 0);
    assert.match(c.stderr, /serving stdio through http:\/\/127\.0\.0\.1:\d+\/mcp/);
    assert.equal(c.stderr.includes(endpoint), false, 'the secret is never printed');
  });
});

describe('the shim and a gateway that restarts', () => {
  test('the daemon restarts on its port: the same client’s next call succeeds, without a restart of its own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-shim-re-'));
    const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, MCPX_PORT: '' };
    const config = join(dir, 'mcp.json');
    writeFileSync(config, JSON.stringify({ servers: { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) } }));
    const start = async (port: string) => {
      const d = spawn(process.execPath, [cli(), 'daemon', '--port', port, '--config', config], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const line = await new Promise<string>((r) => createInterface({ input: d.stdout! }).once('line', r));
      return { d, url: /mcpx listening on (\S+)/.exec(line)![1]! };
    };
    const stop = async (d: ChildProcess) => {
      d.kill('SIGTERM');
      await new Promise((r) => d.once('exit', r));
    };
    let first = await start('0');
    const port = new URL(first.url).port;
    const c = new StdioClient(
      process.execPath,
      [cli(), 'serve', '--transport', 'stdio', '--connect', first.url],
      '2025-11-25',
    );
    try {
      await c.initialize();
      const echo = (text: string) =>
        c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'up', tool: 'echo', arguments: { text } } });
      assert.equal(textOf((await echo('before')).result), 'before');
      await stop(first.d);
      first = await start(port);
      const after = await echo('after');
      assert.equal(textOf(after.result), 'after', JSON.stringify(after.error));
      assert.match(c.stderr, /reconnected to http:\/\/127\.0\.0\.1:\d+\/mcp\/<secret>/);
    } finally {
      await c.close();
      await stop(first.d);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
