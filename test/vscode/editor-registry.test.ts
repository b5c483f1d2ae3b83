// Add Server… → From the MCP Registry… with the editor's ports faked (test/vscode-fakes) and a local
// registry (test/fixtures/registry): the QuickPick searching as the person types, the details, a deprecated
// server confirmed, the inputs (a secret in a password box, kept in SecretStorage), the sandbox choice, the
// install and the save; the Upstreams view marking a registry-installed server with its version and
// offering Update when the registry has a newer one.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Settings } from '../../src/config/settings';
import { invoke } from '../../src/vscode/commands/command';
import { COMMANDS } from '../../src/vscode/commands/table';
import { RegistryUpdates } from '../../src/vscode/registryUpdates';
import { UpstreamsTree } from '../../src/vscode/views/upstreams';
import { RUGGED, ruggedBundle, ruggedServer } from '../fixtures/registry/bundle';
import { held, registryEntries } from '../fixtures/registry/entries';
import { type LocalRegistry, startRegistry } from '../fixtures/registry/server';
import { fakeDeps, fakeKit, fakeMcpJson } from '../vscode-fakes/editor';
import { FakeGateway, fakeHost } from '../vscode-fakes/host';
import { until } from '../harness/wait';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-editor-registry-'));
let reg: LocalRegistry;
before(async () => {
  reg = await startRegistry([]);
  reg.entries.push(...registryEntries(reg.url));
});
after(async () => {
  await reg.close();
  rmSync(dir, { recursive: true, force: true });
});

const status = (name: string) => ({ name, scope: 'shared', state: 'stopped' as const, transport: 'stdio' });
const run = (id: string, d: Parameters<typeof invoke>[1], ...args: unknown[]) => invoke(COMMANDS[id]!, d, args);

/** A gateway whose settings name the local registry, and a host that reloads with `name` once it is saved. */
function setup(name: string, tools: string[] = ['t']) {
  const g = new FakeGateway({ servers: [], lists: { [name]: { tools: tools.map((t) => ({ name: t })) } } });
  (g as { settings: Settings }).settings = new Settings([
    { source: 'config', values: { 'registry.url': reg.url, 'registry.packageHosts': [new URL(reg.url).host] } },
  ]);
  const host = fakeHost({ gateway: g });
  const file = fakeMcpJson(undefined, () => {
    g.o.servers = [status(name)];
    host.changed();
  });
  return { g, host, file };
}

test('a remote server: searched as typed, its details, its URL variable and secret header asked (the secret in a password box, kept in SecretStorage), saved and started', async () => {
  const { host, file } = setup('tenant-remote');
  const { d, ui } = fakeDeps({
    host,
    parts: { mcpJson: () => file, registry: { stateDir: dir, sandboxAvailable: async () => undefined } },
    answers: [
      { pick: 'From the MCP Registry' },
      { search: 'tenant', pick: 'com.example/tenant-remote' },
      { pick: 'Install com.example/tenant-remote@1.0.0' },
      { accept: true },
      { input: 'acme' },
      { input: 'k3y-in-the-box' },
      { pick: 'eu-west-1' },
      { pick: 'This workspace' },
    ],
  });
  assert.deepEqual(await run('mcpx.addServer', d), ['tenant-remote']);
  const search = ui.asked[1]!;
  assert.equal(search.title, 'mcpx: add a server from the MCP Registry');
  assert.ok(search.labels!.includes('com.example/tenant-remote'), 'listed as the person typed');
  assert.ok(
    reg.requests.some((u) => u.includes('search=tenant')),
    'the registry was asked with what was typed',
  );
  const secret = ui.asked.find((a) => a.title?.includes('X-API-Key'))!;
  assert.equal(secret.password, true, 'the secret in a password box');
  assert.equal(ui.asked.find((a) => a.title?.includes(': tenant'))!.password, undefined);
  assert.deepEqual(host.stored, { 'tenant-remote.X-API-Key': 'k3y-in-the-box' });
  const saved = JSON.parse(file.text!).servers['tenant-remote'];
  assert.deepEqual(saved, {
    type: 'http',
    url: 'https://acme.mcp.example.com/mcp',
    headers: { 'X-API-Key': '${secret:tenant-remote.X-API-Key}', 'X-Region': 'eu-west-1' },
    registry: {
      name: 'com.example/tenant-remote',
      version: '1.0.0',
      url: reg.url,
      inputs: { tenant: ['acme'], 'X-Region': ['eu-west-1'] },
      secrets: ['X-API-Key'],
    },
  });
  assert.ok(!file.text!.includes('k3y-in-the-box'));
  assert.match(
    ui.said('info').join('\n'),
    /the publisher's instructions \(shown, not run\): Sign up at https:\/\/example\.com first\./,
  );
  assert.ok(!ui.said('info').join('').includes(String.fromCharCode(27)), 'no escape sequence reaches a message');
});

test('a deprecated server is installed only when the person says so', async () => {
  const { host, file } = setup('database-manager');
  const { d, ui } = fakeDeps({
    host,
    parts: { mcpJson: () => file, registry: { stateDir: dir, sandboxAvailable: async () => undefined } },
    answers: [
      { pick: 'From the MCP Registry' },
      { search: 'database', pick: 'io.github.example/database-manager' },
      { pick: 'Install' },
    ],
  });
  assert.equal(await run('mcpx.addServer', d), undefined);
  assert.match(
    ui.said('warning')[0]!,
    /database-manager@3\.1\.0 is deprecated: use io\.github\.example\/database-manager-v2/,
  );
  assert.equal(file.text, undefined, 'nothing saved');
});

