// `mcpx daemon` follows its config file (docs/gateway.md "Changing the configuration"): an edit on disk
// (an editor's save by rename), SIGHUP and `mcpx reload` each apply it in place — the same process, the
// same client session — and an invalid edit is refused, naming the problem, with the old servers kept.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import { cliJs } from '../harness/gateway';
import { fixtureCommand } from '../harness/upstreams';
import { CLIENT_INFO, HttpClient, type Json, StdioClient } from '../harness/wire';
import { until } from '../harness/wait';

const cli = cliJs();
const dir = mkdtempSync(join(tmpdir(), 'mcpx-reload-daemon-'));
const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, MCPX_PORT: '' };
const config = join(dir, 'conf', 'mcp.json');
let daemon: ChildProcess | undefined;

after(async () => {
  if (daemon && daemon.exitCode === null) {
    const exited = new Promise((r) => daemon!.once('exit', r));
    daemon.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Saved the way editors save: a temporary file renamed over the old one. */
function save(value: unknown): void {
  const tmp = `${config}.tmp`;
  writeFileSync(tmp, JSON.stringify(value));
  renameSync(tmp, config);
}

const text = (r: Json | undefined) => String(((r?.content as Json[]) ?? [])[0]?.text ?? '');

test('an edit on disk, SIGHUP and mcpx reload apply the config in place; an invalid edit keeps the old servers', async () => {
  mkdirSync(join(dir, 'conf'));
  const A = fixtureCommand(['--rev', '2025-11-25', '--name', 'a']);
  const B = fixtureCommand(['--rev', '2025-11-25', '--name', 'b']);
  writeFileSync(config, JSON.stringify({ servers: { a: A } }));
  const child = spawn(process.execPath, [cli, 'daemon', '--port', '0', '--config', config], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  daemon = child;
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
  const endpoint = /mcpx listening on (\S+)$/.exec(line)?.[1] ?? '';
  assert.ok(endpoint, line);
  const c = new HttpClient(endpoint, '2025-11-25');
  await c.initialize();
  const call = (server: string, t: string) =>
    c.request('tools/call', { name: 'mcpx_call', arguments: { server, tool: 'echo', arguments: { text: t } } });
  assert.equal(text((await call('a', 'one')).result), 'one');
  // A stdio client through the shim (`mcpx serve` onto this daemon).
  const shim = new StdioClient(
    process.execPath,
    [cli, 'serve', '--transport', 'stdio', '--connect', endpoint],
    '2025-11-25',
    {},
    env,
  );
  const init = await shim.request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: CLIENT_INFO,
  });
  assert.ok(init.result, JSON.stringify(init));
  shim.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const shimCall = async (server: string, t: string) =>
    text(
      (
        await shim.request('tools/call', {
          name: 'mcpx_call',
          arguments: { server, tool: 'echo', arguments: { text: t } },
        })
      ).result as Json,
    );
  assert.equal(await shimCall('a', 'via shim'), 'via shim');
  const shimChanges = () => shim.frames.filter((f) => f.method === 'notifications/prompts/list_changed').length;

  // An edit on disk, saved by rename.
  save({ servers: { a: A, b: B } });
  await until(() => stderr.includes('the config file changed: added b; removed none; changed none; kept a'), {
    what: 'the edit applied',
  });
  assert.equal(text((await call('b', 'two')).result), 'two', 'the same session reaches the added server');
  await until(() => shimChanges() === 1, { what: 'the stdio client told prompts/list_changed' });
  assert.equal(await shimCall('b', 'shim b'), 'shim b');

  // SIGHUP: read again; nothing changed.
  child.kill('SIGHUP');
  await until(() => stderr.includes('SIGHUP: added none; removed none; changed none; kept a, b'), {
    what: 'SIGHUP applied',
  });

  // An invalid edit: the problem named, the old servers kept.
  save({ servers: { a: A, b: B, c: { type: 'stdio' } } });
  await until(() => /the config file changed: the configuration .* was not applied/.test(stderr), {
    what: 'the invalid edit refused',
  });
  assert.match(stderr, /servers\.c/);
  assert.equal(text((await call('b', 'three')).result), 'three', 'b still runs');
  const refused = await run(['reload']);
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /^mcpx reload: servers\.c/m);
  assert.match(refused.stderr, /the configuration was not applied/);

  // A setting with a bad value is refused the same way, naming the setting.
  save({ servers: { a: A, b: B }, settings: { 'pool.callTimeout': 'soon' } });
  await until(() => /the config file changed: .*pool\.callTimeout/.test(stderr), { what: 'the bad setting refused' });
  // /v1/reload only with the endpoint secret, like all of /v1.
  const bare = endpoint.replace(/\/mcp\/[^/]+$/, '/v1/reload');
  assert.equal((await fetch(bare, { method: 'POST' })).status, 401);

  // Fixed, with b removed: the watcher applies it; `mcpx reload` says what it finds then.
  save({ servers: { a: A }, settings: { 'pool.callTimeout': '40s' } });
  await until(() => stderr.includes('the config file changed: added none; removed b; changed none; kept a'), {
    what: 'the fix applied',
  });
  const ok = await run(['reload']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, 'added none\nremoved none\nchanged none\nkept a\n');
  const gone = await call('b', 'four');
  assert.match(String(gone.error?.message), /no server named "b"/);

  assert.equal(text((await call('a', 'five')).result), 'five', 'the same session, all along');
  await until(() => shimChanges() === 2, { what: 'the stdio client told of the removal' });
  assert.equal(await shimCall('a', 'shim after'), 'shim after', 'the shim kept its session');
  shim.child.stdin.end();
  await shim.exited;
  assert.equal(child.exitCode, null, 'the same process, all along');
});
