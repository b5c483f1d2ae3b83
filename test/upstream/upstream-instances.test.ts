// limits.instancesPerServer for a `scope: "identity"` server, with real processes: an identity's
// instance is spawned only once the cap says yes, and an instance evicted to make room has exited
// before its replacement starts (src/upstream/pool.ts, src/upstream/instances.ts). Each upstream
// process is a shell that records, as it starts, which earlier upstream processes were still alive;
// it runs the fixture server, and after the server ends lingers a moment before exiting, so that a
// replacement started without waiting for it would see it alive.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { SERVER_JS } from '../fixtures/upstream/client';
import { alive } from '../harness/process';
import { gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-instances-'));
after(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** $0 is the spawn log: one line per start, "<pid> alive: <earlier pids still running>". */
const RECORDING = [
  'log="$0"; seen=""',
  'if [ -f "$log" ]; then for p in $(cut -d" " -f1 "$log"); do',
  '  if kill -0 "$p" 2>/dev/null && ! grep -q ") Z " "/proc/$p/stat" 2>/dev/null; then seen="$seen $p"; fi',
  'done; fi',
  'echo "$$ alive:$seen" >> "$log"',
  '"$@"; code=$?',
  'sleep 0.3',
  'exit $code',
].join('\n');

function upstream(log: string) {
  return {
    command: '/bin/sh',
    args: ['-c', RECORDING, log, process.execPath, SERVER_JS(), '--rev', '2025-11-25', '--name', 'up'],
    scope: 'identity',
  };
}

/** The spawn log: each start's pid, and the earlier upstream processes alive when it started. */
function spawns(log: string): Array<{ pid: number; alive: number[] }> {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => {
      const [pid, rest] = l.split(' alive:');
      return { pid: Number(pid), alive: rest!.trim() ? rest!.trim().split(/\s+/).map(Number) : [] };
    });
}

const text = (r: Json | undefined) => String(((r?.content as Json[]) ?? [])[0]?.text ?? '');
const callAs = (c: HttpClient, who: string, tool: string, args: Json = {}, signal?: AbortSignal) =>
  c.request(
    'tools/call',
    { name: 'mcpx_call', arguments: { server: 'up', tool, arguments: args } },
    { meta: { 'dev.mcpx/session': who }, signal },
  );

describe('limits.instancesPerServer: the cap before the spawn, the evicted process gone before its replacement', () => {
  test("cap 1, identity a then b: a's process has exited before b's process starts", async () => {
    const log = join(dir, 'evict.log');
    const gw = await gatewayFor({ up: upstream(log) }, { 'limits.instancesPerServer': 1 });
    try {
      const c = new HttpClient(gw.url, '2026-07-28');
      assert.equal(text((await callAs(c, 'a', 'echo', { text: 'a' })).result), 'a');
      const [a] = spawns(log);
      assert.ok(a && alive(a.pid), "a's instance runs");
      assert.equal(text((await callAs(c, 'b', 'echo', { text: 'b' })).result), 'b');
      const all = spawns(log);
      assert.equal(all.length, 2, 'one process each');
      assert.equal(all[1]!.alive.includes(a.pid), false, `a's process (${a.pid}) was still running when b's started`);
      assert.deepEqual(all[1]!.alive, []);
      assert.equal(alive(a.pid), false);
    } finally {
      await gw.close();
    }
  });

  test('cap 1, a busy: b is refused naming the setting and never spawns a process', async () => {
    const log = join(dir, 'refuse.log');
    const gw = await gatewayFor({ up: upstream(log) }, { 'limits.instancesPerServer': 1 });
    const ctl = new AbortController();
    try {
      const c = new HttpClient(gw.url, '2026-07-28');
      const busy = callAs(c, 'a', 'slow', { ms: 60_000 }, ctl.signal).catch(() => undefined);
      await until(() => gw.g.servers().some((s) => s.state === 'running'), { what: 'a running instance', every: 50 });
      assert.equal(spawns(log).length, 1);
      const refused = await callAs(c, 'b', 'echo', { text: 'b' });
      assert.equal(refused.error?.code, -32603);
      assert.match(refused.error!.message, /upstream up: .*limits\.instancesPerServer/);
      assert.equal(spawns(log).length, 1, 'the refused identity spawned nothing');
      ctl.abort();
      await busy;
    } finally {
      ctl.abort();
      await gw.close();
    }
  });
});
