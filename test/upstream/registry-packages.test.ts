// The package kinds of installing from an MCP Registry (docs/registry.md): the commands the PyPI (uv, pip) and
// OCI kinds run — recorded, since PyPI and container registries cannot be reached here — and a version or
// local name that would leave the servers folder, refused before anything is fetched.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { RegistryCache } from '../../src/registry/cache';
import { RegistryClient } from '../../src/registry/client';
import { type InstallPorts, InstallRefused, install } from '../../src/registry/install';
import type { Run } from '../../src/registry/packages/kind';
import { parseEntry } from '../../src/registry/types';
import database from '../fixtures/registry/examples/database-manager.json';
import weather from '../fixtures/registry/examples/weather-mcp.json';
import { registryEntries } from '../fixtures/registry/entries';
import { type LocalRegistry, startRegistry } from '../fixtures/registry/server';

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
