// node build/bench/reload.js: what a change of configuration costs (docs/gateway.md "Changing the
// configuration") on a gateway with N running stdio upstreams (the fixture server, 2025-11-25), in
// process: a reload that changes nothing, one that changes one server's args (until a call to it
// answers from its new instance), and the restart it replaces (close, a new gateway and listener, and a
// call answered by every server again), medians of ROUNDS; and an unchanged server's calls/s during 20
// reloads against none. Printed, not written to docs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listen } from '../src/app/app';
import { parseConfig } from '../src/config/file';
import { Settings } from '../src/config/settings';
import { Gateway } from '../src/gateway/gateway';
import { editorContext } from '../src/vscode/editorCall';
import { median } from './lib';

const root = join(__dirname, '..', '..');
const fixture = join(root, 'build', 'test', 'fixtures', 'upstream', 'server.js');
const N = Number(process.env.BENCH_SERVERS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** How long each calls/s measurement runs. */
const LOAD_MS = Number(process.env.BENCH_MS ?? 3000);

const servers = (extra: string) =>
  Object.fromEntries(
    Array.from({ length: N }, (_, i) => [
      `s${i}`,
      {
        command: process.execPath,
        args: [fixture, '--rev', '2025-11-25', '--name', `s${i}`, ...(i === 0 && extra ? ['--tools', extra] : [])],
      },
    ]),
  );
const configOf = (extra = '') => parseConfig({ servers: servers(extra) }, 'bench', { env: process.env });
const settings = () => new Settings([{ source: 'flag', values: { 'pool.probeTimeout': '1s' } }]);

async function callAll(g: Gateway, names: string[]): Promise<void> {
  await Promise.all(
    names.map((server) => g.callTool('mcpx_call', { server, tool: 'echo', arguments: { text: 'x' } }, editorContext())),
  );
}

/** Calls to an unchanged server (s1) answered per second over `ms`, one after the other, while `during`
 *  runs beside them. */
async function callsPerSecond(g: Gateway, ms: number, during?: () => Promise<void>): Promise<number> {
  const end = performance.now() + ms;
  let n = 0;
  const loop = async () => {
    while (performance.now() < end) {
      await callAll(g, ['s1']);
      n++;
    }
  };
  await Promise.all([loop(), during?.()]);
  return n / (ms / 1000);
}

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-reload-'));
  const names = Array.from({ length: N }, (_, i) => `s${i}`);
  let g = new Gateway(configOf(), settings(), { stateDir: dir });
  let l = await listen({ provider: g, settings: g.settings, port: 0, address: '127.0.0.1' });
  await callAll(g, names);
  const same: number[] = [];
  const one: number[] = [];
  const restart: number[] = [];
  let quiet = 0;
  let busy = 0;
  try {
    // An unchanged server's calls/s with no reload, then while the configuration changes 20 times
    // (s0's args back and forth, spread over the same time).
    // Warmed up first (the JIT); the quiet figure is the mean of one run before and one after.
    await callsPerSecond(g, LOAD_MS);
    quiet = await callsPerSecond(g, LOAD_MS);
    busy = await callsPerSecond(g, LOAD_MS, async () => {
      for (let i = 0; i < 20; i++) {
        await g.reload(configOf(i % 2 ? '' : '1'), settings());
        await new Promise((r) => setTimeout(r, LOAD_MS / 20));
      }
    });
    quiet = (quiet + (await callsPerSecond(g, LOAD_MS))) / 2;
    for (let r = 0; r < ROUNDS; r++) {
      same.push(await timed(() => g.reload(configOf(r % 2 ? '1' : ''), settings())));
      // s0 given the other args, and its call answered by the new instance.
      one.push(
        await timed(async () => {
          await g.reload(configOf(r % 2 ? '' : '1'), settings());
          await callAll(g, ['s0']);
        }),
      );
      same.push(await timed(() => g.reload(configOf(r % 2 ? '' : '1'), settings())));
      restart.push(
        await timed(async () => {
          await l.close();
          await g.close();
          g = new Gateway(configOf(), settings(), { stateDir: dir });
          l = await listen({ provider: g, settings: g.settings, port: 0, address: '127.0.0.1' });
          await callAll(g, names);
        }),
      );
    }
  } finally {
    await l.close();
    await g.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const ms = (xs: number[]) => `${median(xs).toFixed(1)} ms`;
  process.stdout.write(
    `${N} running stdio upstreams, median of ${ROUNDS}:\n` +
      `  reload, nothing changed:                    ${ms(same)}\n` +
      `  reload, one server's args changed (+ a call answered by its new instance): ${ms(one)}\n` +
      `  restart instead (close, new gateway and listener, a call answered by each server): ${ms(restart)}\n` +
      `  an unchanged server's calls/s during 20 reloads against none: ${busy.toFixed(0)} / ${quiet.toFixed(0)} = ${(busy / quiet).toFixed(2)}x (target >= 0.9x)\n`,
  );
}

void main().then(
  () => process.exit(0),
  (e: Error) => {
    process.stderr.write(`${e.stack}\n`);
    process.exit(1);
  },
);
