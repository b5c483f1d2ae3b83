// `mcpx tools`, `mcpx call`, `mcpx read`, `mcpx exec` and `mcpx restart` as a user runs them (dist/cli.js
// in real processes) against a headless daemon over fixture upstreams, found the way a shim finds it
// (<state>/daemon.json); `--timeout` against an upstream that never answers; and the daemon's GET /health.
// (`--connect ssh://`: test/cli/cli-ssh.test.ts.)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { NEWEST_FIRST } from '../../src/protocol/revisions';
import { cliJs } from '../harness/gateway';
import { fixtureCommand } from '../harness/upstreams';
import { until } from '../harness/wait';

const cli = cliJs();
const dir = mkdtempSync(join(tmpdir(), 'mcpx-cli-call-'));
const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, MCPX_PORT: '' };
const hungRecord = join(dir, 'hung.jsonl');

function run(args: string[], input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

let daemon: ReturnType<typeof spawn> | undefined;
let endpoint = '';

before(async () => {
  mkdirSync(join(dir, 'mcpx'), { recursive: true });
  const config = join(dir, 'c.json');
  writeFileSync(
    config,
    JSON.stringify({
      servers: {
        up: fixtureCommand(['--rev', '2025-11-25']),
        // Never answers tools/call, prompts/get or resources/read: --timeout's upstream.
        hung: fixtureCommand(['--rev', '2025-11-25', '--fail', 'hang-all', '--record', hungRecord]),
      },
    }),
  );
  daemon = spawn(process.execPath, [cli, 'daemon', '--port', '0', '--config', config], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const line = await new Promise<string>((resolve) =>
    createInterface({ input: daemon!.stdout! }).once('line', resolve),
  );
  endpoint = /mcpx listening on (\S+)$/.exec(line)?.[1] ?? '';
  assert.ok(endpoint, line);
  assert.ok(existsSync(join(dir, 'mcpx', 'daemon.json')), 'the daemon names itself in daemon.json');
});

after(async () => {
  if (daemon && daemon.exitCode === null) {
    const exited = new Promise((r) => daemon!.once('exit', r));
    daemon.kill('SIGTERM');
    await exited;
  }
  // It took its daemon.json with it.
  assert.ok(!existsSync(join(dir, 'mcpx', 'daemon.json')));
  rmSync(dir, { recursive: true, force: true });
});

describe('mcpx tools / call / read', () => {
  test('mcpx tools: every server’s tools grouped by server; mcpx tools up: that server’s', async () => {
    const all = await run(['tools']);
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /^hung\n {2}add\s/m);
    assert.match(all.stdout, /^up\n {2}add\s/m);
    assert.match(all.stdout, /^ {2}echo\s+Echo$/m);
    assert.ok(all.stdout.indexOf('\nup\n') > all.stdout.indexOf('hung\n'), 'servers in name order');
    assert.ok(!/mcpx_call/.test(all.stdout), 'not the gateway’s own tools');
    const up = await run(['tools', 'up']);
    assert.equal(up.code, 0, up.stderr);
    assert.match(up.stdout, /^echo\s+Echo$/m);
    assert.match(up.stdout, /^fail\s+Returns a tool error \(isError\)$/m);
  });

  test('mcpx call: the result as JSON (exit 0), --text, an isError result (exit 1)', async () => {
    const r = await run(['call', 'up', 'echo', '{"text":"hi"}']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { content: [{ type: 'text', text: 'hi' }] });
    const text = await run(['call', 'up', 'echo', '{"text":"hi"}', '--text']);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout, 'hi\n');
    const failed = await run(['call', 'up', 'fail', '{}']);
    assert.equal(failed.code, 1, failed.stderr);
    assert.equal(JSON.parse(failed.stdout).isError, true);
  });

  test('mcpx call: arguments from stdin with -', async () => {
    const r = await run(['call', 'up', 'echo', '-', '--text'], '{"text":"from stdin"}\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'from stdin\n');
  });

  test('mcpx call: an unknown server, bad JSON, and no gateway at --connect are exit 2 with the reason', async () => {
    const r = await run(['call', 'nope', 'echo', '{}']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no server named "nope"/);
    const bad = await run(['call', 'up', 'echo', '{not json']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /the arguments are not JSON/);
    const gone = await run(['call', 'up', 'echo', '{}', '--connect', 'http://127.0.0.1:1/mcp/abc']);
    assert.equal(gone.code, 2);
    assert.match(gone.stderr, /cannot reach the gateway \(http:\/\/127\.0\.0\.1:1\/mcp\)/);
    assert.ok(!gone.stderr.includes('/mcp/abc'), 'the secret is not printed');
  });

  test('mcpx read: a fixture resource through its mcpx:// URI', async () => {
    const r = await run(['read', 'mcpx://up/fixture://doc']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).contents[0].text, 'doc body');
    const text = await run(['read', 'mcpx://up/fixture://doc', '--text']);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout, 'doc body\n');
  });

  test('--timeout: call and read end at the asked time, the upstream is told; a bare number is refused', async () => {
    let t0 = Date.now();
    const c = await run(['call', 'hung', 'echo', '{"text":"x"}', '--timeout', '300ms']);
    assert.equal(c.code, 2, c.stderr);
    assert.match(c.stderr, /upstream hung did not answer tools\/call within 300 ms \(the timeout the call asked for\)/);
    assert.ok(Date.now() - t0 < 4000);
    t0 = Date.now();
    const r = await run(['read', 'mcpx://hung/fixture://doc', '--timeout', '0.3s']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /did not answer resources\/read within 300 ms/);
    assert.ok(Date.now() - t0 < 4000);
    const cancelledUpstream = () =>
      readFileSync(hungRecord, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { dir: string; frame: { method?: string } })
        .filter((l) => l.dir === 'in' && l.frame.method === 'notifications/cancelled');
    const cancelled = await until(() => (cancelledUpstream().length >= 2 ? cancelledUpstream() : undefined), {
      what: 'both cancellations upstream',
    });
    assert.equal(cancelled.length, 2);
    for (const bad of ['30', 'soon', '0ms']) {
      const b = await run(['call', 'up', 'echo', '{"text":"x"}', '--timeout', bad]);
      assert.equal(b.code, 2);
      assert.match(b.stderr, /--timeout: expected a duration with its unit \(30s, 500ms, 2m\)/);
    }
  });

  test('mcpx exec FILE and -: what it returns on stdout, what it logs on stderr; a throw is exit 1', async () => {
    const file = join(dir, 'script.js');
    writeFileSync(
      file,
      "console.log('asking up'); const r = await mcpx.call('up', 'echo', {text: 'hi'}); return r.content[0].text;",
    );
    const r = await run(['exec', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '"hi"\n');
    assert.equal(r.stderr, 'asking up\n');
    const text = await run(['exec', file, '--text']);
    assert.equal(text.stdout, 'hi\n');
    const piped = await run(['exec', '-'], 'return (await mcpx.servers.up.add({a: 2, b: 3})).structuredContent;');
    assert.equal(piped.code, 0, piped.stderr);
    assert.deepEqual(JSON.parse(piped.stdout), { sum: 5 });
    const threw = await run(['exec', '-'], "throw new Error('no luck')");
    assert.equal(threw.code, 1);
    assert.match(threw.stderr, /no luck/);
    const missing = await run(['exec', join(dir, 'nope.js')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read the script/);
  });

  test('mcpx exec --timeout stops the run at the asked time (shorter than exec.timeout)', async () => {
    const t0 = Date.now();
    const r = await run(['exec', '-', '--timeout', '400ms'], 'await new Promise(() => {});');
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /the script ran past its timeout \(0\.4 s: /);
    assert.ok(Date.now() - t0 < 5000);
  });

  test('mcpx restart SERVER: a new process; an unknown server is exit 2', async () => {
    const who = async () => JSON.parse((await run(['call', 'up', 'whoami'])).stdout).content[0].text as string;
    const before = await who();
    const r = await run(['restart', 'up']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^up: restarted, running \(pid \d+\)$/m);
    assert.notEqual(await who(), before, 'another process answers');
    const nope = await run(['restart', 'nope']);
    assert.equal(nope.code, 2);
    assert.match(nope.stderr, /no server named "nope" is configured/);
  });

  test('GET /health: 200 with the revisions, without the secret, and no CORS header', async () => {
    const res = await fetch(new URL('/health', endpoint));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    const body = (await res.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['name', 'ok', 'revisions', 'sessions', 'version']);
    assert.equal(body.ok, true);
    assert.equal(body.name, 'mcpx');
    assert.deepEqual(body.revisions, [...NEWEST_FIRST]);
    // A page of another origin is refused before any route (DNS rebinding, cross-site reads).
    const cross = await fetch(new URL('/health', endpoint), { headers: { Origin: 'https://evil.example' } });
    assert.equal(cross.status, 403);
  });
});
