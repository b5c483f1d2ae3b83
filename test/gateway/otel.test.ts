// OpenTelemetry, off by default (docs/gateway.md "Telemetry"): with telemetry.otlpEndpoint set, a SERVER span
// per client request and a CLIENT span per upstream request reach an OTLP/HTTP receiver — here a real
// node:http server on 127.0.0.1 decoding the JSON that arrives — with the parent chain from the client's
// `traceparent` down to the upstream process, which records the `_meta` it received; every frame the
// upstream got stays valid for its revision. Without the setting nothing reaches the receiver and
// dist/otel.js is never loaded; a receiver that is down fails no call, and the drops are logged once.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { tracing } from '../../src/telemetry/trace';
import type { Revision } from '../harness/schema';
import { checkRecorded, fixtureCommand, gatewayFor, startHttpFixture } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import {
  dir,
  CLIENT_TRACE,
  CLIENT_SPAN,
  TRACEPARENT,
  META_CALL,
  type OtlpSpan,
  receiver,
  attr,
  SERVER_KIND,
  CLIENT_KIND,
} from './otelKit';

/** Whether this process has loaded dist/otel.js. */
const otelLoaded = () => Object.keys(require.cache).some((f) => /[\\/]dist[\\/]otel\.js$/.test(f));

/** The `_meta` the upstream received, as its `meta` tool returns it. */
const upstreamMeta = (result: Json): Json => JSON.parse(String((result.content as Json[])[0]!.text)) as Json;

// First: nothing in this process has loaded OpenTelemetry yet.
describe('telemetry off (the default)', () => {
  test('no request reaches the receiver, dist/otel.js is never loaded, and the trace context goes upstream unchanged', async () => {
    const rx = await receiver();
    const gw = await gatewayFor({ up: fixtureCommand(['--rev', '2026-07-28', '--name', 'up']) });
    try {
      const c = new HttpClient(gw.url, '2026-07-28');
      const r = await c.request('tools/call', META_CALL, { meta: { traceparent: TRACEPARENT } });
      assert.equal(upstreamMeta(r.result!).traceparent, TRACEPARENT, "the client's own, as before");
      assert.equal(tracing.tracer, undefined);
    } finally {
      await gw.close();
    }
    assert.equal(otelLoaded(), false, 'dist/otel.js not in require.cache');
    assert.deepEqual(rx.requests, []);
    await rx.close();
  });
});

