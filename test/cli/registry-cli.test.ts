// `mcpx registry`, `install`, `uninstall` against a local MCP Registry (test/fixtures/registry) serving
// the registry repository's own server.json examples: paging, a deleted and a deprecated entry, a secret
// input, a remote server with a URL template, an mcpb package whose sha256 is wrong, a look-alike name,
// and the registry going away (a stale cache served and said to be, else an error naming it).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { EVERYTHING } from '../fixtures/registry/entries';
import { registryEntries } from '../fixtures/registry/entries';
import { type LocalRegistry, startRegistry } from '../fixtures/registry/server';
import { cliJs } from '../harness/gateway';

const cli = cliJs();
const dir = mkdtempSync(join(tmpdir(), 'mcpx-registry-cli-'));
const config = join(dir, 'mcpx', 'mcp.json');
const secretsFile = join(dir, 'mcpx', 'secrets.json');
let reg: LocalRegistry;
let env: NodeJS.ProcessEnv;

before(async () => {
  reg = await startRegistry([]);
  reg.entries.push(...registryEntries(reg.url));
  reg.files.set('text-editor.mcpb', Buffer.from('not the bundle the example names'));
  env = {
    ...process.env,
    XDG_CONFIG_HOME: dir,
    XDG_STATE_HOME: dir,
    MCPX_REGISTRY_URL: reg.url,
    MCPX_REGISTRY_TIMEOUT: '2s',
    MCPX_PORT: '',
  };
});
after(async () => {
  await reg.close();
  rmSync(dir, { recursive: true, force: true });
});

