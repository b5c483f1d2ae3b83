// Which gateway a stdio shim talks to (src/shim/resolve.ts), with real files and real processes: the
// editor window for the folder, the running daemon, or a daemon started in the background — one, even
// for two shims at once — that exits by itself after daemon.idleExit.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { resolveGateway } from '../../src/shim/resolve';
import { cliJs } from '../harness/gateway';
import { alive } from '../harness/process';
import { stays, until } from '../harness/wait';

const cli = cliJs();
const root = mkdtempSync(join(tmpdir(), 'mcpx-resolve-'));
/** Daemons this file started, killed at the end if still alive. */
const started = new Set<number>();
after(() => {
  for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  assert.ok(r.pid && !alive(r.pid));
  return r.pid;
}

/** A fresh state and config home (no user's config leaks in). */
function home(name: string, extra: NodeJS.ProcessEnv = {}) {
  const dir = join(root, name);
  mkdirSync(join(dir, 'mcpx'), { recursive: true });
  const env = { ...process.env, XDG_STATE_HOME: dir, XDG_CONFIG_HOME: dir, MCPX_PORT: '', ...extra };
  const logs: string[] = [];
  const resolve = (cwd: string, connect = 'auto') =>
    resolveGateway({ connect, cwd, env, cli, log: (l) => logs.push(l) });
  return { dir, state: join(dir, 'mcpx'), env, logs, resolve };
}

describe('resolveGateway', () => {
  test('the editor window whose folder holds cwd wins, the longest folder first; a dead pid is passed over', async () => {
    const h = home('windows');
    const proj = join(root, 'proj');
    const sub = join(proj, 'sub');
    const deeper = join(sub, 'deeper');
    writeFileSync(
      join(h.state, 'endpoints.json'),
      JSON.stringify({
        [`${join(root, 'other')},${proj}`]: { url: 'http://127.0.0.1:1/mcp/outer', pid: process.pid, at: '' },
        [sub]: { url: 'http://127.0.0.1:2/mcp/inner', pid: process.pid, at: '' },
        [deeper]: { url: 'http://127.0.0.1:3/mcp/dead', pid: deadPid(), at: '' },
      }),
    );
    writeFileSync(
      join(h.state, 'daemon.json'),
      JSON.stringify({ url: 'http://127.0.0.1:4/mcp/daemon', pid: process.pid, at: '' }),
    );
    assert.deepEqual(await h.resolve(join(deeper, 'x')), {
      endpoint: 'http://127.0.0.1:2/mcp/inner',
      via: `the editor window for ${sub}`,
    });
    assert.deepEqual(await h.resolve(join(proj, 'lib')), {
      endpoint: 'http://127.0.0.1:1/mcp/outer',
      via: `the editor window for ${proj}`,
    });
    assert.equal((await h.resolve(proj)).endpoint, 'http://127.0.0.1:1/mcp/outer');
    // A sibling whose name starts like the folder is not in it: the daemon, then.
    assert.deepEqual(await h.resolve(`${proj}-two`), {
      endpoint: 'http://127.0.0.1:4/mcp/daemon',
      via: `the running daemon (pid ${process.pid})`,
    });
  });

  test('--connect URL: a bare /mcp gets the install secret on loopback only; ssh is not resolved here', async () => {
    const h = home('urls');
    const secret = 'A'.repeat(43);
    writeFileSync(join(h.state, 'endpoint-secret'), `${secret}\n`);
    assert.deepEqual(await h.resolve(root, 'http://127.0.0.1:9/mcp'), {
      endpoint: `http://127.0.0.1:9/mcp/${secret}`,
      via: 'http://127.0.0.1:9/mcp',
    });
    const own = await h.resolve(root, 'http://localhost:9/mcp/mine');
    assert.deepEqual(own, { endpoint: 'http://localhost:9/mcp/mine', via: 'http://localhost:9/mcp' });
    assert.equal((await h.resolve(root, 'https://example.com/mcp')).endpoint, 'https://example.com/mcp');
    await assert.rejects(h.resolve(root, 'ssh://host'), /handled by mcpx serve/);
    await assert.rejects(h.resolve(root, 'ftp://x'), /expected auto/);
  });

  test('no gateway: one daemon starts in the background for two shims at once, and exits when idle', async () => {
    const h = home('start', { MCPX_SHIM_DAEMON_IDLE_EXIT: '3s' });
    // A daemon.json naming a process that is gone is passed over.
    writeFileSync(
      join(h.state, 'daemon.json'),
      JSON.stringify({ url: 'http://127.0.0.1:1/mcp/gone', pid: deadPid(), at: '' }),
    );
    // So is a lock left by a shim that died while starting one.
    writeFileSync(join(h.state, 'daemon.lock'), String(deadPid()));
    const t0 = Date.now();
    const [a, b] = await Promise.all([h.resolve(root), h.resolve(root)]);
    assert.ok(Date.now() - t0 < 8_000, 'the dead shim’s lock was not waited out');
    const pidOf = (via: string) => Number(/\(pid (\d+)\)/.exec(via)?.[1]);
    const pid = pidOf(a.via);
    started.add(pid);
    assert.ok(alive(pid));
    assert.equal(pidOf(b.via), pid, 'one daemon for both');
    assert.equal(a.endpoint, b.endpoint);
    assert.deepEqual(
      [a.via, b.via].sort(),
      [`a daemon started in the background (pid ${pid})`, `the running daemon (pid ${pid})`].sort(),
    );
    assert.match(a.endpoint, /^http:\/\/127\.0\.0\.1:\d+\/mcp\/[A-Za-z0-9_-]{43}$/);
    assert.equal(h.logs.length, 1, 'one start announced');
    assert.ok(!existsSync(join(h.state, 'daemon.lock')), 'the lock is gone');
    // It serves, and /health answers without the secret.
    const health = await fetch(new URL('/health', a.endpoint));
    assert.equal(health.status, 200);
    assert.equal(((await health.json()) as { name: string }).name, 'mcpx');
    // A third shim finds it running.
    assert.equal((await h.resolve(root)).via, `the running daemon (pid ${pid})`);
    // daemon.idleExit (from shim.daemonIdleExit): it exits by itself and takes daemon.json with it.
    await until(() => !alive(pid), { what: 'the idle daemon to exit' });
    assert.ok(!existsSync(join(h.state, 'daemon.json')));
  });

  test('daemon.idleExit: an open stream holds the daemon; closed, it exits', async () => {
    const h = home('held');
    const child = spawn(process.execPath, [cli, 'daemon', '--port', '0', '--set', 'daemon.idleExit=1s'], {
      env: h.env,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    started.add(child.pid!);
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    const line = await new Promise<string>((r) => child.stdout!.once('data', (d) => r(String(d))));
    const endpoint = /mcpx listening on (\S+)/.exec(line)![1]!;
    const secret = endpoint.slice(endpoint.lastIndexOf('/') + 1);
    const stream = new AbortController();
    const res = await fetch(new URL('/v1/events', endpoint), {
      headers: { Authorization: `Bearer ${secret}` },
      signal: stream.signal,
    });
    assert.equal(res.status, 200);
    await stays(() => alive(child.pid!), { for: 2000, what: 'the daemon held by the open stream' });
    assert.ok(alive(child.pid!), 'held by the open stream');
    stream.abort();
    assert.equal(await exited, 0);
    assert.ok(!existsSync(join(h.state, 'daemon.json')));
  });

  test('two processes at once (mcpx tools, auto): one daemon between them', async () => {
    // Long enough that the daemon outlives both processes on a loaded machine (its daemon.json is read
    // after they end), short enough to watch it exit.
    const h = home('processes', { MCPX_SHIM_DAEMON_IDLE_EXIT: '8s' });
    const tools = () =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const c = spawn(process.execPath, [cli, 'tools'], {
          env: h.env,
          cwd: root,
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        c.stderr.on('data', (d) => (stderr += d));
        c.on('close', (code) => resolve({ code, stderr }));
      });
    const runs = await Promise.all([tools(), tools()]);
    const pid = Number(JSON.parse(readFileSync(join(h.state, 'daemon.json'), 'utf8')).pid);
    started.add(pid);
    assert.deepEqual(
      runs.map((r) => r.code),
      [0, 0],
      runs.map((r) => r.stderr).join('\n'),
    );
    assert.equal(runs.filter((r) => /starting a daemon/.test(r.stderr)).length, 1, 'one of them started it');
    await until(() => !alive(pid), { what: 'the idle daemon to exit', timeout: 30_000 });
  });
});
