// node build/bench/guardrails.js: what the guardrails cost (docs/gateway.md "Guardrails"). Three
// pass-through daemons answer `tools/call echo` (a small result) at 16 clients, taking turns in slices so
// they share the machine's noise: "off" has no guardrails block; "unmatched" has rules for every detector
// that name other tools (a call no rule matches: one lookup); "on" screens every result with the three
// built-in detectors (secrets, pii, injection). Then, in this process, the engine alone on 1 MB of text —
// prose with secrets, addresses and an injection scattered in it — with every built-in detector, each
// finding redacted: the median of several scans.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseGuardrails } from '../src/config/guardrails';
import { Screen } from '../src/guardrails/screen';
import { PII_TEXT, SECRETS_TEXT, TAGGED_TEXT } from '../test/fixtures/upstream/tainted';
import { size, stopTree } from './lib';
import { type HttpAnswer, HttpClient, Samples, clientsRun } from './clients';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const fixture = join(root, 'build', 'test', 'fixtures', 'upstream', 'server.js');
const CLIENTS = 16;
const SLICE_MS = size(500, 100);
const WARM_MS = size(2000, 100);
const SCANS = size(9, 2);
const MB = 1024 * 1024;

const body = (id: number) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } });
const ok = (a: HttpAnswer) => a.status === 200 && a.body.includes('"text":"hello"') && !a.body.includes('"error"');

const DETECTORS = ['secrets', 'pii', 'injection'];
const BLOCKS: Record<string, object | undefined> = {
  off: undefined,
  unmatched: { rules: DETECTORS.map((detect) => ({ detect, tool: 'fetch_*', action: 'redact' })) },
  on: { rules: DETECTORS.map((detect) => ({ detect, action: 'redact' })) },
  // The first again: how far two daemons alike differ in this run (the machine's noise).
  'off again': undefined,
};

interface Daemon {
  child: ChildProcess;
  url: URL;
}

function daemon(dir: string, name: string): Promise<Daemon> {
  const state = join(dir, `state-${name.replace(' ', '-')}`);
  mkdirSync(state, { recursive: true });
  const config = join(dir, `${name.replace(' ', '-')}.json`);
  const guardrails = BLOCKS[name];
  writeFileSync(
    config,
    JSON.stringify({
      servers: { echo: { command: process.execPath, args: [fixture, '--rev', '2025-11-25'] } },
      settings: { 'mcp.passthrough': ['echo'], 'activity.enabled': false },
      ...(guardrails ? { guardrails } : {}),
    }),
  );
  const child = spawn(process.execPath, [cli, 'daemon', '--port', '0', '--config', config], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, XDG_STATE_HOME: state, XDG_CONFIG_HOME: join(dir, 'config') },
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /listening on (\S+)/.exec(line);
      if (m) resolve({ child, url: new URL(m[1]!) });
    });
    child.once('exit', (code) => reject(new Error(`the ${name} daemon exited (${code}) before it listened`)));
  });
}

/** 1 MB of prose with the fixture's secrets, personal data and a hidden instruction every 64 KiB. */
function megabyte(): string {
  const prose = 'The quarterly report lists revenue, costs and the plan for the next period in detail. ';
  const tainted = `\n${SECRETS_TEXT}\n${PII_TEXT}\n${TAGGED_TEXT}\n`;
  let text = '';
  while (text.length < MB) text += prose.repeat(Math.floor((64 * 1024) / prose.length)) + tainted;
  return text.slice(0, MB);
}

/** The engine alone, in this process: what a call no rule matches pays (the plan's lookup), what a small
 *  result's screening takes, and the median time to screen 1 MB — every built-in detector on, the
 *  findings redacted. */
