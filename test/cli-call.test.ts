// `mcpx tools`, `mcpx call`, `mcpx read` as a user runs them (dist/cli.js in real processes) against a
// headless daemon over a fixture upstream, found the way a shim finds it (<state>/daemon.json); and the
// daemon's GET /health.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { NEWEST_FIRST } from '../src/protocol/revisions';
import { cliJs } from './harness/gateway';
import { fixtureCommand } from './harness/upstreams';

const cli = cliJs();
const dir = mkdtempSync(join(tmpdir(), 'mcpx-cli-call-'));
const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, MCPX_PORT: '' };

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
  writeFileSync(config, JSON.stringify({ servers: { up: fixtureCommand(['--rev', '2025-11-25']) } }));
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
  test('mcpx tools: the gateway’s tools; mcpx tools up: that server’s', async () => {
    const all = await run(['tools']);
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /^mcpx_call\s+Call a tool of a configured server$/m);
    assert.match(all.stdout, /^mcpx_tools\s/m);
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
