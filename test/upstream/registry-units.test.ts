// The parts of installing from an MCP Registry, each on its own (docs/registry.md): the client's pages,
// cache and errors; look-alike names; allowed hosts; inputs rendered into argv, environment and headers
// from the registry repository's examples; the commands the PyPI and OCI kinds run (PyPI and container
// registries cannot be reached here, so their runs are recorded, not made); zip reading; the config
// file's edits; following a config file that does not exist yet.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { followConfig } from '../../src/cli/follow';
import { extractZip } from '../../src/kit/zip';
import { RegistryCache } from '../../src/registry/cache';
import { editDistance, nearName } from '../../src/registry/checks';
import { RegistryClient, type RegistryError } from '../../src/registry/client';
import { entries, putEntry, removeEntry } from '../../src/registry/configFile';
import { refusedHost } from '../../src/registry/hosts';
import { Renderer, packageNeeds } from '../../src/registry/inputs';
import { type InstallPorts, InstallRefused, install } from '../../src/registry/install';
import type { Run } from '../../src/registry/packages/kind';
import { type Package, parseEntry } from '../../src/registry/types';
import database from '../fixtures/registry/examples/database-manager.json';
import filesystem from '../fixtures/registry/examples/filesystem.json';
import weather from '../fixtures/registry/examples/weather-mcp.json';
import { registryEntries } from '../fixtures/registry/entries';
import { type LocalRegistry, startRegistry } from '../fixtures/registry/server';
import { until } from '../harness/hostile';
import { zip } from '../harness/zip';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-registry-units-'));
let reg: LocalRegistry;
before(async () => {
  reg = await startRegistry([]);
  reg.entries.push(...registryEntries(reg.url));
});
after(async () => {
  await reg.close();
  rmSync(dir, { recursive: true, force: true });
});

const client = (o: { timeoutMs?: number; cache?: RegistryCache } = {}) =>
  new RegistryClient({ url: reg.url, timeoutMs: o.timeoutMs ?? 2000, ...(o.cache ? { cache: o.cache } : {}) });

test('the client: pages by cursor, a deleted server found with include_deleted, a 404 named', async () => {
  const c = client();
  const names: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const p = await c.search('', { cursor, limit: 100 });
    names.push(...p.value.entries.map((e) => e.server.name));
    cursor = p.value.nextCursor;
    pages++;
  } while (cursor);
  assert.equal(pages, Math.ceil(names.length / 3), 'pages of three, the last one shorter');
  assert.ok(!names.includes('io.github.example/retired-server'), 'a list hides a deleted server');
  const deleted = await c.version('io.github.example/retired-server');
  assert.equal(deleted.value.official.status, 'deleted');
  assert.equal(deleted.value.official.statusMessage, 'withdrawn by its publisher');
  await assert.rejects(c.version('io.github.example/nothing'), (e: RegistryError) => e.kind === 'not-found');
  assert.deepEqual(
    (await c.versions('io.github.example/weather-mcp')).value.map((e) => e.server.version),
    ['0.5.0'],
  );
  assert.throws(() => new RegistryClient({ url: 'ftp://x', timeoutMs: 1 }), /expected an http or https URL/);
});

test('the cache: served stale only when the registry cannot be reached, never for a 404', async () => {
  const cache = new RegistryCache(join(dir, 'cache'));
  const c = client({ cache });
  await c.version('io.github.example/weather-mcp');
  reg.mode = 'unreachable';
  try {
    const stale = await c.version('io.github.example/weather-mcp');
    assert.ok(stale.stale, 'said to be stale');
    assert.match(stale.stale!.why, /could not be reached/);
    await assert.rejects(
      c.version('io.github.example/database-manager'),
      (e: RegistryError) => e.kind === 'unreachable',
    );
  } finally {
    reg.mode = 'up';
  }
  await assert.rejects(c.version('io.github.example/nothing'), (e: RegistryError) => e.kind === 'not-found');
  const fresh = await c.version('io.github.example/weather-mcp');
  assert.equal(fresh.stale, undefined, 'a reachable registry is asked, not the cache');
});

test('look-alike names: a small edit in the whole name, the server part or the namespace; short names are not compared', () => {
  assert.equal(editDistance('everything', 'everythnig'), 1, 'a swap is one edit');
  assert.equal(editDistance('abc', 'abcdefgh', 2), 3, 'counted no further than asked');
  assert.ok(
    nearName('io.github.modeicontextprotocol/server-everything', 'io.github.modelcontextprotocol/server-everything'),
  );
  assert.ok(nearName('io.github.x/server-everythng', 'io.github.x/server-everything'));
  assert.ok(!nearName('io.github.alice/weather', 'io.github.bob/leather'), 'another namespace and another name');
  assert.ok(!nearName('io.github.x/git', 'io.github.x/gif'), 'too short to tell');
  assert.ok(!nearName('io.github.x/server-everything', 'io.github.x/server-everything'));
});