describe('telemetry on: the parent chain from the client to the upstream process', () => {
  const cases: Array<{ rev: Revision; transport: 'stdio' | 'http' }> = [
    { rev: '2024-11-05', transport: 'stdio' },
    { rev: '2025-11-25', transport: 'stdio' },
    { rev: '2026-07-28', transport: 'stdio' },
    { rev: '2025-11-25', transport: 'http' },
    { rev: '2026-07-28', transport: 'http' },
  ];
  for (const { rev, transport } of cases) {
    test(`a ${rev} upstream over ${transport}`, async () => {
      const rx = await receiver();
      const record = join(dir, `record-${rev}-${transport}.jsonl`);
      const args = ['--rev', rev, '--name', 'up', '--record', record];
      const up =
        transport === 'stdio'
          ? fixtureCommand(args)
          : { url: (await startHttpFixture([...args, '--transport', 'http'])).url };
      const lines: string[] = [];
      const gw = await gatewayFor(
        { up },
        { 'telemetry.otlpEndpoint': rx.url, 'telemetry.serviceName': 'mcpx-test' },
        {},
        { log: (l) => lines.push(l) },
      );
      let seen: Json;
      try {
        const c = new HttpClient(gw.url, '2026-07-28');
        const r = await c.request('tools/call', META_CALL, {
          meta: { traceparent: TRACEPARENT, tracestate: 'vendor=1' },
        });
        seen = upstreamMeta(r.result!);
      } finally {
        // Closing the gateway exports what it holds.
        await gw.close();
      }
      await rx.close();
      assert.ok(otelLoaded());
      assert.equal(tracing.tracer, undefined, 'the closed gateway stopped its tracer');
      assert.ok(rx.requests.length >= 1);
      for (const q of rx.requests) {
        assert.equal(q.path, '/v1/traces');
        assert.match(q.contentType, /^application\/json/);
      }
      const resource = JSON.parse(rx.requests[0]!.body).resourceSpans[0].resource.attributes as OtlpSpan['attributes'];
      assert.deepEqual(
        resource.find((a) => a.key === 'service.name')?.value,
        { stringValue: 'mcpx-test' },
        'telemetry.serviceName',
      );
      const spans = rx.spans();
      const server = spans.find((s) => s.kind === SERVER_KIND && s.name === 'tools/call mcpx_call');
      assert.ok(server, spans.map((s) => `${s.kind} ${s.name}`).join('\n'));
      assert.equal(server.traceId, CLIENT_TRACE, "the client's trace");
      assert.equal(server.parentSpanId, CLIENT_SPAN, "the client's span is its parent");
      assert.equal(attr(server, 'mcp.method.name'), 'tools/call');
      assert.equal(attr(server, 'gen_ai.tool.name'), 'mcpx_call');
      assert.equal(attr(server, 'gen_ai.operation.name'), 'execute_tool');
      assert.equal(attr(server, 'mcp.protocol.version'), '2026-07-28');
      assert.equal(attr(server, 'network.transport'), 'tcp');
      assert.equal(attr(server, 'jsonrpc.request.id'), '1');
      const client = spans.find((s) => s.kind === CLIENT_KIND && s.name === 'tools/call meta');
      assert.ok(client, spans.map((s) => `${s.kind} ${s.name}`).join('\n'));
      assert.equal(client.traceId, CLIENT_TRACE);
      assert.equal(client.parentSpanId, server.spanId, 'the server span is the upstream request span’s parent');
      assert.equal(attr(client, 'mcp.protocol.version'), rev);
      assert.equal(attr(client, 'network.transport'), transport === 'stdio' ? 'pipe' : 'tcp');
      assert.equal(attr(client, 'gen_ai.tool.name'), 'meta');
      assert.equal(attr(client, 'mcpx.upstream.name'), 'up');
      // The upstream process itself received mcpx's CLIENT span as its parent, in the client's trace.
      assert.equal(seen.traceparent, `00-${CLIENT_TRACE}-${client.spanId}-01`);
      assert.equal(seen.tracestate, 'vendor=1', 'tracestate carried on');
      // Arguments and results are never exported.
      for (const q of rx.requests) assert.doesNotMatch(q.body, /do-not-export|"traceparent"/);
      // Every frame the upstream received (trace context in _meta included) is valid for its revision.
      checkRecorded(record, rev);
      assert.deepEqual(
        lines.filter((l) => /telemetry/.test(l)),
        [],
      );
    });
  }

  test("each call of an mcpx_exec script is a CLIENT span under the run's SERVER span, its traceparent upstream", async () => {
    const rx = await receiver();
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2026-07-28', '--name', 'up']) },
      { 'telemetry.otlpEndpoint': rx.url },
    );
    let seen: Json[];
    try {
      const c = new HttpClient(gw.url, '2026-07-28');
      const script =
        "const a = await mcpx.call('up', 'meta', {}); const b = await mcpx.call('up', 'meta', {}); return [a.content[0].text, b.content[0].text];";
      const r = await c.request(
        'tools/call',
        { name: 'mcpx_exec', arguments: { script } },
        { meta: { traceparent: TRACEPARENT } },
      );
      assert.notEqual(r.result?.isError, true, JSON.stringify(r.result));
      const sc = r.result!.structuredContent as Json;
      seen = ((sc.result ?? sc) as string[]).map((t) => JSON.parse(t) as Json);
    } finally {
      await gw.close();
      await rx.close();
    }
    const spans = rx.spans();
    const run = spans.find((x) => x.kind === SERVER_KIND && x.name === 'tools/call mcpx_exec');
    assert.ok(run);
    assert.equal(run.parentSpanId, CLIENT_SPAN);
    const calls = spans.filter((x) => x.kind === CLIENT_KIND && x.name === 'tools/call meta');
    assert.equal(calls.length, 2);
    assert.ok(calls.every((x) => x.parentSpanId === run.spanId && x.traceId === CLIENT_TRACE));
    assert.deepEqual(
      seen.map((m) => m.traceparent).sort(),
      calls.map((x) => `00-${CLIENT_TRACE}-${x.spanId}-01`).sort(),
    );
  });

  test('an upstream error ends the spans with error.type and an ERROR status; an isError result is tool_error', async () => {
    const rx = await receiver();
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) },
      { 'telemetry.otlpEndpoint': `${rx.url}/v1/traces` },
    );
    let failed: { error?: { code: number } } = {};
    try {
      const c = new HttpClient(gw.url, '2026-07-28');
      const call = (tool: string) => c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'up', tool } });
      failed = await call('error');
      assert.equal((await call('fail')).result?.isError, true);
    } finally {
      await gw.close();
    }
    await rx.close();
    const spans = rx.spans();
    const named = (kind: number, name: string) => {
      const s = spans.find((x) => x.kind === kind && x.name === name);
      assert.ok(s, `${name}: ${spans.map((x) => `${x.kind} ${x.name}`).join(', ')}`);
      return s;
    };
    // The upstream answered -32602: its CLIENT span says so, with the error's message as the status.
    const error = named(CLIENT_KIND, 'tools/call error');
    assert.equal(attr(error, 'error.type'), '-32602');
    assert.equal(attr(error, 'rpc.response.status_code'), '-32602');
    assert.equal(error.status?.code, 2, 'ERROR');
    assert.ok(error.status?.message);
    // The SERVER span records what the client got (a relayed error, or an isError result).
    const server = spans.find(
      (x) => x.kind === SERVER_KIND && x.name === 'tools/call mcpx_call' && attr(x, 'jsonrpc.request.id') === '1',
    );
    assert.ok(server);
    const got = failed.error ? String(failed.error.code) : 'tool_error';
    assert.equal(attr(server, 'error.type'), got);
    assert.equal(server.status?.code, 2);
    const fail = named(CLIENT_KIND, 'tools/call fail');
    assert.equal(attr(fail, 'error.type'), 'tool_error');
    assert.equal(attr(fail, 'rpc.response.status_code'), undefined, 'no JSON-RPC error');
    const second = spans.find((x) => x.kind === SERVER_KIND && attr(x, 'jsonrpc.request.id') === '2');
    assert.equal(fail.parentSpanId, second?.spanId, 'each upstream request under its own call');
  });
});

