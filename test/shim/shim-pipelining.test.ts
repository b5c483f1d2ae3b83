// The stdio shim and a client that does not wait (docs/gateway.md "The stdio shim"): what it writes while
// its session is being opened waits in its own pipe, not in the shim's memory (a million lines behind an
// initialize the gateway has not answered yet); a shim killed mid-call — before `initialized`, pipelined,
// or 2026-07-28 — leaves no call running upstream; lines written while the gateway restarts go, in
// order, into the session opened again. Every frame the clients receive is validated for their revision.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cliJs } from '../harness/gateway';
import { type Daemon, startDaemon } from '../harness/paths';
import type { Revision } from '../harness/schema';
import { type Json, StdioClient } from '../harness/wire';
import { until } from '../harness/wait';

const textOf = (r: unknown) =>
  (((r as Json | undefined)?.content as Json[] | undefined) ?? []).map((b) => String(b.text ?? '')).join('');

let daemon: Daemon;
let record: string;
const clients: StdioClient[] = [];
before(async () => {
  daemon = await startDaemon({
    record: (record = join(process.env.TMPDIR ?? '/tmp', `mcpx-pipelining-${process.pid}.jsonl`)),
  });
});
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await daemon?.stop();
  rmSync(record, { force: true });
});

function shim(rev: Revision): StdioClient {
  const c = new StdioClient(
    process.execPath,
    [cliJs(), 'serve', '--transport', 'stdio', '--connect', daemon.endpoint],
    rev,
    {},
    daemon.env,
  );
  clients.push(c);
  return c;
}

/** utime + stime of a process (Linux /proc: after the command's closing parenthesis). */
const cpuTicks = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
};
const rssKb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

const received = (): Json[] =>
  (existsSync(record) ? readFileSync(record, 'utf8') : '')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { dir: string; frame: Json })
    .filter((l) => l.dir === 'in')
    .map((l) => l.frame);
/** The upstream's id for the slow call of `ms` (each test sleeps its own). */
const callOf = (ms: number): unknown =>
  received().find((f) => f.method === 'tools/call' && ((f.params as Json).arguments as Json | undefined)?.ms === ms)
    ?.id;
const cancelledUpstream = (id: unknown) =>
  received().some((f) => f.method === 'notifications/cancelled' && (f.params as Json).requestId === id);
const slow = (ms: number) => ({ name: 'slow', arguments: { ms, steps: 100 } });