test('package hosts: the official registry allow-list by type, more only when configured (with its port)', () => {
  const pkg = (registryType: string, identifier: string, registryBaseUrl?: string): Package =>
    ({
      registryType,
      identifier,
      transport: { type: 'stdio' },
      ...(registryBaseUrl ? { registryBaseUrl } : {}),
    }) as Package;
  assert.equal(refusedHost(pkg('npm', 'x'), []), undefined, 'npm without a base: registry.npmjs.org');
  assert.match(
    refusedHost(pkg('npm', 'x', 'https://npm.evil.example'), []) ?? '',
    /npm\.evil\.example, which is not an allowed/,
  );
  assert.equal(refusedHost(pkg('npm', 'x', 'https://npm.corp.example'), ['npm.corp.example']), undefined);
  assert.equal(refusedHost(pkg('oci', 'ghcr.io/o/i:1'), []), undefined);
  assert.equal(refusedHost(pkg('oci', 'europe-docker.pkg.dev/p/r/i:1'), []), undefined, '*.pkg.dev');
  assert.equal(refusedHost(pkg('oci', 'mcp/filesystem:1'), []), undefined, 'Docker Hub by default');
  assert.match(refusedHost(pkg('oci', 'quay.io/o/i:1'), []) ?? '', /quay\.io/);
  assert.equal(refusedHost(pkg('mcpb', 'https://github.com/o/r/releases/download/v1/x.mcpb'), []), undefined);
  assert.match(
    refusedHost(pkg('mcpb', 'http://127.0.0.1:8080/x.mcpb'), ['127.0.0.1']) ?? '',
    /127\.0\.0\.1:8080, which is not/,
  );
  assert.equal(refusedHost(pkg('mcpb', 'http://127.0.0.1:8080/x.mcpb'), ['127.0.0.1:8080']), undefined);
});

test("inputs rendered from the registry's examples: repeated positionals, defaults, named flags as two argv items, variables, no shell", () => {
  const fsNpm = filesystem.packages[0] as unknown as Package;
  const needs = packageNeeds(fsNpm);
  assert.deepEqual(
    needs.map((n) => [n.key, n.required, n.repeated ?? false]),
    [
      ['target_dir', true, true],
      ['LOG_LEVEL', false, false],
    ],
  );
  const r = new Renderer(needs, new Map([['target_dir', ['/a b', '/c; rm -rf ~']]]), (k) => `fs.${k}`);
  r.arguments(fsNpm.packageArguments!, r.r.packageArgs, 'argument');
  r.environment(fsNpm.environmentVariables!);
  assert.deepEqual(r.r.packageArgs, ['/a b', '/c; rm -rf ~'], 'each value one argv item, as given');
  assert.deepEqual(r.r.env, { LOG_LEVEL: 'info' });

  const fsOci = filesystem.packages[1] as unknown as Package;
  const o = new Renderer(packageNeeds(fsOci), new Map([['source_path', ['/home/me/p']]]), (k) => `fs.${k}`);
  o.arguments(fsOci.runtimeArguments!, o.r.runtimeArgs, 'runtime argument');
  o.arguments(fsOci.packageArguments!, o.r.packageArgs, 'argument');
  assert.deepEqual(o.r.runtimeArgs, ['--mount', 'type=bind,src=/home/me/p,dst=/project']);
  assert.deepEqual(o.r.packageArgs, ['/project']);

  const db = database.packages[0] as unknown as Package;
  const d = new Renderer(
    packageNeeds(db),
    new Map([
      ['db_type', ['postgres']],
      ['DB_PASSWORD', ['pw']],
    ]),
    (k) => `db.${k}`,
  );
  d.environment(db.environmentVariables!);
  assert.deepEqual(d.r.env, { DB_PASSWORD: '${secret:db.DB_PASSWORD}', SSL_MODE: 'prefer' });
  assert.deepEqual(d.r.secrets, { 'db.DB_PASSWORD': 'pw' });
  assert.deepEqual(
    d.r.missing.map((m) => m.key),
    ['DB_USERNAME'],
  );

  const evil = { ...fsNpm, environmentVariables: [{ name: 'X', value: '${env:AWS_SECRET_ACCESS_KEY}' }] } as Package;
  const e = new Renderer(packageNeeds(evil), new Map([['target_dir', ['/']]]), (k) => k);
  assert.throws(
    () => e.environment(evil.environmentVariables!),
    /holds "\$\{", which mcpx refuses in text from a registry/,
  );
  const badName = { ...fsNpm, environmentVariables: [{ name: 'LD PRELOAD', value: 'x' }] } as Package;
  assert.throws(() => e.environment(badName.environmentVariables!), /not a usable name/);
});

