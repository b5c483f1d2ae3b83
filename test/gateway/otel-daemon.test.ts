// OpenTelemetry beyond the span chain (docs/gateway.md "Telemetry"): legacy clients' spans, the bounds and
// refused settings, `mcpx daemon` as shipped sending to a real OTLP/HTTP receiver, and the bundles
// (dist/otel.js loaded only while telemetry.otlpEndpoint is set).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { type ServerResponse, createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { build } from 'esbuild';
import { tracing } from '../../src/telemetry/trace';
import { cliJs, repoRoot } from '../harness/gateway';
import { fixtureCommand, gatewayFor } from '../harness/upstreams';
import { HttpClient, type Json, StdioClient } from '../harness/wire';
import {
  dir,
  CLIENT_TRACE,
  CLIENT_SPAN,
  TRACEPARENT,
  META_CALL,
  receiver,
  attr,
  SERVER_KIND,
  CLIENT_KIND,
} from './otelKit';

/** The `_meta` the upstream received, as its `meta` tool returns it. */
const upstreamMeta = (result: Json): Json => JSON.parse(String((result.content as Json[])[0]!.text)) as Json;

describe('legacy clients', () => {
  test('a 2025-11-25 stdio client of mcpx serve --standalone: SERVER spans on a pipe, exported when stdin ends', async () => {
    const rx = await receiver();
    const config = join(dir, 'standalone.json');
    writeFileSync(config, JSON.stringify({ servers: { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) } }));
    const c = new StdioClient(
      process.execPath,
      [cliJs(), 'serve', '--transport', 'stdio', '--standalone', '--config', config],
      '2025-11-25',
      {},
      { ...process.env, XDG_STATE_HOME: join(dir, 'standalone'), MCPX_TELEMETRY_OTLP_ENDPOINT: rx.url },
    );
    let seen: Json;
    try {
      await c.initialize();
      const r = await c.request('tools/call', META_CALL, { traceparent: TRACEPARENT });
      seen = upstreamMeta(r.result as Json);
    } finally {
      assert.equal(await c.close(), 0, c.stderr);
      await rx.close();
    }
    const spans = rx.spans();
    const init = spans.find((x) => x.kind === SERVER_KIND && x.name === 'initialize');
    assert.ok(init, 'a span per request, initialize too');
    const server = spans.find((x) => x.kind === SERVER_KIND && x.name === 'tools/call mcpx_call');
    assert.ok(server);
    assert.equal(server.parentSpanId, CLIENT_SPAN);
    assert.equal(attr(server, 'network.transport'), 'pipe');
    assert.equal(attr(server, 'network.protocol.name'), undefined);
    assert.equal(attr(server, 'mcp.protocol.version'), '2025-11-25');
    const client = spans.find((x) => x.kind === CLIENT_KIND && x.name === 'tools/call meta');
    assert.equal(client?.parentSpanId, server.spanId);
    assert.equal(seen.traceparent, `00-${CLIENT_TRACE}-${client?.spanId}-01`);
    assert.deepEqual(c.errors, []);
  });

  test('a legacy HTTP session: mcp.session.id is a digest of its Mcp-Session-Id, never the id', async () => {
    const rx = await receiver();
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) },
      { 'telemetry.otlpEndpoint': rx.url },
    );
    let session: string | undefined;
    try {
      const c = new HttpClient(gw.url, '2025-11-25');
      await c.initialize();
      session = c.sessionId;
      assert.equal((await c.request('tools/list')).error, undefined);
    } finally {
      await gw.close();
      await rx.close();
    }
    assert.ok(session);
    const list = rx.spans().find((x) => x.kind === SERVER_KIND && x.name === 'tools/list');
    assert.ok(list);
    assert.equal(attr(list, 'mcp.session.id'), createHash('sha256').update(session).digest('hex').slice(0, 32));
    assert.ok(rx.requests.every((q) => !q.body.includes(session!)));
    assert.equal(attr(list, 'network.protocol.name'), 'http');
  });
});

