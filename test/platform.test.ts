// The platform module's decisions, for each system, with what they read injected (docs/platforms.md):
// places, environment names, paths and file URIs, signals, the launcher and how another program starts
// it, the browser command, Windows owner-only (icacls: what is run, what its answer means, what follows),
// kill semantics (process groups on Linux and macOS, the watchdog's taskkill on Windows) and the
// Seatbelt profile of three sandbox blocks. What runs for real on Windows is test/e2e/windows.test.ts.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { describe, test } from 'node:test';
import { sandboxOf } from '../src/config/sandbox';
import { grantArgs, judge, nextStep, parseIcacls, parseWhoami, protectDir } from '../src/platform/acl';
import { getEnv, platformFor, setEnv } from '../src/platform';
import { killGroup } from '../src/platform/posix';
import { killWatched, taskkillArgs, taskkillPath, watchdogLaunch } from '../src/platform/watched';
import { mountsOf } from '../src/upstream/sandbox/plan';
import { seatbeltProfile } from '../src/upstream/sandbox/seatbelt';
import { until } from './harness/wait';

const linux = platformFor('linux');
const darwin = platformFor('darwin');
const win32 = platformFor('win32');

describe('places', () => {
  test('Linux: the XDG places, their defaults under the home', () => {
    const p = linux.places({}, '/home/ann');
    assert.equal(p.stateDir, '/home/ann/.local/state/mcpx');
    assert.equal(p.configFile, '/home/ann/.config/mcpx/mcp.json');
    assert.equal(p.launcherDir, '/home/ann/.local/bin');
    const x = linux.places({ XDG_STATE_HOME: '/s', XDG_CONFIG_HOME: '/c' }, '/home/ann');
    assert.deepEqual(
      [x.stateDir, x.configFile, x.appData, x.localAppData],
      ['/s/mcpx', '/c/mcpx/mcp.json', '/c', '/s'],
    );
  });

  test('macOS: ~/Library/Application Support, the XDG places where XDG_* is set', () => {
    const p = darwin.places({}, '/Users/ann');
    assert.equal(p.stateDir, '/Users/ann/Library/Application Support/mcpx');
    assert.equal(p.configFile, '/Users/ann/Library/Application Support/mcpx/mcp.json');
    assert.equal(p.appData, '/Users/ann/Library/Application Support');
    const x = darwin.places({ XDG_STATE_HOME: '/s', XDG_CONFIG_HOME: '/c' }, '/Users/ann');
    assert.deepEqual([x.stateDir, x.configFile], ['/s/mcpx', '/c/mcpx/mcp.json']);
  });

  test('Windows: state under %LOCALAPPDATA%, config under %APPDATA% (names in any case), XDG_* honoured', () => {
    const env = { LocalAppData: 'C:\\Users\\Ann\\AppData\\Local', APPDATA: 'C:\\Users\\Ann\\AppData\\Roaming' };
    const p = win32.places(env, 'C:\\Users\\Ann');
    assert.equal(p.stateDir, 'C:\\Users\\Ann\\AppData\\Local\\mcpx');
    assert.equal(p.configFile, 'C:\\Users\\Ann\\AppData\\Roaming\\mcpx\\mcp.json');
    assert.equal(p.launcherDir, 'C:\\Users\\Ann\\AppData\\Local\\Programs\\mcpx');
    const bare = win32.places({}, 'C:\\Users\\Ann');
    assert.equal(bare.stateDir, 'C:\\Users\\Ann\\AppData\\Local\\mcpx', 'without the variables: under the home');
    assert.equal(bare.configFile, 'C:\\Users\\Ann\\AppData\\Roaming\\mcpx\\mcp.json');
    const x = win32.places({ ...env, XDG_STATE_HOME: 'D:\\s', XDG_CONFIG_HOME: 'D:\\c' }, 'C:\\Users\\Ann');
    assert.deepEqual([x.stateDir, x.configFile], ['D:\\s\\mcpx', 'D:\\c\\mcpx\\mcp.json']);
  });
});

