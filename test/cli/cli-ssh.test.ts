// `mcpx tools`, `call`, `read` and `exec` with `--connect ssh://host:port`, through a real OpenSSH (an sshd
// of the test's own on loopback, test/harness/sshd.ts): the command line speaks MCP to mcpx's stdio shim on
// the far host, which is a shim onto a headless daemon there. `--timeout` holds over it too, and a host
// that cannot be reached is exit 2 naming it; `--profile` reaches the far gateway's profile. Skipped where openssh cannot be had (never under CI).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Daemon, startDaemon } from '../harness/paths';
import { type Sshd, sshSkip, startSshd } from '../harness/sshd';
import { fixtureCommand } from '../harness/upstreams';

const skip = sshSkip();
let daemon: Daemon;
let sshd: Sshd;
before(async () => {
  if (skip) return;
  daemon = await startDaemon({
    config: {
      servers: {
        up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']),
        hung: fixtureCommand(['--rev', '2026-07-28', '--name', 'hung', '--fail', 'hang-all']),
      },
      profiles: { 'up-only': { servers: ['up'], mode: 'aggregated' } },
    },
    settings: { 'mcp.passthrough': 'hung' },
  });
  const state = join(daemon.dir, 'far');
  mkdirSync(state);
  sshd = await startSshd(daemon.endpoint, state);
});
after(async () => {
  await sshd?.stop();
  await daemon?.stop();
});

function run(argv: string[], input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}
const overSsh = (args: string[], input?: string) => run(sshd.cliCommand(args), input);

describe('the command line over --connect ssh://', { skip, concurrency: 2 }, () => {
  test('mcpx tools: every server’s, grouped', { timeout: 30_000 }, async () => {
    const r = await overSsh(['tools']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^hung\n {2}add\s/m);
    assert.match(r.stdout, /^up\n(?: {2}.*\n)* {2}echo\s+Echo$/m);
  });

  test('mcpx call and mcpx read', { timeout: 30_000 }, async () => {
    const c = await overSsh(['call', 'up', 'echo', '-', '--text'], '{"text":"over ssh"}');
    assert.equal(c.code, 0, c.stderr);
    assert.equal(c.stdout, 'over ssh\n');
    // What the far side said: which gateway it reached there (never its secret).
    assert.match(c.stderr, /^mcpx: serving stdio through http:\/\/127\.0\.0\.1:\d+\/mcp$/m);
    const r = await overSsh(['read', 'mcpx://up/fixture://doc', '--text']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'doc body\n');
  });

  test('mcpx exec - (the script from stdin)', { timeout: 30_000 }, async () => {
    const r = await overSsh(['exec', '-'], "return (await mcpx.call('up', 'echo', {text: 'far'})).content[0].text;");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '"far"\n');
  });

  test('--timeout holds over ssh: a call to a 2026-07-28 upstream that never answers', {
    timeout: 30_000,
  }, async () => {
    const t0 = Date.now();
    const r = await overSsh(['call', 'hung', 'echo', '{"text":"x"}', '--timeout', '500ms']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /upstream hung did not answer tools\/call within 500 ms \(the timeout the call asked for\)/);
    assert.ok(Date.now() - t0 < 15_000);
  });

  test('--profile reaches the far gateway’s profile: the far shim serves it', { timeout: 30_000 }, async () => {
    const r = await overSsh(['tools', '--profile', 'up-only']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^mcpx: serving stdio through http:\/\/127\.0\.0\.1:\d+\/mcp, profile up-only$/m);
    assert.match(r.stdout, /^up\n/m);
    assert.doesNotMatch(r.stdout, /^hung$/m);
    const c = await overSsh(['call', 'hung', 'add', '{"a":1,"b":2}', '--profile', 'up-only']);
    assert.equal(c.code, 2);
    assert.match(c.stderr, /no server named "hung"; configured: up/);
  });

  test('a host that cannot be reached: exit 2 naming it', { timeout: 60_000 }, async () => {
    const argv = sshd.cliCommand(['tools']);
    argv[argv.length - 1] = 'ssh://127.0.0.1:1';
    const r = await run(argv);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /cannot reach the gateway \(ssh:\/\/127\.0\.0\.1:1\)/);
    assert.match(r.stderr, /ssh: connect to host 127\.0\.0\.1 port 1: Connection refused/, 'ssh says why');
  });
});