describe('bounds and bad settings', () => {
  test('a receiver that never answers: past telemetry.maxQueue spans are dropped and counted, the calls unaffected', async () => {
    // Takes each export and never answers it: the one export in flight holds its batch until its bound.
    const held: ServerResponse[] = [];
    const server = createServer((_req, res) => void held.push(res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const lines: string[] = [];
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2026-07-28', '--name', 'up']) },
      {
        'telemetry.otlpEndpoint': `http://127.0.0.1:${(server.address() as { port: number }).port}`,
        'telemetry.maxQueue': 1,
        // The 2026-07-28 fixture is found by its server/discover answer: room for it on a busy machine.
        'pool.probeTimeout': '10s',
      },
      {},
      { log: (l) => lines.push(l) },
    );
    try {
      const c = new HttpClient(gw.url, '2026-07-28');
      for (let i = 0; i < 3; i++) assert.equal((await c.request('tools/call', META_CALL)).error, undefined);
    } finally {
      await gw.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
    const said = lines.filter((l) => /telemetry/.test(l));
    assert.match(
      said[0] ?? '',
      /span\(s\) dropped: (more than 1 spans waited \(telemetry\.maxQueue\)|the receiver did not take them)/,
    );
    // Six spans at least (a SERVER and a CLIENT span per call), one queued and one in flight at most.
    const n = Number(/(\d+) span\(s\) dropped in all/.exec(said.at(-1) ?? '')?.[1]);
    assert.ok(n >= 4, said.join('\n'));
  });

  test('a telemetry.otlpEndpoint that is no URL leaves telemetry off, saying so', async () => {
    const lines: string[] = [];
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2026-07-28', '--name', 'up']) },
      { 'telemetry.otlpEndpoint': 'localhost 4318' },
      {},
      { log: (l) => lines.push(l) },
    );
    try {
      assert.equal(tracing.tracer, undefined);
      assert.ok(
        lines.includes('telemetry.otlpEndpoint "localhost 4318" is not a URL; telemetry is off'),
        lines.join('\n'),
      );
      const r = await new HttpClient(gw.url, '2026-07-28').request('tools/call', META_CALL, {
        meta: { traceparent: TRACEPARENT },
      });
      assert.equal(upstreamMeta(r.result!).traceparent, TRACEPARENT);
    } finally {
      await gw.close();
    }
  });
});

describe('mcpx daemon as shipped', () => {
  // Records, at exit, which of mcpx's bundles the daemon loaded (MCPX_CODE_CACHE=0: loaded by require).
  const hook = join(dir, 'hook.js');
  writeFileSync(
    hook,
    `process.on('exit', () => require('node:fs').writeFileSync(process.env.LOADED_TO, JSON.stringify(Object.keys(require.cache).filter((f) => /[\\\\/]dist[\\\\/]\\w+\\.js$/.test(f)).map((f) => require('node:path').basename(f)).sort())));\n`,
  );

  /** A daemon over the fixture, one tools/call with the client's traceparent, SIGTERM: the `_meta` the
   *  upstream received (what the daemon loaded is in loaded-N.json). */
  async function daemonRun(n: number, extraEnv: Record<string, string>): Promise<Json> {
    const config = join(dir, `daemon-${n}.json`);
    writeFileSync(config, JSON.stringify({ servers: { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) } }));
    const out = join(dir, `loaded-${n}.json`);
    const env = {
      ...process.env,
      XDG_CONFIG_HOME: join(dir, `home-${n}`),
      XDG_STATE_HOME: join(dir, `home-${n}`),
      MCPX_CODE_CACHE: '0',
      MCPX_PORT: '',
      LOADED_TO: out,
      ...extraEnv,
    };
    const child = spawn(process.execPath, ['-r', hook, cliJs(), 'daemon', '--port', '0', '--config', config], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise((r) => child.once('exit', r));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', resolve);
        child.once('exit', () => reject(new Error(`the daemon exited: ${stderr}`)));
      });
      const endpoint = /mcpx listening on (\S+)$/.exec(line)?.[1] ?? '';
      const c = new HttpClient(endpoint, '2026-07-28');
      const r = await c.request('tools/call', META_CALL, { meta: { traceparent: TRACEPARENT } });
      return upstreamMeta(r.result!);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }

  const loadedBy = (n: number) => JSON.parse(readFileSync(join(dir, `loaded-${n}.json`), 'utf8')) as string[];

  test('without the setting it never loads dist/otel.js; with it, dist/otel.js beside dist/mcpx.js exports the call', async () => {
    const rx = await receiver();
    try {
      const off = await daemonRun(1, {});
      assert.deepEqual(loadedBy(1), ['cli.js', 'mcpx.js']);
      assert.equal(off.traceparent, TRACEPARENT);
      assert.deepEqual(rx.requests, []);
      const on = await daemonRun(2, { MCPX_TELEMETRY_OTLP_ENDPOINT: rx.url });
      assert.deepEqual(loadedBy(2), ['cli.js', 'mcpx.js', 'otel.js']);
      const client = rx.spans().find((x) => x.kind === CLIENT_KIND && x.name === 'tools/call meta');
      assert.ok(client, 'exported on SIGTERM');
      assert.equal(on.traceparent, `00-${CLIENT_TRACE}-${client.spanId}-01`);
    } finally {
      await rx.close();
    }
  });
});

describe('the bundles', () => {
  test('dist/mcpx.js and dist/extension.js hold nothing of OpenTelemetry; dist/otel.js does', async () => {
    const root = repoRoot();
    // Names of the SDK's own code (the bundles' text names OpenTelemetry in settings' descriptions).
    const sdk = /OTLPTraceExporter|BasicTracerProvider|W3CTraceContextPropagator|@opentelemetry\//;
    for (const b of ['mcpx.js', 'extension.js', 'shim.js'])
      assert.ok(!sdk.test(readFileSync(join(root, 'dist', b), 'utf8')), `dist/${b} holds OpenTelemetry`);
    assert.match(readFileSync(join(root, 'dist', 'otel.js'), 'utf8'), /v1\/traces/);
    // The command line's import graph (every import, dynamic ones too) reaches no @opentelemetry package.
    const { metafile } = await build({
      entryPoints: [join(root, 'src', 'cli.ts')],
      absWorkingDir: root,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(metafile.inputs);
    assert.ok(inputs.includes('src/telemetry/trace.ts'), 'the port is in it');
    assert.deepEqual(
      inputs.filter((f) => /@opentelemetry|src\/otel\//.test(f)),
      [],
    );
  });
});
