// Another local user (docs/security.md "The endpoint secret"): a throwaway account, made for this test
// and removed after it, reaches the gateway's port but not the person's secret, so it is refused.
// Needs root (useradd, runuser): CI runs as root; elsewhere the test says why it is skipped.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { repoRoot } from '../harness/gateway';

const root = process.getuid?.() === 0;
const haveTools =
  root && spawnSync('sh', ['-c', 'command -v useradd && command -v userdel && command -v runuser']).status === 0;
const skip = haveTools ? false : 'needs root with useradd and runuser (CI runs as root)';
const user = `mcpxother${process.pid}`;
const dir = mkdtempSync(join(tmpdir(), 'mcpx-user-'));
let daemon: ChildProcess | undefined;
let url = '';

/** Runs a script as the throwaway user; its stdout is the result. */
function asOther(script: string, ...args: string[]): string {
  return execFileSync('runuser', ['-u', user, '--', process.execPath, '-e', script, ...args], {
    encoding: 'utf8',
    cwd: '/',
  });
}

before(async () => {
  if (skip) return;
  execFileSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', user]);
  // The state directory as a person's would be: private to its owner.
  chmodSync(dir, 0o700);
  daemon = spawn(process.execPath, [join(repoRoot(), 'dist', 'cli.js'), 'daemon', '--port', '0'], {
    env: { ...process.env, XDG_STATE_HOME: dir, XDG_CONFIG_HOME: dir, MCPX_PORT: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  daemon.stderr!.resume();
  const line = await new Promise<string>((resolve) =>
    createInterface({ input: daemon!.stdout! }).once('line', resolve),
  );
  url = /listening on (http:\/\/\S+)/.exec(line)?.[1] ?? '';
  assert.match(url, /\/mcp\/[A-Za-z0-9_-]{43}$/, line);
});

after(async () => {
  if (daemon) {
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon!.once('exit', r));
  }
  if (!skip) spawnSync('userdel', [user]);
  rmSync(dir, { recursive: true, force: true });
});

test('a second local user reaches the port but is refused: no secret, and no way to read it', { skip }, () => {
  const bare = url.replace(/\/mcp\/.*$/, '/mcp');
  const post = `fetch(process.argv[1], { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'mcpx_servers', arguments: {} } }) })
    .then(async (r) => console.log(r.status, (await r.text()).slice(0, 300)), (e) => console.log('error', e.message));`;
  const [status, ...rest] = asOther(post, bare).trim().split(' ');
  assert.equal(status, '401', `the other user without the secret: ${rest.join(' ')}`);
  // The secret is the person's alone: the file is 0600 in a directory only they can enter.
  const file = join(dir, 'mcpx', 'endpoint-secret');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const read = asOther(
    "try { require('node:fs').readFileSync(process.argv[1]); console.log('read') } catch (e) { console.log(e.code) }",
    file,
  ).trim();
  assert.equal(read, 'EACCES', 'the other user cannot read the secret');
  // The person, with it, is served.
  const mine = execFileSync(process.execPath, ['-e', post, url], { encoding: 'utf8' }).trim();
  assert.match(mine, /^200 /, mine);
});