test('an mcpb bundle fetched, its sha256 checked, run sandboxed as chosen; a wrong sha256 is an error and nothing is saved', async () => {
  const v1 = ruggedBundle('1.0.0');
  reg.files.set('rugged-1.0.0.mcpb', v1.bytes);
  reg.entries.push(held(ruggedServer(reg.url, '1.0.0', v1.sha256)));
  const { host, file } = setup('rugged');
  const { d, ui } = fakeDeps({
    host,
    parts: { mcpJson: () => file, registry: { stateDir: dir, sandboxAvailable: async () => undefined } },
    answers: [
      { pick: 'From the MCP Registry' },
      { search: 'rugged', pick: RUGGED },
      { pick: 'Install' },
      { input: 'my-rug' },
      { pick: 'In a sandbox' },
      { pick: 'This workspace' },
    ],
  });
  setupName(host, 'my-rug');
  assert.deepEqual(await run('mcpx.addServer', d), ['my-rug']);
  const saved = JSON.parse(file.text!).servers['my-rug'];
  const bundle = join(dir, 'servers', 'my-rug', '1.0.0', 'bundle');
  assert.deepEqual(saved.args, [join(bundle, 'server.js'), '1.0.0']);
  assert.equal(saved.sandbox, true);
  assert.ok(existsSync(join(bundle, 'manifest.json')));
  assert.equal(ui.progress[0]!.title, 'mcpx: installing my-rug');

  reg.files.set('text-editor.mcpb', Buffer.from('not it'));
  const bad = setup('text-editor');
  const b = fakeDeps({
    host: bad.host,
    parts: { mcpJson: () => bad.file, registry: { stateDir: dir, sandboxAvailable: async () => undefined } },
    answers: [
      { pick: 'From the MCP Registry' },
      { search: 'text', pick: 'io.modelcontextprotocol/text-editor' },
      { pick: 'Install' },
      { accept: true },
      { pick: 'In a sandbox' },
    ],
  });
  assert.equal(await run('mcpx.addServer', b.d), undefined);
  assert.match(b.ui.said('error')[0]!, /its sha256 is [0-9a-f]{64}, not the fileSha256 server\.json gives/);
  assert.equal(bad.file.text, undefined);
});

/** The host reloads with `name` (not the suggested one) once the file is written. */
function setupName(host: ReturnType<typeof fakeHost>, name: string) {
  const g = host.gateway as FakeGateway;
  g.o.lists = { [name]: { tools: [{ name: 'rug' }] } };
  const was = g.o.servers;
  host.onDidChange(() => {
    if (g.o.servers !== was) g.o.servers = [status(name)];
  });
}

test('the Upstreams view marks a registry-installed server with its version and offers Update when the registry has a newer one; Update saves the new version where it was', async () => {
  const v1 = ruggedBundle('2.0.0');
  const v2 = ruggedBundle('2.1.0');
  reg.files.set('rugged-2.0.0.mcpb', v1.bytes);
  reg.files.set('rugged-2.1.0.mcpb', v2.bytes);
  for (const h of reg.entries) if (h.server.name === RUGGED) h.official.isLatest = false;
  reg.entries.push(held(ruggedServer(reg.url, '2.0.0', v1.sha256), { isLatest: false }));
  reg.entries.push(held(ruggedServer(reg.url, '2.1.0', v2.sha256)));
  const def = {
    type: 'stdio',
    command: 'node',
    args: ['/x/server.js', '2.0.0'],
    sandbox: false,
    registry: { name: RUGGED, version: '2.0.0', url: reg.url },
  };
  const { g, host } = setup('rug');
  g.o.servers = [status('rug')];
  (g as { config: unknown }).config = { ...g.config, servers: [{ ...def, name: 'rug', env: {} }] };
  const updates = new RegistryUpdates(dir);
  const tree = new UpstreamsTree(host, fakeKit, updates);
  try {
    let rows = await tree.getChildren();
    await until(() => updates.newer('rug'), { what: 'the check done' });
    rows = await tree.getChildren();
    const item = tree.getTreeItem(rows[0]!);
    assert.match(String(item.description), /v2\.0\.0 \(update: 2\.1\.0\)/);
    assert.match(String(item.contextValue), /^mcpx\.server\.stopped\.updatable/);
    assert.match(
      String(item.tooltip),
      /From the MCP Registry: io\.github\.mcpx-tests\/rugged@2\.0\.0 \(2\.1\.0 is out: Update\)/,
    );
  } finally {
    tree.dispose();
    updates.dispose();
  }
  const { d, ui, settings, shown } = fakeDeps({
    host,
    settings: { mcpx: { servers: { rug: def } } },
    parts: { registry: { stateDir: dir, sandboxAvailable: async () => undefined } },
  });
  ui.pressing((text) => (text.includes('update rug from 2.0.0 to 2.1.0') ? 'Update' : undefined));
  await run('mcpx.updateServer', d, 'rug');
  assert.equal(shown[0]!.title, 'rug: server.json 2.0.0 → 2.1.0');
  assert.match(
    (shown[0]!.result as unknown as string[]).join('\n'),
    /^-\s+"version": "2\.0\.0"\n\+\s+"version": "2\.1\.0"/m,
  );
  const saved = (settings.global.mcpx!.servers as Record<string, Record<string, unknown>>).rug!;
  assert.equal((saved.registry as { version: string }).version, '2.1.0');
  assert.equal(saved.sandbox, false, 'the sandbox choice kept');
  assert.deepEqual(saved.args, [join(dir, 'servers', 'rug', '2.1.0', 'bundle', 'server.js'), '2.1.0']);
});
