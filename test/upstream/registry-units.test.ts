// The parts of installing from an MCP Registry, each on its own (docs/registry.md): the client's pages,
// cache and errors; look-alike names; allowed hosts; inputs rendered into argv, environment and headers
// from the registry repository's examples; the commands the PyPI and OCI kinds run (PyPI and container
// registries cannot be reached here, so their runs are recorded, not made); zip reading; the config
// file's edits; following a config file that does not exist yet.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
import type { Package } from '../../src/registry/types';
import database from '../fixtures/registry/examples/database-manager.json';
import filesystem from '../fixtures/registry/examples/filesystem.json';
import { registryEntries } from '../fixtures/registry/entries';
import { type LocalRegistry, startRegistry } from '../fixtures/registry/server';
import { zip } from '../harness/zip';
import { until } from '../harness/wait';

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
    await until(() => changes > 0, { what: 'the creation seen', timeout: 5000 });
    const before = changes;
    putEntry(file, 'y', { command: 'y' });
    await until(() => changes > before, { what: 'a later change seen', timeout: 5000 });
  } finally {
    stop();
  }
});