/** A `run` that records each command and does what `effects` says for it (by its first words). */
function recorder(effects: Record<string, (args: readonly string[]) => string | undefined> = {}) {
  const ran: string[][] = [];
  const run: Run = async (command, args) => {
    ran.push([command, ...args]);
    const key = Object.keys(effects).find((k) => [command, ...args].join(' ').startsWith(k));
    if (key === undefined) return { stdout: '', stderr: '' };
    const out = effects[key]!(args);
    if (out === 'ENOENT') throw new Error(`${command} is not installed (not found on PATH)`);
    return { stdout: out ?? '', stderr: '' };
  };
  return { run, ran };
}

function ports(o: {
  run: Run;
  stateDir: string;
  extraHosts?: string[];
}): InstallPorts & { secretsSet: Record<string, string> } {
  const secretsSet: Record<string, string> = {};
  return {
    stateDir: o.stateDir,
    secrets: { set: async (k, v) => void (secretsSet[k] = v) },
    sandboxAvailable: async () => undefined,
    extraHosts: o.extraHosts ?? [],
    log: () => undefined,
    warn: () => undefined,
    run: o.run,
    secretsSet,
  };
}

const entryOf = (server: unknown) => parseEntry({ server }, 'test');

test('PyPI with uv: a virtual environment, a lock with hashes, an install that requires them; the console script runs it', async () => {
  const stateDir = join(dir, 'pypi-uv');
  const { run, ran } = recorder({
    'uv pip install': (args) => {
      const venv = args[args.indexOf('--python') + 1]!.replace(/\/bin\/python$/, '');
      const info = join(venv, 'lib', 'python3.12', 'site-packages', 'weather_mcp_server-0.5.0.dist-info');
      mkdirSync(info, { recursive: true });
      writeFileSync(join(info, 'entry_points.txt'), '[console_scripts]\nweather-mcp-server = weather.main:run\n');
      return undefined;
    },
  });
  const p = ports({ run, stateDir });
  const r = await install(
    {
      client: client(),
      entry: entryOf(weather),
      local: 'weather',
      values: new Map([['WEATHER_API_KEY', ['w-key']]]),
      sandbox: true,
      yes: false,
    },
    p,
  );
  const venv = join(stateDir, 'servers', 'weather', '0.5.0', 'venv');
  assert.deepEqual(
    ran.map((c) => c.slice(0, 3).join(' ')),
    ['uv --version', 'uv venv ' + venv, 'uv pip compile', 'uv pip install'],
  );
  assert.ok(ran[2]!.includes('--generate-hashes'), 'the lock holds every hash');
  assert.ok(ran[3]!.includes('--require-hashes'), 'the install requires them');
  assert.ok(ran[2]!.includes('https://pypi.org/simple'));
  assert.equal(
    readFileSync(join(stateDir, 'servers', 'weather', '0.5.0', 'requirements.in'), 'utf8'),
    'weather-mcp-server==0.5.0\n',
  );
  assert.deepEqual(r.def, {
    type: 'stdio',
    command: join(venv, 'bin', 'weather-mcp-server'),
    args: [],
    env: { WEATHER_API_KEY: '${secret:weather.WEATHER_API_KEY}', WEATHER_UNITS: 'celsius' },
    sandbox: true,
    registry: {
      name: 'io.github.example/weather-mcp',
      version: '0.5.0',
      url: reg.url,
      inputs: { WEATHER_UNITS: ['celsius'] },
      secrets: ['WEATHER_API_KEY'],
      package: 'pypi:weather-mcp-server==0.5.0',
    },
  });
  assert.deepEqual(p.secretsSet, { 'weather.WEATHER_API_KEY': 'w-key' });
});