describe('environment names', () => {
  test('Windows: one variable whatever its case; a later spelling replaces the earlier', () => {
    const env: NodeJS.ProcessEnv = { Path: 'C:\\a', TEMP: 't' };
    assert.equal(getEnv(env, 'PATH', true), 'C:\\a');
    setEnv(env, 'PATH', 'C:\\b', true);
    assert.deepEqual(env, { PATH: 'C:\\b', TEMP: 't' }, 'one PATH, not Path and PATH');
    setEnv(env, 'temp', undefined, true);
    assert.deepEqual(env, { PATH: 'C:\\b' });
    assert.ok(win32.envCaseless && win32.safeEnv.includes('SYSTEMROOT') && win32.safeEnv.includes('PATHEXT'));
  });

  test('Linux and macOS: names are exact', () => {
    const env: NodeJS.ProcessEnv = { Path: 'a' };
    assert.equal(getEnv(env, 'PATH', false), undefined);
    setEnv(env, 'PATH', 'b', false);
    assert.deepEqual(env, { Path: 'a', PATH: 'b' });
    assert.ok(!linux.envCaseless && !darwin.envCaseless && linux.safeEnv.includes('HOME'));
  });
});

describe('paths', () => {
  test('Windows: ~, %VAR% in any case, drive letters, backslashes and slashes, relative to the base', () => {
    const env = { UserProfile: 'C:\\Users\\Ann', TOOLS: 'D:\\tools' };
    const x = (p: string) => win32.expandPath(p, env, 'C:\\Users\\Ann', 'C:\\work');
    assert.equal(x('~\\servers\\a.cmd'), 'C:\\Users\\Ann\\servers\\a.cmd');
    assert.equal(x('~/servers/a.cmd'), 'C:\\Users\\Ann\\servers\\a.cmd');
    assert.equal(x('%userprofile%\\.env'), 'C:\\Users\\Ann\\.env');
    assert.equal(x('%TOOLS%/bin/s.exe'), 'D:\\tools\\bin\\s.exe');
    assert.equal(
      x('%NOT_SET%\\x'),
      'C:\\work\\%NOT_SET%\\x',
      'an unset variable stays as written, as cmd.exe leaves it',
    );
    assert.equal(x('d:/data/x'), 'd:\\data\\x');
    assert.equal(x('sub\\dir'), 'C:\\work\\sub\\dir');
  });

  test('Linux and macOS: ~ and relative paths; % is a character', () => {
    const x = (p: string) => linux.expandPath(p, { HOME: '/x' }, '/home/ann', '/work');
    assert.deepEqual(
      [x('~'), x('~/a'), x('b/c'), x('/abs'), x('%HOME%')],
      ['/home/ann', '/home/ann/a', '/work/b/c', '/abs', '/work/%HOME%'],
    );
  });

  test('file URIs as VS Code writes them: file:///c%3A/… on Windows, UNC as file://server/…', () => {
    assert.equal(win32.fileUri('C:\\Users\\Ann\\my proj'), 'file:///c%3A/Users/Ann/my%20proj');
    assert.equal(win32.fileUri('\\\\server\\share\\dir'), 'file://server/share/dir');
    assert.equal(linux.fileUri('/home/ann/my proj#1'), 'file:///home/ann/my%20proj%231');
    assert.ok(win32.pathCaseless && !linux.pathCaseless);
  });
});

describe('signals, the browser, the launcher', () => {
  test('Windows has no SIGHUP to reload with: the console close, Ctrl+C and Ctrl+Break stop', () => {
    assert.deepEqual(win32.signals.reload, []);
    for (const s of ['SIGINT', 'SIGBREAK', 'SIGHUP'] as const) assert.ok(win32.signals.stop.includes(s), s);
    assert.deepEqual(linux.signals, { reload: ['SIGHUP'], stop: ['SIGINT', 'SIGTERM'] });
    assert.deepEqual(darwin.signals, linux.signals);
  });

  test('a browser: no shell on Windows (a URL’s & would end a cmd.exe command)', () => {
    const url = 'https://as.example/authorize?a=1&b=%20';
    assert.deepEqual(win32.openUrl(url, {}), ['rundll32', 'url.dll,FileProtocolHandler', url]);
    assert.deepEqual(darwin.openUrl(url, {}), ['open', url]);
    assert.equal(linux.openUrl(url, {}), undefined, 'no display: the URL printed is the way');
    assert.deepEqual(linux.openUrl(url, { DISPLAY: ':0' }), ['xdg-open', url]);
  });

  test('Windows: mcpx.cmd passes every argument on, % doubled, CRLF; started through cmd.exe /d /c', () => {
    const l = win32.launcher('C:\\Program Files\\VS Code\\Code.exe', 'C:\\x\\100%\\cli.js', ['marker %A%']);
    assert.equal(l.name, 'mcpx.cmd');
    assert.equal(
      l.text,
      '@echo off\r\nrem marker %%A%%\r\nsetlocal\r\nset ELECTRON_RUN_AS_NODE=1\r\n"C:\\Program Files\\VS Code\\Code.exe" "C:\\x\\100%%\\cli.js" %*\r\n',
    );
    assert.deepEqual(win32.startable('C:\\Users\\A B\\mcpx.cmd', ['serve']), {
      command: 'cmd',
      args: ['/d', '/c', 'C:\\Users\\A B\\mcpx.cmd', 'serve'],
    });
    assert.deepEqual(win32.startable('node', ['cli.js']), { command: 'node', args: ['cli.js'] });
    assert.equal(win32.removeHint('C:\\a\\mcpx.cmd'), 'del "C:\\a\\mcpx.cmd"');
    const sh = linux.launcher("/opt/it's/node", '/x/cli.js', ['m']);
    assert.equal(sh.text, `#!/bin/sh\n# m\nELECTRON_RUN_AS_NODE=1 exec '/opt/it'\\''s/node' '/x/cli.js' "$@"\n`);
    assert.deepEqual(linux.startable('/home/a/.local/bin/mcpx', ['serve']), {
      command: '/home/a/.local/bin/mcpx',
      args: ['serve'],
    });
  });
});

