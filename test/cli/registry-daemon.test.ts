// Installing from an MCP Registry into a running daemon (docs/registry.md): the daemon started with no
// config file says where servers go and picks up the file `mcpx install` creates; the reference
// "everything" server installed from npm at an exact version, sandboxed, its tools listed and called
// through mcpx, its secret input in no file under the config directory yet in the server's environment;
// an mcpb bundle installed, found outdated and updated — the server.json diff shown, the changed tool
// held by the pins.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { RUGGED, ruggedBundle, ruggedServer } from '../fixtures/registry/bundle';
import { EVERYTHING, EVERYTHING_VERSION, held, registryEntries } from '../fixtures/registry/entries';
import { type LocalRegistry, startRegistry } from '../fixtures/registry/server';
import { cliJs } from '../harness/gateway';
import { until } from '../harness/wait';

const cli = cliJs();
const dir = mkdtempSync(join(tmpdir(), 'mcpx-registry-daemon-'));
const configHome = join(dir, 'config');
const config = join(configHome, 'mcpx', 'mcp.json');
const state = join(dir, 'state', 'mcpx');
const TOKEN = 'tok-9f2c1e7d-only-in-the-store';
let reg: LocalRegistry;
let env: NodeJS.ProcessEnv;
let daemon: ChildProcess | undefined;
let endpoint = '';
let stdout = '';
let stderr = '';

before(async () => {
  reg = await startRegistry([]);
  reg.entries.push(...registryEntries(reg.url));
  env = {
    ...process.env,
    XDG_CONFIG_HOME: configHome,
    XDG_STATE_HOME: join(dir, 'state'),
    MCPX_REGISTRY_URL: reg.url,
    MCPX_REGISTRY_PACKAGE_HOSTS: new URL(reg.url).host,
    MCPX_PORT: '',
  };
  daemon = spawn(process.execPath, [cli, 'daemon', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  daemon.stderr!.on('data', (d) => (stderr += d));
  const lines = createInterface({ input: daemon.stdout! });
  lines.on('line', (l) => (stdout += `${l}\n`));
  await until(() => /mcpx listening on (\S+)/.exec(stdout)?.[1], { what: 'the daemon listening', timeout: 20_000 });
  endpoint = /mcpx listening on (\S+)/.exec(stdout)![1]!;
});

after(async () => {
  if (daemon && daemon.exitCode === null) {
    const exited = new Promise((r) => daemon!.once('exit', r));
    daemon.kill('SIGTERM');
    await exited;
  }
  await reg.close();
  rmSync(dir, { recursive: true, force: true });
});

function mcpx(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => resolve({ code, stdout: out, stderr: err }));
  });
}

/** Every file under `root`, with its text. */
function filesUnder(root: string): Array<{ path: string; text: string }> {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .map((path) => ({ path, text: readFileSync(path, 'latin1') }));
}

