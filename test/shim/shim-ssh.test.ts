// `mcpx serve --transport stdio --connect ssh://host:port` through a real OpenSSH: an sshd of the test's
// own on loopback (its own host key, authorized_keys and config, run as the current user), the far
// command a wrapper that runs this checkout's mcpx shim onto a headless daemon. mcpx's strict stdio
// client drives the local process; every frame it receives is validated against 2025-11-25. Closing
// stdin ends the ssh session (and sshd's child for it); a key the server does not know fails at once.
//
// mcpx runs plain `ssh`, and ssh reads ~/.ssh/config from the passwd entry's home, never $HOME: so the
// client's config reaches it through an `ssh` first on PATH that adds `-F <config>`.
// scripts/ssh-test/setup.sh installs openssh (apt); without it, and not under CI, the suite is skipped.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { cliJs, repoRoot } from '../harness/gateway';
import { fixtureCommand } from '../harness/upstreams';
import { type Json, StdioClient } from '../harness/wire';
import { until } from '../harness/wait';

const SSHD = '/usr/sbin/sshd';
const cli = cliJs;
const textOf = (r: unknown) =>
  (((r as { content?: unknown }).content as Array<{ text?: string }> | undefined) ?? [])
    .map((b) => b.text ?? '')
    .join('');

/** Runs the setup script; a reason to skip when openssh cannot be had (never under CI: it fails there). */
function setUp(): string | undefined {
  const r = spawnSync('bash', [join(repoRoot(), 'scripts', 'ssh-test', 'setup.sh')], { encoding: 'utf8' });
  process.stderr.write(r.stdout + r.stderr);
  if (r.status === 0 && existsSync(SSHD)) return undefined;
  const why = `openssh could not be installed (scripts/ssh-test/setup.sh exited ${r.status}): ${r.stderr.trim()}`;
  if (process.env.CI === 'true') throw new Error(why);
  return why;
}
const skip = setUp();

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The pids whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((r) => child.once('exit', () => r()));
}

