// node build/bench/reload.js: what a change of configuration costs (docs/gateway.md "Changing the
// configuration") on a gateway with N running stdio upstreams (the fixture server, 2025-11-25), in
// process: a reload that changes nothing, one that changes one server's args (until a call to it
// answers from its new instance), and the restart it replaces (close, a new gateway and listener, and a
// call answered by every server again), medians of ROUNDS; an unchanged server's calls/s during 20
// reloads against none; and, through `mcpx daemon` following its config file, the time from a save on
// disk to a connected client (on the stdio shim) listing the added server's tools. run.ts calls
// reloadBench() and writes its section into docs/performance.md; `node build/bench/reload.js` runs it
// alone.
import { spawn } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { listen } from '../src/app/app';
import { SETTLE_MS } from '../src/cli/follow';
import { parseConfig } from '../src/config/file';
import { Settings } from '../src/config/settings';
import { Gateway } from '../src/gateway/gateway';
import { editorContext } from '../src/vscode/editorCall';
import { median, runAlone, size, stop } from './lib';
import { StdioRpc } from './clients';

const root = join(__dirname, '..', '..');
const fixture = join(root, 'build', 'test', 'fixtures', 'upstream', 'server.js');
const cli = join(root, 'dist', 'cli.js');
const N = size(10, 2, 'BENCH_SERVERS');
const ROUNDS = size(5, 1, 'BENCH_ROUNDS');
/** How long each calls/s measurement runs. */
const LOAD_MS = size(3000, 200, 'BENCH_MS');

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

interface InProcess {
  same: number;
  one: number;
  restart: number;
  busy: number;
  quiet: number;
}

async function inProcess(): Promise<InProcess> {
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
  return { same: median(same), one: median(one), restart: median(restart), busy, quiet };
}

/** Resolves once `f` holds, checked every few ms; fails after 20 s. */
async function until(what: string, f: () => boolean | Promise<boolean>): Promise<void> {
  const end = performance.now() + 20_000;
  while (!(await f())) {
    if (performance.now() > end) throw new Error(`reload bench: ${what} not seen within 20 s`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** `mcpx daemon --config F` following F, a stdio client on the shim onto it; ROUNDS times: F saved by
 *  rename (as an editor saves) with a pass-through server added, timed until the client, told
 *  tools/list_changed, lists that server's tools; then saved without it again. */
async function followed(): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-follow-'));
  const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, MCPX_PORT: '' };
  const config = join(dir, 'mcp.json');
  const server = (name: string) => ({
    command: process.execPath,
    args: [fixture, '--rev', '2025-11-25', '--name', name],
  });
  const save = (servers: Record<string, unknown>) => {
    writeFileSync(`${config}.tmp`, JSON.stringify({ servers }));
    renameSync(`${config}.tmp`, config);
  };
  save({ up: server('up') });
  const daemon = spawn(process.execPath, [cli, 'daemon', '--port', '0', '--config', config, '--passthrough', 'added'], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const times: number[] = [];
  try {
    const line = await new Promise<string>((r) => createInterface({ input: daemon.stdout! }).once('line', r));
    const url = /mcpx listening on (\S+)/.exec(line)![1]!;
    const client = spawn(process.execPath, [cli, 'serve', '--transport', 'stdio', '--connect', url], {
      env,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    try {
      const rpc = new StdioRpc(client);
      let changes = 0;
      createInterface({ input: client.stdout! }).on('line', (l) => {
        if (l.includes('"notifications/tools/list_changed"')) changes++;
      });
      await rpc.request('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      });
      rpc.notify('notifications/initialized');
      const lists = async (tool: string) =>
        (
          JSON.parse(await rpc.request('tools/list', {})) as { result: { tools: Array<{ name: string }> } }
        ).result.tools.some((t) => t.name === tool);
      for (let r = 0; r < ROUNDS; r++) {
        let seen = changes;
        const t0 = performance.now();
        save({ up: server('up'), added: server('added') });
        await until('tools/list_changed', () => changes > seen);
        await until("the added server's tools listed", () => lists('echo'));
        times.push(performance.now() - t0);
        seen = changes;
        save({ up: server('up') });
        await until('tools/list_changed (removed)', () => changes > seen);
        await until("the removed server's tools gone", async () => !(await lists('echo')));
        // Past the settle window: the next save is a change of its own.
        await new Promise((res) => setTimeout(res, 2 * SETTLE_MS));
      }
    } finally {
      client.stdin!.end();
      await stop(client);
    }
  } finally {
    await stop(daemon);
    rmSync(dir, { recursive: true, force: true });
  }
  return times;
}

export interface ReloadFigures extends InProcess {
  servers: number;
  rounds: number;
  /** Save on disk → the added server's tools listed by a connected client, each round. */
  followed: number[];
}

export async function reloadBench(): Promise<ReloadFigures> {
  const p = await inProcess();
  return { ...p, servers: N, rounds: ROUNDS, followed: await followed() };
}

export function reloadReport(f: ReloadFigures): string[] {
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  return [
    '### Changing the configuration (bench/reload.ts)',
    '',
    `A gateway with ${f.servers} running stdio upstreams (the fixture server, 2025-11-25), in process, median of ${f.rounds}; then \`mcpx daemon\` following its config file.`,
    '',
    '| what | figure |',
    '| --- | --- |',
    `| reload, nothing changed | ${ms(f.same)} |`,
    `| reload, one server's args changed (+ a call answered by its new instance) | ${ms(f.one)} |`,
    `| restart instead (close, new gateway and listener, a call answered by each server) | ${ms(f.restart)} |`,
    `| an unchanged server's calls/s during 20 reloads against none (target >= 0.9x) | ${f.busy.toFixed(0)} / ${f.quiet.toFixed(0)} = ${(f.busy / f.quiet).toFixed(2)}x |`,
    `| config file saved (by rename) → a client on the shim told tools/list_changed and listing the added server's tools, median of ${f.followed.length} | ${ms(median(f.followed))} (runs ${f.followed.map((x) => x.toFixed(0)).join(', ')}) |`,
    '',
    `The last row includes the daemon's ${SETTLE_MS} ms settle (src/cli/follow.ts: writes within it are one change) and the start of the added server (a Node process).`,
  ];
}

// Run alone (`node build/bench/reload.js`); bundled into run.js it only exports.
runAlone('reload.js', reloadBench, reloadReport);
