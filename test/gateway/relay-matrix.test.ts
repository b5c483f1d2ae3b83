// Progress, logs and trace context for every pair of {legacy stdio, legacy HTTP session, modern HTTP}
// client x {legacy, 2026-07-28} upstream (docs/protocol.md "Progress", "Trace context"): the host's progress token
// restored, never backwards, the final report at total and nothing after it; log messages at or above the
// host's level and none below; traceparent, tracestate and baggage arriving upstream unchanged. Every
// frame the clients receive is validated against their revision (the harness clients do it).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { HttpPeer } from '../fixtures/upstream/client';
import { repoRoot } from '../harness/gateway';
import type { Revision } from '../harness/schema';
import { fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json, StdioClient } from '../harness/wire';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-relaymatrix-'));
after(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

const TRACE = {
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tracestate: 'mcpx=1',
  baggage: 'user=ada',
};
const SLOW = { name: 'mcpx_call', arguments: { server: 'up', tool: 'slow', arguments: { ms: 150, steps: 3 } } };
const META = { name: 'mcpx_call', arguments: { server: 'up', tool: 'meta', arguments: {} } };

/** One call through the gateway with this `_meta`, at log level `info`: the notifications that came
 *  for it and its result. */
type Caller = (params: Json, meta: Json) => Promise<{ notes: Json[]; result: Json }>;

interface Kind {
  name: string;
  start(servers: Record<string, unknown>): Promise<{ call: Caller; problems(): string[]; close(): Promise<void> }>;
}

const KINDS: Kind[] = [
  {
    name: 'legacy stdio client',
    async start(servers) {
      const config = join(dir, `serve-${Math.random()}.json`);
      writeFileSync(config, JSON.stringify({ servers }));
      const c = new StdioClient(
        process.execPath,
        [join(repoRoot(), 'dist', 'cli.js'), 'serve', '--transport', 'stdio', '--standalone', '--config', config],
        '2025-11-25',
      );
      await c.initialize();
      await c.request('logging/setLevel', { level: 'info' });
      return {
        call: async (params, meta) => {
          const from = c.frames.length;
          const r = await c.request('tools/call', params, meta);
          return { notes: c.frames.slice(from).filter((f) => !('id' in f)), result: r.result as Json };
        },
        problems: () => c.errors,
        close: async () => void (await c.close()),
      };
    },
  },
  {
    name: 'legacy HTTP session',
    async start(servers) {
      const gw = await gatewayFor(servers);
      const p = new HttpPeer('2025-11-25', gw.url);
      await p.initialize({});
      await p.request('logging/setLevel', { level: 'info' });
      return {
        call: async (params, meta) => {
          const from = p.frames.length;
          const r = await p.request('tools/call', params, meta);
          return { notes: p.frames.slice(from).filter((f) => !('id' in f)), result: r.result as Json };
        },
        problems: () => p.problems,
        close: () => gw.close(),
      };
    },
  },
  {
    name: 'modern HTTP client',
    async start(servers) {
      const gw = await gatewayFor(servers);
      const c = new HttpClient(gw.url, '2026-07-28');
      return {
        call: async (params, meta) => {
          const r = await c.request('tools/call', params, {
            meta: { ...meta, 'io.modelcontextprotocol/logLevel': 'info' },
          });
          return { notes: r.notifications, result: r.result! };
        },
        problems: () => [],
        close: () => gw.close(),
      };
    },
  },
];

for (const kind of KINDS) {
  for (const rev of ['2025-11-25', '2026-07-28'] as Revision[]) {
    describe(`${kind.name} x ${rev} upstream`, () => {
      test('progress under the host token, increasing, final at total; logs at the level; trace context unchanged', async () => {
        const client = await kind.start({ up: fixtureCommand(['--rev', rev, '--name', 'up']) });
        try {
          const { notes, result } = await client.call(SLOW, { progressToken: 'host-7' });
          assert.match(String((result.content as Json[])[0]!.text), /slept 150ms/);
          const progress = notes.filter((n) => n.method === 'notifications/progress').map((n) => n.params as Json);
          assert.ok(progress.length >= 1);
          assert.ok(
            progress.every((p) => p.progressToken === 'host-7'),
            "the host's token, not mcpx's",
          );
          const values = progress.map((p) => Number(p.progress));
          assert.deepEqual(
            values,
            [...new Set(values)].sort((a, b) => a - b),
            'never backwards, never repeated',
          );
          assert.equal(values.at(-1), 3, 'the final report (progress = total) always arrives');
          assert.ok(progress.every((p) => p.total === 3));
          const logs = notes.filter((n) => n.method === 'notifications/message').map((n) => n.params as Json);
          assert.ok(logs.length >= 1, 'info messages relayed');
          assert.ok(
            logs.every((l) =>
              ['info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'].includes(String(l.level)),
            ),
          );
          const seen = await client.call(META, { ...TRACE });
          const upstreamMeta = JSON.parse(String((seen.result.content as Json[])[0]!.text)) as Json;
          for (const [k, v] of Object.entries(TRACE)) assert.equal(upstreamMeta[k], v, `${k} unchanged upstream`);
          assert.deepEqual(client.problems(), []);
        } finally {
          await client.close();
        }
      });
    });
  }
}
