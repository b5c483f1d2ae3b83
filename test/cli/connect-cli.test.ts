// `mcpx connect` as a person runs it (dist/cli.js in a temporary home): --list and --json, a refusal's exit
// status with the other clients connected, and the entry it writes started as the client would start it —
// no shell, from another directory — answering `initialize` through a daemon the shim starts. Each
// client's file on Linux, macOS and Windows, and the shim command per OS, from injected places.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CLIENTS } from '../../src/connect/clients/index';
import type { Places } from '../../src/connect/places';
import { shimCommand } from '../../src/connect/shim';
import { cliJs } from '../harness/gateway';
import { StdioClient } from '../harness/wire';
import { until } from '../harness/wait';

const cli = cliJs();
const home = mkdtempSync(join(tmpdir(), 'mcpx-connect-cli-'));
const state = join(home, 'state');
const env = {
  ...process.env,
  HOME: home,
  USERPROFILE: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_STATE_HOME: state,
  MCPX_INSTALL_DIR: join(home, 'bin'),
  MCPX_PORT: '',
};
/** The daemon the shim started: its pid from <state>/daemon.json. */
const daemonPid = (): number | undefined => {
  const file = join(state, 'mcpx', 'daemon.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { pid: number }).pid : undefined;
};
after(async () => {
  const pid = daemonPid();
  if (pid !== undefined) {
    process.kill(pid, 'SIGTERM');
    await until(() => !isAlive(pid), { what: 'the daemon gone', timeout: 5000, every: 50 }).catch(() => undefined);
  }
  rmSync(home, { recursive: true, force: true });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { env }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('connect --list --json: every client, found or not, connected or not, its servers', async () => {
  mkdirSync(join(home, '.cursor'), { recursive: true });
  writeFileSync(join(home, '.cursor', 'mcp.json'), '{ "mcpServers": { "a": { "command": "x" } } }\n');
  const r = await run(['connect', '--list', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const rows = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
  assert.deepEqual(
    rows.map((x) => x.id),
    CLIENTS.map((c) => c.id),
  );
  const cursor = rows.find((x) => x.id === 'cursor')!;
  assert.deepEqual([cursor.present, cursor.connected, cursor.servers], [true, false, 1]);
  assert.equal(cursor.file, join(home, '.cursor', 'mcp.json'));
  assert.equal(rows.find((x) => x.id === 'windsurf')!.present, false);
  const text = await run(['connect', '--list']);
  assert.match(text.stdout, /^CLIENT\s+FOUND\s+CONNECTED\s+SERVERS\s+FILE$/m);
  assert.match(text.stdout, /^cursor\s+yes\s+no\s+1\s/m);
});

test('a malformed file: that client refused (exit 1, named, untouched), the others connected', async () => {
  mkdirSync(join(home, '.gemini'), { recursive: true });
  const bad = join(home, '.gemini', 'settings.json');
  writeFileSync(bad, '{ "mcpServers": ');
  const r = await run(['connect', 'gemini', 'cursor']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, new RegExp(`Gemini CLI: refused, file untouched: ${bad.replace(/[.]/g, '\\.')}: .+`));
  assert.match(r.stdout, /Cursor: connected/);
  assert.equal(readFileSync(bad, 'utf8'), '{ "mcpServers": ');
  const list = await run(['connect', '--list']);
  assert.match(list.stdout, new RegExp(`cursor: backup ${join(state, 'mcpx', 'connect', 'cursor.backup')}`));
  rmSync(bad);
});

test('usage: an unknown client, no client, --all with names', async () => {
  assert.match((await run(['connect', 'nope'])).stderr, /unknown client "nope": one of claude-code, /);
  assert.match((await run(['connect'])).stderr, /which clients\? \(or --all\)/);
  assert.match((await run(['disconnect', '--all', 'cursor'])).stderr, /name clients or --all, not both/);
  assert.match((await run(['disconnect', '--import'])).stderr, /--import: only mcpx connect takes it/);
});

test('the entry written, started without a shell from another directory, answers initialize through the gateway', async () => {
  const r = await run(['connect', 'cursor', '--dry-run']);
  assert.match(r.stdout, /already connected, nothing to change/);
  const entry = (
    JSON.parse(readFileSync(join(home, '.cursor', 'mcp.json'), 'utf8')) as {
      mcpServers: { mcpx: { command: string; args: string[]; env?: Record<string, string> } };
    }
  ).mcpServers.mcpx;
  assert.equal(entry.command, process.execPath);
  assert.deepEqual(entry.args, [cli, 'serve', '--transport', 'stdio']);
  const elsewhere = mkdtempSync(join(tmpdir(), 'mcpx-elsewhere-'));
  const cwd = process.cwd();
  process.chdir(elsewhere);
  const c = new StdioClient(entry.command, entry.args, '2025-11-25', {}, { ...env, ...entry.env });
  process.chdir(cwd);
  try {
    const init = await c.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'connect-test', version: '1' },
    });
    assert.equal((init.result as { serverInfo: { name: string } }).serverInfo.name, 'mcpx');
    const pid = daemonPid();
    assert.ok(pid !== undefined && isAlive(pid), 'the shim started a daemon');
  } finally {
    c.child.stdin.end();
    await c.exited;
    rmSync(elsewhere, { recursive: true, force: true });
  }
});

const places = (os: Places['os']): Places =>
  os === 'win32'
    ? { os, home: 'C:\\Users\\me', env: {}, appData: 'C:\\Users\\me\\AppData\\Roaming' }
    : { os, home: os === 'darwin' ? '/Users/me' : '/home/me', env: {} };

test("each client's file on Linux, macOS and Windows, from its documentation", () => {
  const want: Record<string, Record<Places['os'], string>> = {
    'claude-code': {
      linux: '/home/me/.claude.json',
      darwin: '/Users/me/.claude.json',
      win32: 'C:\\Users\\me\\.claude.json',
    },
    'claude-desktop': {
      linux: '/home/me/.config/Claude/claude_desktop_config.json',
      darwin: '/Users/me/Library/Application Support/Claude/claude_desktop_config.json',
      win32: 'C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
    },
    cursor: {
      linux: '/home/me/.cursor/mcp.json',
      darwin: '/Users/me/.cursor/mcp.json',
      win32: 'C:\\Users\\me\\.cursor\\mcp.json',
    },
    windsurf: {
      linux: '/home/me/.codeium/windsurf/mcp_config.json',
      darwin: '/Users/me/.codeium/windsurf/mcp_config.json',
      win32: 'C:\\Users\\me\\.codeium\\windsurf\\mcp_config.json',
    },
    gemini: {
      linux: '/home/me/.gemini/settings.json',
      darwin: '/Users/me/.gemini/settings.json',
      win32: 'C:\\Users\\me\\.gemini\\settings.json',
    },
    codex: {
      linux: '/home/me/.codex/config.toml',
      darwin: '/Users/me/.codex/config.toml',
      win32: 'C:\\Users\\me\\.codex\\config.toml',
    },
    copilot: {
      linux: '/home/me/.copilot/mcp-config.json',
      darwin: '/Users/me/.copilot/mcp-config.json',
      win32: 'C:\\Users\\me\\.copilot\\mcp-config.json',
    },
    zed: {
      linux: '/home/me/.config/zed/settings.json',
      darwin: '/Users/me/.config/zed/settings.json',
      win32: 'C:\\Users\\me\\AppData\\Roaming\\Zed\\settings.json',
    },
    opencode: {
      linux: '/home/me/.config/opencode/opencode.json',
      darwin: '/Users/me/.config/opencode/opencode.json',
      win32: 'C:\\Users\\me\\.config\\opencode\\opencode.json',
    },
    cline: {
      linux: '/home/me/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
      darwin:
        '/Users/me/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
      win32:
        'C:\\Users\\me\\AppData\\Roaming\\Code\\User\\globalStorage\\saoudrizwan.claude-dev\\settings\\cline_mcp_settings.json',
    },
  };
  for (const c of CLIENTS)
    for (const os of ['linux', 'darwin', 'win32'] as const)
      assert.equal(
        c.file(places(os), () => false),
        want[c.id]![os],
        `${c.id} on ${os}`,
      );
});

test('the variables that move a client file', () => {
  const p = (env: Record<string, string>): Places => ({ os: 'linux', home: '/home/me', env });
  const file = (id: string, env: Record<string, string>) => CLIENTS.find((c) => c.id === id)!.file(p(env), () => false);
  assert.equal(file('claude-code', { CLAUDE_CONFIG_DIR: '/cfg/claude' }), '/cfg/claude/.claude.json');
  assert.equal(file('codex', { CODEX_HOME: '/cfg/codex' }), '/cfg/codex/config.toml');
  assert.equal(file('copilot', { COPILOT_HOME: '/cfg/copilot' }), '/cfg/copilot/mcp-config.json');
  assert.equal(file('zed', { XDG_CONFIG_HOME: '/xdg' }), '/xdg/zed/settings.json');
  assert.equal(file('opencode', { XDG_CONFIG_HOME: '/xdg' }), '/xdg/opencode/opencode.json');
  const jsonc = CLIENTS.find((c) => c.id === 'opencode')!.file(p({}), (f) => f.endsWith('.jsonc'));
  assert.equal(jsonc, '/home/me/.config/opencode/opencode.jsonc', 'opencode.jsonc when only that one exists');
});

test('the shim command: the launcher by its path where it runs without a shell, else the runtime and the script', () => {
  const facts = {
    launcher: '/home/me/.local/bin/mcpx',
    runtime: '/usr/bin/node',
    script: '/x/dist/cli.js',
    electron: false,
  };
  assert.deepEqual(shimCommand('linux', facts, 'work'), {
    command: '/home/me/.local/bin/mcpx',
    args: ['serve', '--transport', 'stdio', '--profile', 'work'],
  });
  assert.deepEqual(shimCommand('darwin', { ...facts, launcher: undefined }), {
    command: '/usr/bin/node',
    args: ['/x/dist/cli.js', 'serve', '--transport', 'stdio'],
  });
  // Windows: the .cmd launcher needs cmd.exe, so VS Code's runtime runs the script as Node.
  const win = {
    launcher: 'C:\\mcpx\\mcpx.cmd',
    runtime: 'C:\\Code\\Code.exe',
    script: 'C:\\ext\\dist\\cli.js',
    electron: true,
  };
  assert.deepEqual(shimCommand('win32', win), {
    command: 'C:\\Code\\Code.exe',
    args: ['C:\\ext\\dist\\cli.js', 'serve', '--transport', 'stdio'],
    env: { ELECTRON_RUN_AS_NODE: '1' },
  });
  assert.ok(!existsSync(join(home, 'bin', 'mcpx')));
});