test("PyPI with pip: the package's file checked against the index's published sha256 before it is installed", async () => {
  const wheel = Buffer.from('a wheel');
  const { createHash } = await import('node:crypto');
  const good = createHash('sha256').update(wheel).digest('hex');
  let published = good;
  const index = createServer((req, res) => {
    res.writeHead(req.url === '/pypi/weather-mcp-server/0.5.0/json' ? 200 : 404, {
      'content-type': 'application/json',
    });
    res.end(JSON.stringify({ urls: [{ digests: { sha256: published } }] }));
  });
  await new Promise<void>((r) => index.listen(0, '127.0.0.1', r));
  const host = `127.0.0.1:${(index.address() as AddressInfo).port}`;
  try {
    const effects = {
      'uv --version': () => 'ENOENT',
      'python3 -m venv': (args: readonly string[]) => {
        const venv = args[2]!;
        const info = join(venv, 'lib', 'python3.11', 'site-packages', 'weather_mcp_server-0.5.0.dist-info');
        mkdirSync(info, { recursive: true });
        writeFileSync(join(info, 'entry_points.txt'), '[console_scripts]\nweather = weather.main:run\n');
        return undefined;
      },
      [join(dir, 'pypi-pip')]: (args: readonly string[]) => {
        if (args[0] !== 'download') return undefined;
        const dest = args[args.indexOf('--dest') + 1]!;
        mkdirSync(dest, { recursive: true });
        writeFileSync(join(dest, 'weather_mcp_server-0.5.0-py3-none-any.whl'), wheel);
        return undefined;
      },
    };
    const local = { ...weather, packages: [{ ...weather.packages[0]!, registryBaseUrl: `http://${host}` }] };
    const req = {
      client: client(),
      entry: entryOf(local),
      local: 'w',
      values: new Map([['WEATHER_API_KEY', ['k']]]),
      sandbox: false,
      yes: false,
    };
    const a = recorder(effects);
    const r = await install(req, ports({ run: a.run, stateDir: join(dir, 'pypi-pip'), extraHosts: [host] }));
    assert.deepEqual(
      a.ran.map((c) => `${c[0]!.split('/').at(-1)} ${c[1]}`),
      ['uv --version', 'python3 -m', 'pip download', 'pip install'],
    );
    assert.ok(a.ran[3]!.includes('--no-index'), 'installed from the checked files only');
    assert.equal(r.def.command, join(dir, 'pypi-pip', 'servers', 'w', '0.5.0', 'venv', 'bin', 'weather'));
    assert.equal(r.def.sandbox, false, '--no-sandbox');
    published = 'f'.repeat(64);
    const b = recorder(effects);
    await assert.rejects(
      install(req, ports({ run: b.run, stateDir: join(dir, 'pypi-pip'), extraHosts: [host] })),
      (e: Error) =>
        e instanceof InstallRefused && /its sha256 [0-9a-f]{64} is not one the index publishes/.test(e.message),
    );
    assert.equal(b.ran.filter((c) => c[1] === 'install').length, 0, 'nothing installed');
  } finally {
    index.close();
  }
});

test('OCI: pulled, written by digest, run with docker -e NAME (values stay out of argv); a tag of latest refused', async () => {
  const digest = `sha256:${'a'.repeat(64)}`;
  const { run, ran } = recorder({
    'docker image inspect': () => JSON.stringify([`example/database-manager-mcp@${digest}`]),
  });
  const values = new Map([
    ['db_type', ['postgres']],
    ['database_name', ['shop']],
    ['DB_USERNAME', ['me']],
    ['DB_PASSWORD', ['pw']],
  ]);
  const r = await install(
    { client: client(), entry: entryOf(database), local: 'db', values, sandbox: true, yes: true },
    ports({ run, stateDir: join(dir, 'oci') }),
  );
  assert.deepEqual(
    ran.map((c) => c.slice(0, 4).join(' ')),
    ['docker pull docker.io/example/database-manager-mcp:3.1.0', 'docker image inspect --format'],
  );
  const pinned = `docker.io/example/database-manager-mcp@${digest}`;
  assert.deepEqual(r.def.args, [
    'run',
    '--rm',
    '-i',
    '-e',
    'DB_USERNAME',
    '-e',
    'DB_PASSWORD',
    '-e',
    'SSL_MODE',
    '--network',
    'host',
    '-e',
    'DB_TYPE=postgres',
    pinned,
    '--host',
    'localhost',
    'shop',
  ]);
  assert.equal(r.def.command, 'docker');
  assert.equal(r.def.sandbox, undefined, 'the container is its sandbox');
  assert.deepEqual(r.def.env, { DB_USERNAME: 'me', DB_PASSWORD: '${secret:db.DB_PASSWORD}', SSL_MODE: 'prefer' });
  const latest = { ...database, packages: [{ ...database.packages[0]!, identifier: 'docker.io/example/x:latest' }] };
  await assert.rejects(
    install(
      { client: client(), entry: entryOf(latest), local: 'x', values, sandbox: true, yes: true },
      ports({ run, stateDir: join(dir, 'oci') }),
    ),
    /names no exact version/,
  );
});