function mcpx(
  args: string[],
  extra: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], {
      env: { ...env, ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const configJson = () =>
  JSON.parse(readFileSync(config, 'utf8')) as { servers: Record<string, Record<string, unknown>> };

test('registry search follows the pages, shows how each runs and its status, and never lists a deleted server', async () => {
  reg.requests.length = 0;
  // "server" is in most names and descriptions: more than three pages of three.
  const r = await mcpx(['registry', 'search', 'server']);
  assert.equal(r.code, 0, r.stderr);
  for (const name of [
    'io.github.example/weather-mcp',
    'io.github.example/database-manager',
    'com.example/tenant-remote',
    EVERYTHING,
  ])
    assert.match(r.stdout, new RegExp(name.replace(/[./]/g, '\\$&')));
  assert.match(r.stdout, /database-manager\s+3\.1\.0\s+oci\s+deprecated/);
  assert.match(r.stdout, /tenant-remote\s+1\.0\.0\s+remote\s+active/);
  assert.doesNotMatch(r.stdout, /retired-server/);
  const lists = reg.requests.filter((u) => u.startsWith('/v0.1/servers?'));
  assert.ok(lists.length >= 3, `the pages were followed: ${lists.join(' ')}`);
  assert.ok(
    lists.slice(1).every((u) => u.includes('cursor=')),
    'each later page by its cursor',
  );
  const json = JSON.parse((await mcpx(['registry', 'search', 'server', '--json'])).stdout) as { servers: unknown[] };
  assert.equal(json.servers.length, r.stdout.trim().split('\n').length - 1, 'the same servers as JSON');
});

test('a deleted server is named as deleted (asked with include_deleted=true), and refused', async () => {
  reg.requests.length = 0;
  const show = await mcpx(['registry', 'show', 'io.github.example/retired-server']);
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, /status\s+deleted: withdrawn by its publisher/);
  assert.ok(
    reg.requests.every((u) => u.includes('include_deleted=true')),
    reg.requests.join(' '),
  );
  const install = await mcpx(['install', 'io.github.example/retired-server']);
  assert.equal(install.code, 2);
  assert.match(install.stderr, /io\.github\.example\/retired-server@0\.1\.0 is deleted from the registry: withdrawn/);
  assert.equal(existsSync(config), false, 'nothing written');
});

test('a deprecated server needs --yes; a missing required input is refused naming each, secrets marked', async () => {
  const no = await mcpx(['install', 'io.github.example/database-manager']);
  assert.equal(no.code, 2);
  assert.match(no.stderr, /is deprecated: use io\.github\.example\/database-manager-v2; install it anyway with --yes/);
  const yes = await mcpx(['install', 'io.github.example/database-manager', '--yes']);
  assert.equal(yes.code, 2);
  assert.match(yes.stderr, /WARNING: io\.github\.example\/database-manager@3\.1\.0 is deprecated/);
  for (const key of [
    'db_type',
    'database_name',
    'DB_USERNAME',
    'DB_PASSWORD \\(environment variable DB_PASSWORD, secret',
  ])
    assert.match(yes.stderr, new RegExp(key), `names ${key}`);
  assert.match(yes.stderr, /give them with --env KEY=VALUE/);
  const brave = await mcpx(['install', 'io.modelcontextprotocol.anonymous/brave-search']);
  assert.match(
    brave.stderr,
    /needs BRAVE_API_KEY \(environment variable BRAVE_API_KEY, secret: Brave Search API Key\)/,
  );
  const choice = await mcpx(['install', 'io.github.example/database-manager', '--yes', '--env', 'db_type=oracle']);
  assert.match(choice.stderr, /db_type: "oracle" is not one of postgres, mysql, mongodb, redis/);
  const unknown = await mcpx(['install', 'io.modelcontextprotocol.anonymous/brave-search', '--env', 'NOPE=1']);
  assert.match(unknown.stderr, /--env NOPE: the server asks for no input of that name \(it asks for: BRAVE_API_KEY\)/);
  assert.equal(existsSync(config), false, 'nothing written');
});

test('a remote server: its URL template filled, its secret header in the owner-only store and never in the file; instructions shown, escaped; uninstall removes both', async () => {
  const r = await mcpx([
    'install',
    'com.example/tenant-remote',
    '--env',
    'tenant=acme',
    '--env',
    'X-API-Key=k3y-s3cret',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const entry = configJson().servers['tenant-remote']!;
  assert.deepEqual(entry, {
    type: 'http',
    url: 'https://acme.mcp.example.com/mcp',
    headers: { 'X-API-Key': '${secret:tenant-remote.X-API-Key}', 'X-Region': 'us-east-1' },
    registry: {
      name: 'com.example/tenant-remote',
      version: '1.0.0',
      url: reg.url,
      inputs: { tenant: ['acme'], 'X-Region': ['us-east-1'] },
      secrets: ['X-API-Key'],
    },
  });
  assert.doesNotMatch(readFileSync(config, 'utf8'), /k3y-s3cret/);
  assert.deepEqual(JSON.parse(readFileSync(secretsFile, 'utf8')), { 'tenant-remote.X-API-Key': 'k3y-s3cret' });
  assert.equal(statSync(secretsFile).mode & 0o777, 0o600, 'the store is owner-only');
  assert.equal(statSync(join(dir, 'mcpx', 'registry-cache')).mode & 0o777, 0o700, 'so is the cache');
  assert.match(
    r.stdout,
    /post-install instructions \(shown, not run\):\n {2}\| Sign up at https:\/\/example\.com first\.\n/,
  );
  assert.ok(!r.stdout.includes(String.fromCharCode(27)), 'the escape sequence is not printed');
  assert.match(r.stdout, / {2}\| .*rm -rf ~.* is never run\n/);
  // The config file as the gateway reads it: the secret substituted in memory only.
  const settings = await mcpx(['settings']);
  assert.equal(settings.code, 0, settings.stderr);
  assert.doesNotMatch(settings.stderr, /no secret named/);

  const again = await mcpx(['install', 'com.example/tenant-remote', '--env', 'tenant=b', '--env', 'X-API-Key=x']);
  assert.match(again.stderr, /a server named "tenant-remote" is already in .*: choose another with --name/);
  const u = await mcpx(['uninstall', 'tenant-remote']);
  assert.equal(u.code, 0, u.stderr);
  assert.match(u.stdout, /tenant-remote removed from .* with 1 secret/);
  assert.equal(configJson().servers['tenant-remote'], undefined);
  assert.deepEqual(JSON.parse(readFileSync(secretsFile, 'utf8')), {});
});

test('an mcpb package is refused from a host not allowed; allowed, its wrong sha256 is refused and nothing is left', async () => {
  const host = new URL(reg.url).host;
  const off = await mcpx(['install', 'io.modelcontextprotocol/text-editor']);
  assert.equal(off.code, 2);
  assert.match(
    off.stderr,
    new RegExp(`comes from ${host}, which is not an allowed package host .*registry\\.packageHosts`),
  );
  const on = await mcpx(['install', 'io.modelcontextprotocol/text-editor'], { MCPX_REGISTRY_PACKAGE_HOSTS: host });
  assert.equal(on.code, 2);
  assert.match(
    on.stderr,
    /its sha256 is [0-9a-f]{64}, not the fileSha256 server\.json gives \(fe333e59.*\); nothing was installed/,
  );
  assert.equal(
    existsSync(join(dir, 'mcpx', 'servers', 'text-editor')) &&
      readdirSync(join(dir, 'mcpx', 'servers', 'text-editor')).length > 0,
    false,
  );
  assert.equal(existsSync(config) && 'text-editor' in configJson().servers, false);
});

test('a name a small edit away from an older server is warned about before anything else', async () => {
  const r = await mcpx(['install', 'io.github.modeicontextprotocol/server-everything']);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    new RegExp(`WARNING: .* is a small edit away from ${EVERYTHING.replace(/[./]/g, '\\$&')}, published before it`),
  );
  const real = await mcpx(['install', EVERYTHING]);
  assert.doesNotMatch(real.stderr, /small edit away/, 'the older one is not warned about');
  assert.match(real.stderr, /needs EVERYTHING_TOKEN/);
});

test('the registry unreachable: a cached answer is served and said to be stale; without one the error names the registry; a silent one times out', async () => {
  const name = 'io.modelcontextprotocol.anonymous/mcp-fs';
  assert.equal((await mcpx(['registry', 'show', name])).code, 0);
  reg.mode = 'unreachable';
  try {
    const stale = await mcpx(['registry', 'show', name]);
    assert.equal(stale.code, 0, stale.stderr);
    assert.match(stale.stdout, /name\s+io\.modelcontextprotocol\.anonymous\/mcp-fs/);
    assert.match(
      stale.stderr,
      new RegExp(
        `the MCP Registry at ${reg.url.replace(/[./]/g, '\\$&')} could not be reached: .*showing what was cached 0 min ago \\(stale\\)`,
      ),
    );
    const none = await mcpx(['registry', 'show', 'io.github.example/weather-mcp@0.4.0']);
    assert.equal(none.code, 2);
    assert.match(
      none.stderr,
      new RegExp(`mcpx: the MCP Registry at ${reg.url.replace(/[./]/g, '\\$&')} could not be reached`),
    );
    reg.mode = 'slow';
    const t0 = Date.now();
    const slow = await mcpx(['registry', 'search', 'nothing-cached'], { MCPX_REGISTRY_TIMEOUT: '500ms' });
    assert.equal(slow.code, 2);
    assert.match(slow.stderr, /could not be reached: no answer within 500 ms \(registry\.timeout\)/);
    assert.ok(Date.now() - t0 < 8000);
  } finally {
    reg.mode = 'up';
  }
  const nf = await mcpx(['registry', 'show', 'io.github.example/no-such-server']);
  assert.match(nf.stderr, /io\.github\.example\/no-such-server is not in the MCP Registry at/);
});