describe('owner-only on Windows: icacls', () => {
  const user = { name: 'DESKTOP-AB12\\ann', sid: 'S-1-5-21-1004336348-1177238915-682003330-1001' };
  const dir = 'C:\\Users\\ann\\AppData\\Local\\mcpx';
  const inherited = [
    `${dir} NT AUTHORITY\\SYSTEM:(I)(OI)(CI)(F)`,
    '                               BUILTIN\\Administrators:(I)(OI)(CI)(F)',
    '                               DESKTOP-AB12\\ann:(I)(OI)(CI)(F)',
    '',
    'Successfully processed 1 files; Failed processing 0 files',
  ].join('\r\n');
  const mine = `${dir} desktop-ab12\\ANN:(OI)(CI)(F)\r\n\r\nSuccessfully processed 1 files; Failed processing 0 files\r\n`;

  test('whoami names the user and SID; the grant is by SID, inheritance cut, inherited inside', () => {
    assert.deepEqual(parseWhoami(`"desktop-ab12\\ann","${user.sid}"\r\n`), {
      name: 'desktop-ab12\\ann',
      sid: user.sid,
    });
    assert.equal(parseWhoami('ERROR: no'), undefined);
    // Wine's whoami names the user alone: granted by name.
    assert.deepEqual(parseWhoami('VM\\root\r\n'), { name: 'VM\\root' });
    assert.deepEqual(grantArgs(dir, { name: 'VM\\root' }), [dir, '/inheritance:r', '/grant:r', 'VM\\root:(OI)(CI)F']);
    assert.deepEqual(judge(parseIcacls(`${dir} vm\\ROOT:(OI)(CI)(F)`, dir), { name: 'VM\\root' }), {
      kind: 'owner-only',
    });
    assert.deepEqual(grantArgs(dir, user), [dir, '/inheritance:r', '/grant:r', `*${user.sid}:(OI)(CI)F`]);
  });

  test('the list read: a fresh folder is wider (SYSTEM, Administrators); after the grant, the owner alone', () => {
    assert.deepEqual(
      parseIcacls(inherited, dir).map((a) => a.principal),
      ['NT AUTHORITY\\SYSTEM', 'BUILTIN\\Administrators', 'DESKTOP-AB12\\ann'],
    );
    assert.deepEqual(judge(parseIcacls(inherited, dir), user), {
      kind: 'wider',
      others: ['NT AUTHORITY\\SYSTEM', 'BUILTIN\\Administrators'],
    });
    assert.deepEqual(judge(parseIcacls(mine, dir), user), { kind: 'owner-only' }, 'names compared whatever their case');
    assert.deepEqual(judge(parseIcacls(`${dir} *${user.sid}:(OI)(CI)(F)\r\n`, dir), user), { kind: 'owner-only' });
    assert.deepEqual(judge(parseIcacls(`${dir} Everyone:(DENY)(W)\r\n  ${user.name}:(F)\r\n`, dir), user), {
      kind: 'owner-only',
    });
    assert.deepEqual(judge(parseIcacls('', dir), user), { kind: 'unreadable' });
  });

  test('what follows: set once; still wider after setting is refused; unreadable after setting is said', () => {
    assert.equal(nextStep({ kind: 'owner-only' }, false), 'done');
    assert.equal(nextStep({ kind: 'wider', others: ['x'] }, false), 'set');
    assert.equal(nextStep({ kind: 'wider', others: ['x'] }, true), 'refuse');
    assert.equal(nextStep({ kind: 'unreadable' }, false), 'set');
    assert.equal(nextStep({ kind: 'unreadable' }, true), 'warn');
  });

  test('protectDir runs whoami, reads, grants and reads again; refuses a list that stays wide', () => {
    const tmp = `${require('node:os').tmpdir()}/mcpx-acl-${process.pid}`;
    const runs: string[][] = [];
    const answers = [inherited.replaceAll(dir, tmp), mine.replaceAll(dir, tmp)];
    protectDir(tmp, (c, a) => {
      runs.push([c, ...a]);
      if (c === 'whoami') return { status: 0, out: `"${user.name}","${user.sid}"` };
      return { status: 0, out: a.length === 1 ? answers.shift()! : '' };
    });
    assert.deepEqual(runs, [
      ['whoami', '/user', '/fo', 'csv', '/nh'],
      ['icacls', tmp],
      ['icacls', ...grantArgs(tmp, user)],
      ['icacls', tmp],
    ]);
    const wide = `${tmp}-wide`;
    assert.throws(
      () =>
        protectDir(wide, (c) =>
          c === 'whoami'
            ? { status: 0, out: `"${user.name}","${user.sid}"` }
            : { status: 0, out: inherited.replaceAll(dir, wide) },
        ),
      /cannot make .*-wide owner-only: its access list still grants NT AUTHORITY\\SYSTEM, BUILTIN\\Administrators/,
    );
    const warned: string[] = [];
    protectDir(
      `${tmp}-stub`,
      (c) => (c === 'whoami' ? { status: 0, out: `"${user.name}","${user.sid}"` } : { status: 0, out: '' }),
      (l) => warned.push(l),
    );
    assert.match(warned.join(''), /could not confirm that .*-stub is owner-only: icacls showed no access list/);
    for (const d of [tmp, wide, `${tmp}-stub`]) require('node:fs').rmSync(d, { recursive: true, force: true });
  });
});

