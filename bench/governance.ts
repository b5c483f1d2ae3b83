// node build/bench/governance.js: what governing the calls costs (docs/gateway.md "Permissions",
// "Activity"): tools/call echo through a pass-through daemon at 16 clients, with 50 permission rules
// (none matching before the last, so every call walks them all) and the activity log on, against the
// same daemon with no rules and the log off. The two daemons take turns in slices, so both share the
// machine's noise; the figure is the ratio of their calls/s (target: at least 0.95).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { size, stopTree } from './lib';
import { type HttpAnswer, HttpClient, Samples, clientsRun } from './clients';
import { ALTERNATIONS, shown, spread, verdict } from './verdict';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const fixture = join(root, 'build', 'test', 'fixtures', 'upstream', 'server.js');
const CLIENTS = 16;
const RULES = 50;
const SLICE_MS = size(500, 100);
const WARM_MS = size(2000, 100);

const body = (id: number) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } });
const ok = (a: HttpAnswer) => a.status === 200 && a.body.includes('"text":"hello"') && !a.body.includes('"error"');

/** 49 rules about other servers and tools, then one that allows this call: every call is matched
 *  against all 50. */
function rules(): object[] {
  const other = Array.from({ length: RULES - 1 }, (_, i) => ({
    server: `other${i}`,
    tool: [`delete_*`, `write_${i}`],
    action: i % 2 ? 'deny' : 'ask',
  }));
  return [...other, { server: 'echo', tool: 'ec*', action: 'allow' }];
}

interface Daemon {
  child: ChildProcess;
  url: URL;
  state: string;
}

function daemon(dir: string, name: string, on: boolean): Promise<Daemon> {
  const state = join(dir, `state-${name}`);
  mkdirSync(state, { recursive: true });
  const config = join(dir, `${name}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      servers: { echo: { command: process.execPath, args: [fixture, '--rev', '2025-11-25'] } },
      settings: { 'mcp.passthrough': ['echo'], 'activity.enabled': on },
      ...(on ? { permissions: { default: 'deny', rules: rules() } } : {}),
    }),
  );
  const child = spawn(process.execPath, [cli, 'daemon', '--port', '0', '--config', config], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, XDG_STATE_HOME: state, XDG_CONFIG_HOME: join(dir, 'config') },
  });
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      const m = /listening on (\S+)/.exec(line);
      if (m) resolve({ child, url: new URL(m[1]!), state });
    });
    child.once('exit', (code) => reject(new Error(`the ${name} daemon exited (${code}) before it listened`)));
  });
}

/** Bytes the daemon's activity files hold (the log was written, not just kept in memory). */
function activityBytes(state: string): number {
  const dir = join(state, 'mcpx', 'activity');
  try {
    return readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
  } catch {
    return 0;
  }
}

export async function governanceBench(ms = size(3000, 200, 'BENCH_MS')): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-gov-'));
  const started: Daemon[] = [];
  const load0 = loadavg()[0]!;
  try {
    const off = await daemon(dir, 'off', false);
    started.push(off);
    const on = await daemon(dir, 'on', true);
    started.push(on);
    const clients = (d: Daemon) =>
      Array.from(
        { length: CLIENTS },
        () => new HttpClient(d.url, { 'Content-Type': 'application/json', Accept: 'application/json' }),
      );
    const offClients = clients(off);
    const onClients = clients(on);
    // The JIT and the upstreams first, both daemons.
    await clientsRun(offClients, body, WARM_MS, ok);
    await clientsRun(onClients, body, WARM_MS, ok);
    const samples = { off: new Samples(), on: new Samples() };
    // The ratio within each alternation (both daemons back to back), its median and spread (bench/verdict.ts).
    const ratios: number[] = [];
    const per = Math.max(1, Math.round(ms / (2 * SLICE_MS) / ALTERNATIONS));
    for (let a = 0; a < ALTERNATIONS; a++) {
      const alt = { off: new Samples(), on: new Samples() };
      for (let i = 0; i < per; i++) {
        // Each turn starts with the other daemon than the last, so neither always runs first.
        const order = (a * per + i) % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const);
        for (const which of order) {
          const run = await clientsRun(which === 'on' ? onClients : offClients, body, SLICE_MS, ok);
          samples[which].add(run);
          alt[which].add(run);
        }
      }
      ratios.push(alt.on.figures().rps / alt.off.figures().rps);
    }
    for (const c of [...offClients, ...onClients]) c.close();
    const f = { off: samples.off.figures(), on: samples.on.figures() };
    const ratio = spread(ratios);
    const logged = activityBytes(on.state);
    return [
      '## Governance: permissions and the activity log',
      '',
      `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench\` (bench/governance.ts): \`tools/call echo\` through a`,
      `pass-through \`mcpx daemon\` at ${CLIENTS} clients (2025-03-26, headerless), ${ms / 1000} s each in ${SLICE_MS} ms turns, after ${WARM_MS / 1000} s of warm-up.`,
      `"on": ${RULES} permission rules (the allowing one last, so every call is matched against all of them) and the`,
      `activity log on (${(logged / 1024).toFixed(0)} KiB written during the run); "off": no rules, \`activity.enabled: false\`. Load average ${load0.toFixed(1)} at the start.`,
      '',
      '| daemon | calls/s | p50 ms | p99 ms |',
      '| --- | --- | --- | --- |',
      `| off | ${f.off.rps.toFixed(0)} | ${f.off.p50.toFixed(2)} | ${f.off.p99.toFixed(2)} |`,
      `| on | ${f.on.rps.toFixed(0)} | ${f.on.p50.toFixed(2)} | ${f.on.p99.toFixed(2)} |`,
      '',
      `On against off: ${shown(ratio, 3)} calls/s, the median of ${ALTERNATIONS} alternations with their spread (target: at least 0.95x): ${verdict(ratio, 0.95, 'atLeast')}.`,
      '',
    ];
  } finally {
    await Promise.all(started.map((d) => stopTree(d.child)));
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module)
  governanceBench().then(
    (lines) => process.stdout.write(lines.join('\n')),
    (e) => {
      process.stderr.write(`${(e as Error).stack}\n`);
      process.exit(1);
    },
  );