describe('the stdio shim and a client that does not wait', () => {
  test('a million lines behind an unanswered initialize wait in the client’s pipe, not in the shim', async (t) => {
    // The gateway stopped (SIGSTOP): the shim's initialize is accepted by the kernel and answered only once
    // the gateway runs again.
    const c = shim('2025-11-25');
    let stopped = false;
    try {
      await until(() => /serving stdio/.test(c.stderr), { what: 'the shim started' });
      const base = rssKb(c.child.pid!);
      // initialize, then a million notifications (they are never answered: only initialize is).
      process.kill(daemon.pid, 'SIGSTOP');
      stopped = true;
      const init = c.request('initialize', c.handshake()[0]!.params as Json);
      const line = '{"jsonrpc":"2.0","method":"notifications/nothing"}\n';
      c.child.stdin.on('error', () => undefined); // EPIPE once the shim is killed with the flood unread
      // In writes of 1000 lines: what is still buffered on the client's side is what the shim has not read.
      for (let n = 0; n < 1000; n++) c.child.stdin.write(line.repeat(1000));
      const bytes = line.length * 1_000_000;
      // Until the shim is idle: neither what the client wrote drains from its side of the pipe nor does the
      // shim spend CPU time, for half a second.
      let last = '';
      let still = 0;
      await until(
        () => {
          const now = `${c.child.stdin.writableLength} ${cpuTicks(c.child.pid!)}`;
          still = now === last ? still + 1 : 0;
          last = now;
          return still >= 10;
        },
        { what: 'the shim went idle' },
      );
      const unread = c.child.stdin.writableLength;
      const grew = rssKb(c.child.pid!) - base;
      t.diagnostic(`the shim grew by ${grew} kB; the client still holds ${unread} of ${bytes} bytes`);
      assert.ok(unread > bytes / 2, `the client still holds most of it: ${unread} of ${bytes}`);
      assert.ok(grew < 32 * 1024, `the shim grew by ${grew} kB`);
      process.kill(daemon.pid, 'SIGCONT');
      stopped = false;
      const answer = await init;
      assert.equal((answer.result as Json | undefined)?.protocolVersion, '2025-11-25', JSON.stringify(answer));
    } finally {
      c.child.kill('SIGKILL');
      await c.exited;
      if (stopped) process.kill(daemon.pid, 'SIGCONT');
    }
  });

  const killed: Array<[string, Revision, number, (c: StdioClient, ms: number) => Promise<void>]> = [
    [
      'after initialize, before initialized (the session’s stream is open already)',
      '2025-11-25',
      60_001,
      async (c, ms) => {
        await c.request('initialize', c.handshake()[0]!.params as Json);
        c.send(c.frame('tools/call', slow(ms)));
      },
    ],
    [
      'a pipelined handshake and call',
      '2025-06-18',
      60_002,
      async (c, ms) => void c.pipeline([...c.handshake(), c.frame('tools/call', slow(ms))]),
    ],
    ['a 2026-07-28 call', '2026-07-28', 60_003, async (c, ms) => c.send(c.frame('tools/call', slow(ms)))],
  ];
  for (const [what, rev, ms, start] of killed)
    test(`a shim killed with SIGKILL mid-call, ${what}: the call is cancelled upstream`, async () => {
      const c = shim(rev);
      await start(c, ms);
      await until(() => callOf(ms) !== undefined, { what: 'the call reached the upstream' });
      c.child.kill('SIGKILL');
      await c.exited;
      await until(() => cancelledUpstream(callOf(ms)), { what: 'the call was cancelled upstream' });
    });
});

describe('the shim and a gateway that restarts, with a client that does not wait', () => {
  test('lines written while the gateway is away go, in order, into the session opened again', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mcpx-restart-'));
    const own = await startDaemon({ dir: home });
    const port = new URL(own.endpoint).port;
    let restarted: Daemon | undefined;
    const c = new StdioClient(
      process.execPath,
      [cliJs(), 'serve', '--transport', 'stdio', '--connect', own.endpoint],
      '2024-11-05',
      {},
      own.env,
    );
    clients.push(c);
    try {
      await c.initialize();
      const who = async () =>
        textOf(
          (await c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'mine', tool: 'whoami' } })).result,
        );
      const first = await who();
      await own.stop();
      // The first call finds the gateway gone; what the client writes then waits for the session opened
      // again, and goes in it.
      const echo = c.request('tools/call', { name: 'echo', arguments: { text: 'after' } });
      await until(() => /lost the gateway/.test(c.stderr), { what: 'the shim lost the gateway' });
      const answers = c.pipeline([
        c.frame('tools/list'),
        c.frame('tools/call', { name: 'mcpx_call', arguments: { server: 'mine', tool: 'whoami' } }),
      ]);
      restarted = await startDaemon({ port, dir: home });
      assert.equal(textOf((await echo).result), 'after', 'the call that never reached the gateway is sent again');
      const [list, whoami] = await answers;
      const tools = (list!.result as Json).tools as Json[];
      assert.equal(tools.find((t) => t.name === 'echo')?.annotations, undefined, '2024-11-05 has no annotations');
      const again = textOf(whoami!.result);
      assert.notEqual(again, first, 'a new gateway, a new instance');
      assert.equal(await who(), again, 'the session opened again is the one every later request goes in');
    } finally {
      await c.close();
      await restarted?.stop();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