describe('a receiver that is down', () => {
  test('fails no call, and the spans it could not take are counted and logged once', async () => {
    const rx = await receiver();
    const url = rx.url;
    await rx.close(); // nothing listens there any more
    const lines: string[] = [];
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2026-07-28', '--name', 'up']) },
      { 'telemetry.otlpEndpoint': url },
      {},
      { log: (l) => lines.push(l) },
    );
    try {
      const c = new HttpClient(gw.url, '2026-07-28');
      for (let i = 0; i < 3; i++) {
        const r = await c.request('tools/call', META_CALL, { meta: { traceparent: TRACEPARENT } });
        assert.equal(r.error, undefined);
        assert.match(String(upstreamMeta(r.result!).traceparent), new RegExp(`^00-${CLIENT_TRACE}-`));
      }
    } finally {
      await gw.close();
    }
    const said = lines.filter((l) => /telemetry/.test(l));
    const first = said.filter((l) => /later drops are counted, not logged/.test(l));
    assert.ok(first.length <= 1, said.join('\n'));
    const total = said.filter((l) => /span\(s\) dropped in all/.test(l));
    assert.equal(total.length, 1, said.join('\n'));
    const n = Number(/(\d+) span\(s\) dropped in all/.exec(total[0]!)![1]);
    assert.ok(n >= 6, `${n}: a server and a client span per call at least`);
  });
});