/** A child as the kill functions see it: a pid, how it ended, and its 'exit'. */
function fakeChild(pid: number): ChildProcess & { exit(): void } {
  const c = new EventEmitter() as ChildProcess & { exit(): void };
  Object.assign(c, { pid, exitCode: null, signalCode: null, killed: false });
  c.kill = () => true;
  c.exit = () => {
    Object.assign(c, { exitCode: 0 });
    c.emit('exit', 0, null);
  };
  return c;
}

describe('ending a process and what it started', () => {
  test('Linux and macOS: TERM to the group, KILL after the grace, KILL again for what it left', async () => {
    const sent: string[] = [];
    const c = fakeChild(42);
    const done = killGroup(c, 30, (pid, s) => void sent.push(`${pid} ${s}`));
    await until(() => sent.length === 2, { what: 'KILL after the grace', every: 5 });
    c.exit();
    await done;
    assert.deepEqual(sent, ['-42 SIGTERM', '-42 SIGKILL', '-42 SIGKILL']);
    const gone = fakeChild(7);
    gone.exit();
    sent.length = 0;
    await killGroup(gone, 30, (pid, s) => void sent.push(`${pid} ${s}`));
    assert.deepEqual(sent, ['-7 SIGKILL'], 'an exited child: its leftovers only');
  });

  test('Windows: taskkill /T /F of the running watchdog, then TerminateProcess; an exited one is left alone', async () => {
    assert.deepEqual(taskkillArgs(42), ['/T', '/F', '/PID', '42']);
    assert.equal(taskkillPath({ SystemRoot: 'C:\\Windows' }), 'C:\\Windows\\System32\\taskkill.exe');
    const c = fakeChild(42);
    let killed = 0;
    c.kill = () => {
      killed++;
      c.exit();
      return true;
    };
    const ended: number[] = [];
    await killWatched(c, async (pid) => void ended.push(pid), 500);
    assert.deepEqual([ended, killed], [[42], 1]);
    // (its pid may name another process now: never signalled)
    await killWatched(c, async (pid) => void ended.push(pid), 500);
    assert.deepEqual(ended, [42]);
  });

  test('Windows: the watchdog runs on the gateway’s runtime; under Electron it takes its switch back out', () => {
    const spec = { command: 'npx', args: ['-y', 'srv'], env: { PATH: 'p' } };
    assert.deepEqual(watchdogLaunch(spec, { runtime: 'node.exe', watchdog: 'w.js', electron: false }), {
      command: 'node.exe',
      args: ['w.js', '--', 'npx', '-y', 'srv'],
      env: { PATH: 'p' },
    });
    const e = watchdogLaunch(spec, { runtime: 'Code.exe', watchdog: 'w.js', electron: true });
    assert.deepEqual(
      [e.args, e.env],
      [['w.js', '--electron', '--', 'npx', '-y', 'srv'], { PATH: 'p', ELECTRON_RUN_AS_NODE: '1' }],
    );
    const exec = { command: 'Code.exe', args: ['child.js'], env: { ELECTRON_RUN_AS_NODE: '1' } };
    assert.deepEqual(
      watchdogLaunch(exec, { runtime: 'Code.exe', watchdog: 'w.js', electron: true }).args,
      ['w.js', '--', 'Code.exe', 'child.js'],
      'a command that runs as Node itself keeps the switch',
    );
    assert.deepEqual(win32.withoutCoreDumps(exec), exec);
    assert.equal(linux.withoutCoreDumps(exec).command, '/bin/sh');
  });
});

