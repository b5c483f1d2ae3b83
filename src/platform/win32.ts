// Windows: %LOCALAPPDATA% and %APPDATA%, names and paths whatever their case, an access list for
// owner-only (acl.ts), every process under a watchdog that ends its tree (watched.ts), no SIGHUP (the
// console's close is a stop), no sandbox mcpx can drive, the launcher as a .cmd file.
import { mkdirSync } from 'node:fs';
import { win32 as path } from 'node:path';
import { protectDir } from './acl';
import { getEnv } from './env';
import type { Platform } from './platform';
import { killWatched, spawnWatched } from './watched';

/** `%NAME%` from `env` (names whatever their case); one not set is left as written, as cmd.exe does. */
const expandVars = (p: string, env: NodeJS.ProcessEnv) =>
  p.replace(/%([^%\s]+)%/g, (whole, name: string) => getEnv(env, name, true) ?? whole);

/** A file URI as VS Code writes one: file:///c%3A/Users/… (the drive letter lower-case, its colon
 *  encoded), or file://server/share/… for a UNC path. */
function fileUri(p: string): string {
  const abs = path.resolve(p).replace(/\\/g, '/');
  const enc = (s: string) => s.split('/').map(encodeURIComponent).join('/');
  const unc = /^\/\/([^/]+)(\/.*)?$/.exec(abs);
  if (unc) return `file://${unc[1]!.toLowerCase()}${enc(unc[2] ?? '/')}`;
  const drive = /^([A-Za-z]):(.*)$/.exec(abs);
  if (drive) return `file:///${drive[1]!.toLowerCase()}%3A${enc(drive[2] || '/')}`;
  return `file://${enc(abs)}`;
}

export const win32: Platform = {
  os: 'win32',
  places(env, home) {
    const get = (n: string) => getEnv(env, n, true) || undefined;
    const appData = get('APPDATA') ?? path.join(home, 'AppData', 'Roaming');
    const localAppData = get('LOCALAPPDATA') ?? path.join(home, 'AppData', 'Local');
    const configHome = get('XDG_CONFIG_HOME') ?? appData;
    return {
      os: 'win32',
      home,
      appData,
      localAppData,
      configHome,
      stateDir: path.join(get('XDG_STATE_HOME') ?? localAppData, 'mcpx'),
      configFile: path.join(configHome, 'mcpx', 'mcp.json'),
      launcherDir: path.join(localAppData, 'Programs', 'mcpx'),
    };
  },
  envCaseless: true,
  pathCaseless: true,
  // The official SDK's Windows list, with what starting a .cmd and finding a command take (ComSpec, PATHEXT).
  safeEnv: [
    'APPDATA',
    'COMSPEC',
    'HOMEDRIVE',
    'HOMEPATH',
    'LOCALAPPDATA',
    'PATH',
    'PATHEXT',
    'PROCESSOR_ARCHITECTURE',
    'PROGRAMFILES',
    'SYSTEMDRIVE',
    'SYSTEMROOT',
    'TEMP',
    'TMP',
    'USERNAME',
    'USERPROFILE',
    'WINDIR',
    'TZ',
  ],
  // No SIGHUP to reload with: Node raises it when the console window closes, and Windows ends the process
  // seconds later. Ctrl+C (SIGINT), Ctrl+Break (SIGBREAK) and the close all stop the daemon cleanly.
  signals: { reload: [], stop: ['SIGINT', 'SIGBREAK', 'SIGHUP', 'SIGTERM'] },
  expandPath(p, env, home, base) {
    const q = /^~([\\/]|$)/.test(p) ? path.join(home, p.slice(1)) : p;
    return path.resolve(base, expandVars(q, env));
  },
  fileUri,
  ownerOnlyDir(dir) {
    mkdirSync(dir, { recursive: true });
    protectDir(dir);
  },
  // A file is owner-only through its folder's list, which it inherits.
  ownerOnlyFile: (file) => protectDir(path.dirname(file)),
  spawnGuarded: spawnWatched,
  killTree: (child) => killWatched(child),
  withoutCoreDumps: (spec) => spec,
  sandbox: {
    kind: 'none',
    why: 'mcpx has no sandbox on Windows (bubblewrap is Linux, Seatbelt macOS; Windows offers no equivalent it can drive without installing one)',
  },
  // No shell: a URL's & would end a cmd.exe command.
  openUrl: (url) => ['rundll32', 'url.dll,FileProtocolHandler', url],
  launcher(runtime, cli, comments) {
    // A Windows path holds no ", but may hold %, which cmd would expand.
    const q = (s: string) => `"${s.replace(/%/g, '%%')}"`;
    const text = [
      '@echo off',
      ...comments.map((c) => `rem ${c.replace(/%/g, '%%')}`),
      'setlocal',
      'set ELECTRON_RUN_AS_NODE=1',
      `${q(runtime)} ${q(cli)} %*`,
      '',
    ].join('\r\n');
    return { name: 'mcpx.cmd', text };
  },
  commandNames: ['mcpx.cmd', 'mcpx.bat', 'mcpx.exe'],
  // A batch file runs only through cmd.exe (Node and most hosts refuse to start one directly); /d skips
  // AutoRun, whose output would corrupt a stdio server's stream.
  startable: (command, args) =>
    /\.(cmd|bat)$/i.test(command)
      ? { command: 'cmd', args: ['/d', '/c', command, ...args] }
      : { command, args: [...args] },
  removeHint: (file) => `del "${file}"`,
  pathAdvice: 'Settings › System › About › Advanced system settings › Environment Variables',
};