async function engine(): Promise<{ lookupNs: number; smallUs: number; ms: number; findings: number }> {
  const { guardrails } = parseGuardrails(BLOCKS.on);
  const screen = new Screen([guardrails!]);
  const plan = screen.plan({ on: 'results', server: 'files', target: 'read' })!;
  const unmatched = new Screen([parseGuardrails(BLOCKS.unmatched).guardrails!]);
  const n = size(200_000, 1000);
  let t0 = performance.now();
  for (let i = 0; i < n; i++) unmatched.plan({ on: 'results', server: 'echo', target: 'echo' });
  const lookupNs = ((performance.now() - t0) * 1e6) / n;
  const small = { content: [{ type: 'text', text: 'hello' }] };
  const m = size(5000, 100);
  for (let i = 0; i < m; i++) await screen.screen(small, plan, 'result');
  t0 = performance.now();
  for (let i = 0; i < m; i++) await screen.screen(small, plan, 'result');
  const smallUs = ((performance.now() - t0) * 1000) / m;
  const message = { content: [{ type: 'text', text: megabyte() }] };
  await screen.screen(message, plan, 'result'); // the JIT first
  const times: number[] = [];
  let findings = 0;
  for (let i = 0; i < SCANS; i++) {
    const t0 = performance.now();
    const s = await screen.screen(message, plan, 'result');
    times.push(performance.now() - t0);
    findings = s.findings.reduce((n, f) => n + f.count, 0);
  }
  times.sort((a, b) => a - b);
  return { lookupNs, smallUs, ms: times[Math.floor(times.length / 2)]!, findings };
}

export async function guardrailsBench(ms = size(3000, 200, 'BENCH_MS')): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-guardrails-'));
  const started: Daemon[] = [];
  const load0 = loadavg()[0]!;
  try {
    const names = Object.keys(BLOCKS);
    for (const name of names) started.push(await daemon(dir, name));
    const clients = started.map((d) =>
      Array.from(
        { length: CLIENTS },
        () => new HttpClient(d.url, { 'Content-Type': 'application/json', Accept: 'application/json' }),
      ),
    );
    for (const c of clients) await clientsRun(c, body, WARM_MS, ok);
    const samples = names.map(() => new Samples());
    for (let t = 0; t < ms; t += names.length * SLICE_MS)
      for (let i = 0; i < names.length; i++) samples[i]!.add(await clientsRun(clients[i]!, body, SLICE_MS, ok));
    for (const c of clients.flat()) c.close();
    const f = samples.map((s) => s.figures());
    const scan = await engine();
    const off = f[0]!.rps;
    return [
      '## Guardrails: screening results',
      '',
      `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench\` (bench/guardrails.ts): \`tools/call echo\` (a small result)`,
      `through a pass-through \`mcpx daemon\` at ${CLIENTS} clients, ${ms / 1000} s each in ${SLICE_MS} ms turns, after ${WARM_MS / 1000} s of warm-up.`,
      '"off": no guardrails; "unmatched": a rule for each built-in detector, none naming this tool; "on": every',
      `result screened by secrets, pii and injection; "off again": the first daemon's twin, the run's noise. Load average`,
      `${load0.toFixed(1)} at the start.`,
      '',
      '| daemon | calls/s | against off | p50 ms | p99 ms |',
      '| --- | --- | --- | --- | --- |',
      ...names.map(
        (n, i) =>
          `| ${n} | ${f[i]!.rps.toFixed(0)} | ${(f[i]!.rps / off).toFixed(3)}× | ${f[i]!.p50.toFixed(2)} | ${f[i]!.p99.toFixed(2)} |`,
      ),
      '',
      'The engine alone, in one process:',
      '',
      `- a call no rule matches: its plan looked up in **${scan.lookupNs.toFixed(0)} ns** (the step then hands the call on);`,
      `- a small result screened by the three built-in detectors: **${scan.smallUs.toFixed(0)} µs**;`,
      `- 1 MB screened (${scan.findings} findings redacted): **${scan.ms.toFixed(0)} ms**, the median of ${SCANS}.`,
      '',
    ];
  } finally {
    await Promise.all(started.map((d) => stopTree(d.child)));
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module)
  guardrailsBench().then(
    (lines) => process.stdout.write(lines.join('\n')),
    (e) => {
      process.stderr.write(`${(e as Error).stack}\n`);
      process.exit(1);
    },
  );