describe('the sandbox mechanism of each system', () => {
  test('Windows has none and says why; Linux bubblewrap; macOS Seatbelt', () => {
    assert.equal(win32.sandbox.kind, 'none');
    assert.match(win32.sandbox.kind === 'none' ? win32.sandbox.why : '', /no sandbox on Windows/);
    assert.deepEqual([linux.sandbox.kind, darwin.sandbox.kind], ['bubblewrap', 'seatbelt']);
  });

  const plan = (block: unknown) =>
    mountsOf(sandboxOf(block as never, false), {
      roots: ['/Users/ann/proj'],
      own: ['/opt/homebrew/lib/node_modules'],
      base: '/Users/ann/proj',
      priv: '/private/var/folders/x/mcpx-sandbox-1',
      expand: (p, base) => darwin.expandPath(p, {}, '/Users/ann', base),
    });

  test('Seatbelt, `true`: denied by default; reads the system, the roots and its own; writes its private dir; no network', () => {
    const p = seatbeltProfile(plan(true), { loopbackPorts: [] });
    assert.equal(
      p,
      [
        '(version 1)',
        '(deny default)',
        '(allow process-exec process-fork)',
        '(allow signal (target same-sandbox))',
        '(allow sysctl-read)',
        '(allow ipc-posix-shm)',
        '(allow file-read-metadata)',
        '(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo") (global-name "com.apple.system.notification_center") (global-name "com.apple.system.logger") (global-name "com.apple.logd") (global-name "com.apple.trustd.agent") (global-name "com.apple.SecurityServer") (global-name "com.apple.CoreServices.coreservicesd") (global-name "com.apple.FSEvents"))',
        '(allow file-read* (subpath "/usr") (subpath "/bin") (subpath "/sbin") (subpath "/System") (subpath "/Library") (subpath "/opt") (subpath "/private/etc") (subpath "/private/var/db/timezone") (subpath "/dev") (subpath "/Users/ann/proj") (subpath "/opt/homebrew/lib/node_modules") (subpath "/private/var/folders/x/mcpx-sandbox-1"))',
        '(allow file-write* (subpath "/private/var/folders/x/mcpx-sandbox-1") (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/dtracehelper") (literal "/dev/stdout") (literal "/dev/stderr"))',
        '',
      ].join('\n'),
    );
    assert.doesNotMatch(p, /network/, 'no network rule: denied');
    assert.doesNotMatch(p, /"\/Users\/ann"\)/, 'not the home');
  });

  test('Seatbelt, read and write lists (~ expanded, a quote escaped), network "none"', () => {
    const p = seatbeltProfile(plan({ read: ['~/data', '/etc/x"y'], write: ['out'], network: 'none' }), {
      loopbackPorts: [],
    });
    assert.match(p, /\(allow file-read\* .*\(subpath "\/Users\/ann\/data"\) \(subpath "\/etc\/x\\"y"\)/);
    assert.match(
      p,
      /\(allow file-write\* \(subpath "\/private\/var\/folders\/x\/mcpx-sandbox-1"\) \(subpath "\/Users\/ann\/proj\/out"\) /,
    );
    assert.doesNotMatch(p, /network-outbound/);
  });

  test('Seatbelt, loopback ports and hosts: those ports and the gateway’s proxy on the loopback, nothing else', () => {
    const p = seatbeltProfile(plan({ network: { loopbackPorts: [5432], hosts: ['api.example.com'] } }), {
      loopbackPorts: [5432],
      proxyPort: 61000,
    });
    assert.match(
      p,
      /\(allow system-socket\)\n\(allow network-outbound \(remote ip "localhost:5432"\) \(remote ip "localhost:61000"\)\)\n$/,
    );
    assert.doesNotMatch(p, /api\.example\.com/, 'hosts are the proxy’s to allow, not the profile’s');
  });
});
