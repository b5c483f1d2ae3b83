// mcpx_exec against mcpx_call for one 10-step workflow (docs/exec.md "What it saves"): the bytes the
// client receives and the wall time, through a running daemon over HTTP (2026-07-28 requests), with one
// stdio fixture upstream. Ten mcpx_call requests, each result going back to the client, against one
// mcpx_exec whose script makes the same ten calls and returns only what the workflow ends with. run.ts
// calls execBench() and writes its section into docs/performance.md; `node build/bench/exec.js` runs it
// alone.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { median, size } from './lib';
import { HttpClient } from './clients';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const RUNS = size(7, 1, 'EXEC_RUNS');
const MODERN = '2026-07-28';
/** The document each echo step carries (a search hit, a file, a page: what a step hands the next). */
const DOC = 'lorem ipsum dolor sit amet '.repeat(40);

/** Step i: echo the document (even steps) or add to the running sum (odd steps). */
const steps = Array.from({ length: 10 }, (_, i) =>
  i % 2 === 0 ? { tool: 'echo', args: { text: `${i}: ${DOC}` } } : { tool: 'add', args: { a: i, b: i } },
);

const SCRIPT = `
let sum = 0, chars = 0;
for (let i = 0; i < 10; i++) {
  if (i % 2 === 0) chars += (await mcpx.call('up', 'echo', { text: i + ': ' + ${JSON.stringify(DOC)} })).content[0].text.length;
  else sum += (await mcpx.servers.up.add({ a: i, b: i })).structuredContent.sum;
}
return { sum, chars };`;

function body(id: number, name: string, args: Record<string, unknown>): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} },
    },
  });
}

export interface ExecFigures {
  call: { bytes: number; ms: number };
  exec: { bytes: number; ms: number };
  runs: number;
}

export async function execBench(): Promise<ExecFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-exec-'));
  const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, MCPX_PORT: '' };
  const config = join(dir, 'mcp.json');
  const fixture = join(root, 'build', 'test', 'fixtures', 'upstream', 'server.js');
  writeFileSync(
    config,
    JSON.stringify({ servers: { up: { command: process.execPath, args: [fixture, '--rev', '2025-11-25'] } } }),
  );
  const daemon: ChildProcess = spawn(process.execPath, [cli, 'daemon', '--port', '0', '--config', config], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    const line = await new Promise<string>((r) => createInterface({ input: daemon.stdout! }).once('line', r));
    const url = new URL(/mcpx listening on (\S+)/.exec(line)![1]!);
    const headers = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': MODERN,
      'Mcp-Method': 'tools/call',
    };
    const c = new HttpClient(url, headers);
    let id = 1;
    const post = async (name: string, args: Record<string, unknown>): Promise<number> => {
      const a = await c.post(body(id++, name, args), { 'Mcp-Name': name });
      if (a.status !== 200 || a.body.includes('"isError":true')) throw new Error(`${name}: ${a.status} ${a.body}`);
      return Buffer.byteLength(a.body);
    };
    const viaCalls = async () => {
      let bytes = 0;
      for (const s of steps) bytes += await post('mcpx_call', { server: 'up', tool: s.tool, arguments: s.args });
      return bytes;
    };
    const viaExec = () => post('mcpx_exec', { script: SCRIPT });
    // Warm-up: the upstream started, its tools listed.
    await viaCalls();
    await viaExec();
    const call: Array<{ bytes: number; ms: number }> = [];
    const exec: Array<{ bytes: number; ms: number }> = [];
    for (let i = 0; i < RUNS; i++) {
      for (const [out, f] of [
        [call, viaCalls],
        [exec, viaExec],
      ] as const) {
        const t0 = performance.now();
        const bytes = await f();
        out.push({ bytes, ms: performance.now() - t0 });
      }
    }
    c.close();
    const of = (xs: Array<{ bytes: number; ms: number }>) => ({
      bytes: median(xs.map((x) => x.bytes)),
      ms: median(xs.map((x) => x.ms)),
    });
    return { call: of(call), exec: of(exec), runs: RUNS };
  } finally {
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

export function execReport(f: ExecFigures): string[] {
  return [
    '### One workflow: 10 mcpx_call requests against one mcpx_exec (bench/exec.ts)',
    '',
    `Ten steps on one stdio upstream (five echoes of a ${DOC.length + 3}-character document, five adds), through a daemon over HTTP (${MODERN}); median of ${f.runs} runs each, alternating. Bytes are the response bodies the client receives.`,
    '',
    '| | 10 × mcpx_call | 1 × mcpx_exec | exec / call |',
    '| --- | --- | --- | --- |',
    `| bytes to the client | ${f.call.bytes} | ${f.exec.bytes} | ${(f.exec.bytes / f.call.bytes).toFixed(3)} |`,
    `| wall time | ${f.call.ms.toFixed(1)} ms | ${f.exec.ms.toFixed(1)} ms | ${(f.exec.ms / f.call.ms).toFixed(2)}x |`,
    '',
    'The wall time of mcpx_exec includes starting its sandboxed process (a Node process per run); the ten mcpx_call requests pay one HTTP round trip each and no model turn between them, which a real client would.',
  ];
}

if (require.main === module) {
  void execBench().then((f) => process.stdout.write(`${execReport(f).join('\n')}\n`));
}
