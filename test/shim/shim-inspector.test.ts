// The stdio shim (`mcpx serve --transport stdio --connect URL`) with a client nobody here wrote: the
// MCP Inspector's command line (@modelcontextprotocol/inspector-cli), which spawns its server itself
// and prints the result of one method as JSON. Its server here is the shim behind a tee
// (test/fixtures/tee-shim.ts) that records both directions, so every frame the Inspector received is
// validated against the revision the gateway negotiated, each response against the method of the
// request the Inspector sent under its id. Each run ends with the Inspector, the tee and the shim gone,
// the shim having exited 0 on its own when the Inspector closed its stdin.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { fixture, repoRoot } from '../harness/gateway';
import { assertServerFrame, REVISIONS, type Revision } from '../harness/schema';
import { fixtureCommand } from '../harness/upstreams';
import { alive } from '../harness/process';
import { until } from '../harness/wait';

type Json = Record<string, unknown>;

// The package's bin (package.json "bin": build/cli.js), found through its package.json.
const inspectorPkg = require.resolve('@modelcontextprotocol/inspector-cli/package.json');
const inspectorBin = join(dirname(inspectorPkg), 'build', 'cli.js');
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Json);

describe('the stdio shim under the MCP Inspector CLI', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let daemon: ChildProcess;
  let endpoint: string;
  let runs = 0;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpx-inspector-'));
    // The Inspector's launcher runs its second stage as `node` from PATH: this node, first.
    env = {
      ...process.env,
      XDG_CONFIG_HOME: dir,
      XDG_STATE_HOME: dir,
      MCPX_PORT: '',
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
    };
    const config = join(dir, 'mcp.json');
    writeFileSync(config, JSON.stringify({ servers: { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) } }));
    daemon = spawn(
      process.execPath,
      [join(repoRoot(), 'dist', 'cli.js'), 'daemon', '--port', '0', '--config', config],
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    daemon.stderr!.resume();
    const line = await new Promise<string>((r) => createInterface({ input: daemon.stdout! }).once('line', r));
    endpoint = /mcpx listening on (\S+)/.exec(line)![1]!;
  });
  after(async () => {
    if (daemon.exitCode === null && daemon.signalCode === null) {
      daemon.kill('SIGTERM');
      await new Promise((r) => daemon.once('exit', r));
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * `mcp-inspector-cli --cli node tee-shim.js RECORD URL --method …`: its printed result, after every
   * frame it received was validated and its processes were seen gone.
   */
  async function inspect(args: string[]): Promise<Json> {
    const record = join(dir, `run-${++runs}`);
    // The Inspector reads its own package.json for its clientInfo at `../package.json` taken from the
    // current directory when that exists: run it from its build folder, whose parent holds it.
    const child = spawn(
      process.execPath,
      [inspectorBin, '--cli', process.execPath, fixture('tee-shim'), record, endpoint, ...args],
      {
        cwd: dirname(inspectorBin),
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own process group, holding the Inspector's two stages, the tee and the shim.
        detached: true,
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c));
    child.stderr!.on('data', (c: Buffer) => (stderr += c));
    const group = -child.pid!;
    const timer = setTimeout(() => process.kill(group, 'SIGKILL'), 30_000);
    const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
    clearTimeout(timer);
    assert.equal(code, 0, `inspector ${args.join(' ')} exited ${code}\nstdout: ${stdout}\nstderr: ${stderr}`);

    // Nothing left behind: the tee and the shim exit once the Inspector closed the shim's stdin, and
    // the Inspector's second stage with them.
    const pids = JSON.parse(readFileSync(`${record}.pid`, 'utf8')) as { tee: number; shim: number };
    await until(() => !alive(group), { what: "the Inspector's group gone", timeout: 5000, every: 50 });
    assert.ok(!alive(pids.shim), 'the shim exited');
    assert.ok(!alive(pids.tee), 'the tee exited');
    assert.ok(!alive(group), "no process of the Inspector's group is left");
    // …on its own: stdin's end, then exit 0, before the Inspector's SDK would fall back to SIGTERM.
    assert.deepEqual(readFileSync(`${record}.events`, 'utf8').split('\n').filter(Boolean), ['EOF', 'exit 0']);

    // What the Inspector sent: its requests by id (initialize first); what it received: a response
    // to each, every frame valid in the revision the gateway answered initialize with.
    const sent = lines(`${record}.in`);
    const received = lines(`${record}.out`);
    const methods: Record<string, string> = {};
    for (const f of sent) if (typeof f.method === 'string' && 'id' in f) methods[String(f.id)] = f.method;
    assert.equal(sent[0]?.method, 'initialize', 'the Inspector opened with initialize');
    assert.equal(((sent[0]!.params as Json).clientInfo as Json).name, 'inspector-cli');
    const init = received.find((f) => 'id' in f && String(f.id) === String(sent[0]!.id));
    const rev = (init?.result as Json | undefined)?.protocolVersion as Revision;
    assert.ok(REVISIONS.includes(rev), `negotiated revision ${String(rev)}`);
    assert.equal(rev, (sent[0]!.params as Json).protocolVersion, 'the gateway answered in the revision asked for');
    for (const frame of received) assertServerFrame(rev, frame, methods);
    const answered = received.filter((f) => 'result' in f || 'error' in f).map((f) => String(f.id));
    assert.deepEqual(answered.sort(), Object.keys(methods).sort(), 'each request answered once');
    assert.ok(
      received.every((f) => !('error' in f)),
      `no error responses: ${JSON.stringify(received.filter((f) => 'error' in f))}`,
    );
    return JSON.parse(stdout) as Json;
  }

  test('--method tools/list lists mcpx_call', async () => {
    const r = await inspect(['--method', 'tools/list']);
    const names = (r.tools as Array<{ name: string }>).map((t) => t.name);
    assert.ok(names.includes('mcpx_call'), names.join(', '));
  });

  test('--method tools/call mcpx_call, a JSON-valued --tool-arg: the upstream echo answers', async () => {
    const r = await inspect([
      '--method',
      'tools/call',
      '--tool-name',
      'mcpx_call',
      // Each value is parsed as JSON when it parses, else kept as a string.
      '--tool-arg',
      'server=up',
      'tool=echo',
      'arguments={"text":"hi"}',
    ]);
    assert.notEqual(r.isError, true, JSON.stringify(r));
    const text = ((r.content as Array<{ text?: string }>) ?? []).map((b) => b.text ?? '').join('');
    assert.equal(text, 'hi');
  });

  test('--method resources/list', async () => {
    const r = await inspect(['--method', 'resources/list']);
    assert.ok(Array.isArray(r.resources), JSON.stringify(r));
  });

  test('the daemon is still serving, and exits on SIGTERM', async () => {
    assert.equal(daemon.exitCode, null);
    daemon.kill('SIGTERM');
    const code = await new Promise((r) => daemon.once('exit', (c, s) => r(c ?? s)));
    assert.ok(code === 0 || code === 'SIGTERM', String(code));
  });
});