describe('the stdio shim over ssh (a real sshd on loopback)', { skip }, () => {
  let dir: string;
  let sshd: ChildProcess;
  let sshdLog = '';
  let port: number;
  let daemon: ChildProcess;
  let endpoint: string;
  let realSsh: string;

  const key = (name: string) => {
    execFileSync('/usr/bin/ssh-keygen', [
      '-q',
      '-t',
      'ed25519',
      '-N',
      '',
      '-C',
      `mcpx-test-${name}`,
      '-f',
      join(dir, name),
    ]);
    return join(dir, name);
  };

  /** A directory holding an `ssh` that runs the real one with a config naming `identity`. */
  const sshWith = (name: string, identity: string) => {
    const bin = join(dir, `bin-${name}`);
    mkdirSync(bin);
    const config = join(dir, `ssh_config-${name}`);
    writeFileSync(
      config,
      [
        'Host 127.0.0.1',
        `  IdentityFile ${identity}`,
        '  IdentitiesOnly yes',
        `  UserKnownHostsFile ${join(dir, 'known_hosts')}`,
        '  StrictHostKeyChecking accept-new',
        '  LogLevel ERROR',
        '',
      ].join('\n'),
    );
    writeFileSync(join(bin, 'ssh'), `#!/bin/sh\nexec ${realSsh} -F ${config} "$@"\n`);
    chmodSync(join(bin, 'ssh'), 0o755);
    return bin;
  };

  async function startSshd(): Promise<void> {
    const config = join(dir, 'sshd_config');
    for (let attempt = 0; ; attempt++) {
      port = await freePort();
      writeFileSync(
        config,
        [
          'ListenAddress 127.0.0.1',
          `Port ${port}`,
          `HostKey ${join(dir, 'host')}`,
          `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
          'PasswordAuthentication no',
          'KbdInteractiveAuthentication no',
          'PubkeyAuthentication yes',
          'UsePAM no',
          'StrictModes no',
          `PidFile ${join(dir, 'sshd.pid')}`,
          '',
        ].join('\n'),
      );
      sshdLog = '';
      sshd = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
      sshd.stderr!.on('data', (d: Buffer) => (sshdLog += d.toString()));
      const listening = await new Promise<boolean>((resolve) => {
        sshd.once('exit', () => resolve(false));
        const check = () => (/Server listening on/.test(sshdLog) ? resolve(true) : setTimeout(check, 10));
        check();
      });
      if (listening) return;
      if (attempt >= 2) assert.fail(`sshd did not start: ${sshdLog}`);
    }
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpx-ssh-'));
    realSsh = execFileSync('sh', ['-c', 'command -v ssh'], { encoding: 'utf8' }).trim();
    key('host');
    writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${key('client')}.pub`));
    key('stranger');
    await startSshd();

    const state = join(dir, 'state');
    mkdirSync(state);
    const env = { ...process.env, XDG_CONFIG_HOME: state, XDG_STATE_HOME: state, MCPX_PORT: '' };
    const config = join(dir, 'mcp.json');
    writeFileSync(config, JSON.stringify({ servers: { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) } }));
    daemon = spawn(process.execPath, [cli(), 'daemon', '--port', '0', '--config', config], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = await new Promise<string>((r) => createInterface({ input: daemon.stdout! }).once('line', r));
    endpoint = /mcpx listening on (\S+)/.exec(line)![1]!;

    // The far command: sshd gives the session a fresh environment, so everything by absolute path. It
    // is given `serve --transport stdio` by the local mcpx and runs exactly that, onto the daemon.
    const far = join(dir, 'far-mcpx');
    writeFileSync(
      far,
      [
        '#!/bin/sh',
        `export XDG_CONFIG_HOME='${state}' XDG_STATE_HOME='${state}'`,
        `exec '${process.execPath}' '${cli()}' "$@" --connect '${endpoint}'`,
        '',
      ].join('\n'),
    );
    chmodSync(far, 0o755);
  });

  after(async () => {
    for (const p of [sshd, daemon]) {
      if (!p) continue;
      p.kill('SIGTERM');
      const t = setTimeout(() => p.kill('SIGKILL'), 3000);
      await exited(p);
      clearTimeout(t);
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The local `mcpx serve --connect ssh://127.0.0.1:port`, its `ssh` the one in `bin`, no agent. */
  const client = (bin: string) =>
    new StdioClient(
      '/usr/bin/env',
      [
        '-u',
        'SSH_AUTH_SOCK',
        `PATH=${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        `MCPX_SHIM_SSH_COMMAND=${join(dir, 'far-mcpx')}`,
        process.execPath,
        cli(),
        'serve',
        '--transport',
        'stdio',
        '--connect',
        `ssh://127.0.0.1:${port}`,
      ],
      '2025-11-25',
    );

  test('initialize, tools/list and a call through ssh; closing stdin ends the session and exits 0', async () => {
    const c = client(sshWith('good', join(dir, 'client')));
    try {
      const init = (await c.initialize()).result as Json;
      assert.equal(init.protocolVersion, '2025-11-25');
      assert.equal((init.serverInfo as Json).name, 'mcpx');
      const tools = (await c.request('tools/list')).result as Json;
      assert.ok((tools.tools as Json[]).some((t) => t.name === 'mcpx_call'));
      const r = await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'echo', arguments: { text: 'over ssh' } },
      });
      assert.equal(textOf(r.result), 'over ssh');
      assert.deepEqual(c.errors, []);
      assert.match(c.stderr, new RegExp(`serving stdio through ssh://127\\.0\\.0\\.1:${port}\\b`));
      assert.equal(childrenOf(sshd.pid!).length, 1, "sshd's child for the session");
    } catch (e) {
      await c.close();
      throw new Error(`${(e as Error).message}\n--- mcpx stderr:\n${c.stderr}\n--- sshd:\n${sshdLog}`);
    }
    const t0 = Date.now();
    assert.equal(await c.close(), 0, `exit code; stderr:\n${c.stderr}`);
    assert.ok(Date.now() - t0 < 3000, 'exited on its own, not killed');
    await until(() => childrenOf(sshd.pid!).length === 0, { what: "sshd's child for the session to go" });
    assert.equal(sshd.exitCode, null, 'sshd itself still runs');
  });

  test('a key the server does not know: ssh says so on stderr and mcpx exits non-zero at once', async () => {
    const c = client(sshWith('stranger', join(dir, 'stranger')));
    const t0 = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      c.exited,
      new Promise<'hung'>((r) => {
        timer = setTimeout(() => r('hung'), 10_000);
      }),
    ]);
    clearTimeout(timer);
    if (code === 'hung') await c.close();
    assert.notEqual(code, 'hung', `still running after 10 s; stderr:\n${c.stderr}`);
    assert.ok(code !== 0 && code !== null, `exit code ${code}`);
    assert.equal(code, 255, "ssh's own exit code passed on");
    assert.match(c.stderr, /Permission denied \(publickey\)/);
    assert.ok(Date.now() - t0 < 10_000);
    await until(() => childrenOf(sshd.pid!).length === 0, { what: 'no session left at sshd' });
  });
});