test('zip: stored and deflated files unpacked; a path leaving the folder refused', () => {
  const out = join(dir, 'zip');
  const files = extractZip(zip({ 'manifest.json': '{"a":1}', 'server/index.js': 'x'.repeat(5000) }), out, {
    maxEntries: 10,
    maxBytes: 1e6,
  });
  assert.deepEqual(files, ['manifest.json', 'server/index.js']);
  assert.equal(readFileSync(join(out, 'server', 'index.js'), 'utf8'), 'x'.repeat(5000));
  extractZip(zip({ 'a.txt': 'stored' }, false), out, { maxEntries: 10, maxBytes: 1e6 });
  assert.equal(readFileSync(join(out, 'a.txt'), 'utf8'), 'stored');
  assert.throws(
    () => extractZip(zip({ '../evil': 'x' }), out, { maxEntries: 10, maxBytes: 1e6 }),
    /outside the archive/,
  );
  assert.throws(
    () => extractZip(zip({ big: 'x'.repeat(100) }), out, { maxEntries: 10, maxBytes: 50 }),
    /more than 50 bytes/,
  );
});

test('the config file: an entry added and removed, everything else kept, a Claude-style file kept so', () => {
  const file = join(dir, 'conf', 'sub', 'mcp.json');
  putEntry(file, 'a', { url: 'https://a.example/mcp' });
  assert.deepEqual(Object.keys(entries(file)), ['a']);
  const claude = join(dir, 'claude.json');
  writeFileSync(claude, JSON.stringify({ mcpServers: { old: { command: 'x' } }, settings: { port: 1 } }));
  putEntry(claude, 'b', { command: 'y' });
  const doc = JSON.parse(readFileSync(claude, 'utf8'));
  assert.deepEqual(doc, { mcpServers: { old: { command: 'x' }, b: { command: 'y' } }, settings: { port: 1 } });
  assert.throws(() => putEntry(claude, 'old', {}), /already in/);
  assert.deepEqual(removeEntry(claude, 'old'), { command: 'x' });
  assert.equal(removeEntry(claude, 'old'), undefined);
  writeFileSync(claude, '{ // a comment\n}');
  assert.throws(() => putEntry(claude, 'c', {}), /is not plain JSON/);
});

test('following a config file whose directories do not exist yet: its creation is a change', async () => {
  const file = join(dir, 'later', 'deeper', 'mcp.json');
  let changes = 0;
  const lines: string[] = [];
  const stop = followConfig(
    file,
    () => changes++,
    (l) => lines.push(l),
  );
  try {
    assert.match(lines.join('\n'), /does not exist yet: waiting for .*mcp\.json to be created/);
    putEntry(file, 'x', { command: 'x' });
    await until('the creation seen', () => changes > 0, 5000);
    const before = changes;
    putEntry(file, 'y', { command: 'y' });
    await until('a later change seen', () => changes > before, 5000);
  } finally {
    stop();
  }
});

test('a version or local name that would leave the servers folder is refused before anything is removed or fetched', async () => {
  const stateDir = join(dir, 'escape');
  const victim = join(dir, 'victim');
  mkdirSync(victim, { recursive: true });
  writeFileSync(join(victim, 'keep'), 'x');
  const { run, ran } = recorder();
  const evil = { ...weather, version: '../../victim' };
  await assert.rejects(
    install(
      {
        client: client(),
        entry: entryOf(evil),
        local: 'w',
        values: new Map([['WEATHER_API_KEY', ['k']]]),
        sandbox: false,
        yes: false,
      },
      ports({ run, stateDir }),
    ),
    /the version "\.\.\/\.\.\/victim" is not usable as a folder name/,
  );
  await assert.rejects(
    install(
      {
        client: client(),
        entry: entryOf(weather),
        local: '..',
        values: new Map([['WEATHER_API_KEY', ['k']]]),
        sandbox: false,
        yes: false,
      },
      ports({ run, stateDir }),
    ),
    /the local name "\.\." is not usable/,
  );
  assert.equal(readFileSync(join(victim, 'keep'), 'utf8'), 'x');
  assert.deepEqual(ran, [], 'nothing ran');
});
