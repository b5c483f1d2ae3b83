// A real OpenSSH server on loopback for `mcpx serve --transport stdio --connect ssh://…` (as in
// test/shim/shim-ssh.test.ts): its own host key, authorized_keys and config, run as the current user; the far
// command a wrapper that runs this checkout's shim onto a given gateway. mcpx runs plain `ssh`, and ssh
// reads ~/.ssh/config from the passwd entry's home, never $HOME: so the client's config reaches it through
// an `ssh` first on PATH that adds `-F <config>`. scripts/ssh-test/setup.sh installs openssh (apt);
// without it, and not under CI, `sshSkip()` gives the reason to skip.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliJs, repoRoot } from './gateway';

const SSHD = '/usr/sbin/sshd';

/** Runs the setup script; a reason to skip when openssh cannot be had (never under CI: it fails there). */
export function sshSkip(): string | undefined {
  const r = spawnSync('bash', [join(repoRoot(), 'scripts', 'ssh-test', 'setup.sh')], { encoding: 'utf8' });
  if (r.status === 0 && existsSync(SSHD)) return undefined;
  const why = `openssh could not be installed (scripts/ssh-test/setup.sh exited ${r.status}): ${r.stderr.trim()}`;
  if (process.env.CI === 'true') throw new Error(why);
  return why;
}

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

export interface Sshd {
  port: number;
  /** argv (command first) of `mcpx serve --transport stdio --connect ssh://127.0.0.1:port`, its ssh the
   *  test's own (the client key, no agent), the far side running the shim onto `endpoint`. */
  shimCommand(): string[];
  /** argv of `mcpx ARGS… --connect ssh://127.0.0.1:port` the same way (`mcpx tools`, `call`, `read`, `exec`). */
  cliCommand(args: string[]): string[];
  stop(): Promise<void>;
}

/** An sshd on loopback whose sessions run the shim onto the gateway at `endpoint` (state under `state`). */
export async function startSshd(endpoint: string, state: string): Promise<Sshd> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-sshd-'));
  const key = (name: string) => {
    const file = join(dir, name);
    execFileSync('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `mcpx-test-${name}`, '-f', file]);
    return file;
  };
  key('host');
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${key('client')}.pub`));
  const realSsh = execFileSync('sh', ['-c', 'command -v ssh'], { encoding: 'utf8' }).trim();
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const clientConfig = join(dir, 'ssh_config');
  writeFileSync(
    clientConfig,
    [
      'Host 127.0.0.1',
      `  IdentityFile ${join(dir, 'client')}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${join(dir, 'known_hosts')}`,
      '  StrictHostKeyChecking accept-new',
      '  LogLevel ERROR',
      '',
    ].join('\n'),
  );
  writeFileSync(join(bin, 'ssh'), `#!/bin/sh\nexec ${realSsh} -F ${clientConfig} "$@"\n`);
  chmodSync(join(bin, 'ssh'), 0o755);
  // sshd gives the session a fresh environment, so everything by absolute path.
  const far = join(dir, 'far-mcpx');
  writeFileSync(
    far,
    [
      '#!/bin/sh',
      `export XDG_CONFIG_HOME='${state}' XDG_STATE_HOME='${state}'`,
      `exec '${process.execPath}' '${cliJs()}' "$@" --connect '${endpoint}'`,
      '',
    ].join('\n'),
  );
  chmodSync(far, 0o755);

  let sshd: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 0; !sshd; attempt++) {
    port = await freePort();
    const config = join(dir, 'sshd_config');
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
        'MaxStartups 64',
        `PidFile ${join(dir, 'sshd.pid')}`,
        '',
      ].join('\n'),
    );
    let log = '';
    const p = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    p.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    const listening = await new Promise<boolean>((resolve) => {
      p.once('exit', () => resolve(false));
      const check = () => (/Server listening on/.test(log) ? resolve(true) : setTimeout(check, 10));
      check();
    });
    if (listening) sshd = p;
    else if (attempt >= 2) throw new Error(`sshd did not start: ${log}`);
  }
  const running = sshd;
  const cliCommand = (args: string[]) => [
    '/usr/bin/env',
    '-u',
    'SSH_AUTH_SOCK',
    `PATH=${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    `MCPX_SHIM_SSH_COMMAND=${far}`,
    process.execPath,
    cliJs(),
    ...args,
    '--connect',
    `ssh://127.0.0.1:${port}`,
  ];
  return {
    port,
    shimCommand: () => cliCommand(['serve', '--transport', 'stdio']),
    cliCommand,
    stop: async () => {
      if (running.exitCode === null && running.signalCode === null) {
        const gone = new Promise((r) => running.once('exit', r));
        running.kill('SIGTERM');
        const t = setTimeout(() => running.kill('SIGKILL'), 3000);
        await gone;
        clearTimeout(t);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