test('a daemon started without a config file says where servers go, and picks up the file install creates', async () => {
  // The line after "listening on", written apart from it: it may be read a moment later.
  await until(() => /^mcpx servers: /m.test(stdout), { what: "the daemon's servers line" });
  assert.match(
    stdout,
    new RegExp(
      `servers: none yet — they go in ${config.replace(/[./]/g, '\\$&')}, which does not exist; \`mcpx install NAME\``,
    ),
  );
  // Said on stderr, which may arrive after stdout's lines.
  await until(() => /does not exist yet: waiting for .*mcp\.json to be created/.test(stderr), {
    what: 'the watch on the file to come',
  });
  assert.equal(existsSync(configHome), false);

  const r = await mcpx(['install', EVERYTHING, '--env', `EVERYTHING_TOKEN=${TOKEN}`]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    new RegExp(
      `server-everything: ${EVERYTHING.replace(/[./]/g, '\\$&')}@${EVERYTHING_VERSION}: npm @modelcontextprotocol/server-everything@${EVERYTHING_VERSION}, sandboxed`,
    ),
  );
  const entry = (JSON.parse(readFileSync(config, 'utf8')) as { servers: Record<string, Record<string, unknown>> })
    .servers['server-everything']!;
  const pkgDir = join(state, 'servers', 'server-everything', EVERYTHING_VERSION);
  assert.deepEqual(entry, {
    type: 'stdio',
    command: 'node',
    args: [join(pkgDir, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js'), 'stdio'],
    env: { EVERYTHING_TOKEN: '${secret:server-everything.EVERYTHING_TOKEN}' },
    sandbox: true,
    registry: {
      name: EVERYTHING,
      version: EVERYTHING_VERSION,
      url: reg.url,
      secrets: ['EVERYTHING_TOKEN'],
      package: `npm:@modelcontextprotocol/server-everything@${EVERYTHING_VERSION}`,
    },
  });
  // Installed at that version, no install script run, the registry's integrity in the lock.
  const lock = JSON.parse(readFileSync(join(pkgDir, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version: string; integrity: string }>;
  };
  assert.equal(lock.packages['node_modules/@modelcontextprotocol/server-everything']!.version, EVERYTHING_VERSION);
  assert.match(lock.packages['node_modules/@modelcontextprotocol/server-everything']!.integrity, /^sha512-/);

  await until(() => stderr.includes('the config file changed: added server-everything'), {
    what: 'the daemon picked the new file up',
    timeout: 20_000,
  });
});

test("the installed server's tools are listed and called through mcpx, sandboxed; its secret reaches its environment and no file under the config directory", async () => {
  const tools = await mcpx(['tools', 'server-everything', '--connect', endpoint]);
  assert.equal(tools.code, 0, tools.stderr);
  assert.match(tools.stdout, /get-env/);
  assert.match(tools.stdout, /echo/);
  const echo = await mcpx([
    'call',
    'server-everything',
    'echo',
    '{"message":"through mcpx"}',
    '--text',
    '--connect',
    endpoint,
  ]);
  assert.equal(echo.code, 0, echo.stderr);
  assert.match(echo.stdout, /through mcpx/);
  const envOut = await mcpx(['call', 'server-everything', 'get-env', '{}', '--text', '--connect', endpoint]);
  assert.equal(envOut.code, 0, envOut.stderr);
  const seen = JSON.parse(envOut.stdout.trim()) as Record<string, string>;
  assert.equal(seen.EVERYTHING_TOKEN, TOKEN, 'the secret reached the server');
  assert.match(seen.TMPDIR ?? '', /mcpx-sandbox-/, 'it runs in the sandbox (its private temporary directory)');
  for (const f of filesUnder(configHome)) assert.ok(!f.text.includes(TOKEN), `${f.path} holds the secret`);
  assert.ok(!stderr.includes(TOKEN), "the daemon's log does not");
  const store = join(state, 'secrets.json');
  assert.equal(JSON.parse(readFileSync(store, 'utf8'))['server-everything.EVERYTHING_TOKEN'], TOKEN);
  assert.equal(statSync(store).mode & 0o777, 0o600);
  // Its tools pinned at first start.
  const pins = JSON.parse(readFileSync(join(state, 'tool-pins.json'), 'utf8')) as unknown;
  assert.match(JSON.stringify(pins), /server-everything[\s\S]*get-env/);
});

test('an mcpb bundle installed, found outdated, updated with the server.json diff shown; its changed tool is held by the pins', async () => {
  const v1 = ruggedBundle('1.0.0');
  reg.files.set('rugged-1.0.0.mcpb', v1.bytes);
  reg.entries.push(held(ruggedServer(reg.url, '1.0.0', v1.sha256)));
  const r = await mcpx(['install', RUGGED]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /rugged: io\.github\.mcpx-tests\/rugged@1\.0\.0: mcpb http:.*#sha256=[0-9a-f]{64}, sandboxed/);
  await until(() => stderr.includes('added rugged'), { what: 'the daemon added rugged', timeout: 20_000 });
  const first = await mcpx(['call', 'rugged', 'rug', '{"text":"hi"}', '--text', '--connect', endpoint]);
  assert.equal(first.stdout.trim(), 'rug 1.0.0: hi', first.stderr);
  assert.match((await mcpx(['registry', 'outdated'])).stdout, /every installed server is at its latest version/);

  const v2 = ruggedBundle('1.1.0');
  reg.files.set('rugged-1.1.0.mcpb', v2.bytes);
  reg.entries.find((h) => h.server.name === RUGGED)!.official.isLatest = false;
  reg.entries.push(held(ruggedServer(reg.url, '1.1.0', v2.sha256), { at: '2026-10-01T00:00:00Z' }));
  const outdated = await mcpx(['registry', 'outdated']);
  assert.match(outdated.stdout, /rugged\s+io\.github\.mcpx-tests\/rugged\s+1\.0\.0\s+1\.1\.0\s+active/);
  const u = await mcpx(['update', 'rugged']);
  assert.equal(u.code, 0, u.stderr);
  assert.match(u.stdout, /--- server\.json 1\.0\.0\n\+\+\+ server\.json 1\.1\.0\n/);
  assert.match(u.stdout, /-\s+"version": "1\.0\.0"\n\+\s+"version": "1\.1\.0"/);
  assert.ok(!existsSync(join(state, 'servers', 'rugged', '1.0.0')), 'the old version removed');
  await until(() => stderr.includes('changed rugged'), { what: 'the daemon changed rugged', timeout: 20_000 });
  const held2 = await mcpx(['call', 'rugged', 'rug', '{"text":"hi"}', '--text', '--connect', endpoint]);
  assert.notEqual(held2.code, 0, 'a call of the changed tool is refused');
  assert.match(held2.stdout + held2.stderr, /held|pins accept/i);
  const pins = await mcpx(['pins', 'diff', 'rugged', '--endpoint', endpoint]);
  assert.match(pins.stdout, /bundle 1\.0\.0[\s\S]*bundle 1\.1\.0/);
  const un = await mcpx(['uninstall', 'rugged']);
  assert.equal(un.code, 0, un.stderr);
  assert.ok(!existsSync(join(state, 'servers', 'rugged')));
  await until(() => stderr.includes('removed rugged'), { what: 'the daemon removed rugged', timeout: 20_000 });
});
