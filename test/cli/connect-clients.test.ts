// mcpx connect / disconnect on each client's file (src/connect/), from fixtures taken from each client's
// documented examples — comments where the format has them, other servers, unknown keys, tabs, four
// spaces, CRLF, a missing final newline: connect writes only mcpx's entry, again changes nothing, --dry-run
// writes nothing, --profile reaches the entry, --import moves the servers (a clashing name renamed, literal
// environment values into an owner-only env file), disconnect gives the file back byte for byte, and a
// malformed file is refused alone.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { type Client, ENTRY, type Json } from '../../src/connect/client';
import { CLIENTS, clientById } from '../../src/connect/clients/index';
import { type ConnectDeps, connectClients, disconnectClients, listClients } from '../../src/connect/engine';
import type { Places } from '../../src/connect/places';
import { type ShimFacts, shimCommand } from '../../src/connect/shim';
import { ConfigFileStore } from '../../src/connect/store';
import { repoRoot } from '../harness/gateway';

const root = mkdtempSync(join(tmpdir(), 'mcpx-connect-'));
after(() => rmSync(root, { recursive: true, force: true }));

const FIXTURE: Record<string, string> = {
  'claude-code': 'claude-code.json',
  'claude-desktop': 'claude-desktop.json',
  cursor: 'cursor.json',
  windsurf: 'windsurf.json',
  gemini: 'gemini.json',
  codex: 'codex.toml',
  copilot: 'copilot.json',
  zed: 'zed.jsonc',
  opencode: 'opencode.jsonc',
  cline: 'cline.json',
};

/** The servers --import leaves in each fixture's file (a literal header, an extension's own entry). */
const KEPT: Record<string, string[]> = { copilot: ['context7'], zed: ['postgres'] };

const SHIM: ShimFacts = { runtime: '/opt/node/bin/node', script: '/opt/mcpx/dist/cli.js', electron: false };
const SEED = '{\n  "servers": {\n    "github": { "command": "mcpx-own-github" }\n  }\n}\n';
let n = 0;

/** A home of its own with the client's fixture in place and an mcpx config that already has `github`. */
function setup(c: Client) {
  const home = join(root, `${c.id}-${n++}`);
  const places: Places = { os: 'linux', home, env: { XDG_CONFIG_HOME: join(home, '.config') } };
  const file = c.file(places);
  mkdirSync(dirname(file), { recursive: true });
  const original = readFileSync(join(repoRoot(), 'test', 'fixtures', 'connect', FIXTURE[c.id]!));
  writeFileSync(file, original);
  const config = join(home, 'mcpx.json');
  writeFileSync(config, SEED);
  const stateDir = join(home, 'state');
  const d: ConnectDeps = { places, stateDir, shim: SHIM, store: new ConfigFileStore(config, join(stateDir, 'env')) };
  return { d, file, original, config, stateDir };
}

const serversOf = (c: Client, text: string): Json => {
  const doc = c.format.parse(text);
  let s: unknown = doc;
  for (const k of c.serversPath(doc)) s = (s as Json)[k];
  return (s ?? {}) as Json;
};

/** The diff's removed and added lines. */
function changed(diff: string): { minus: string[]; plus: string[] } {
  const lines = diff.split('\n').filter((l) => !l.startsWith('---') && !l.startsWith('+++'));
  return { minus: lines.filter((l) => l.startsWith('-')), plus: lines.filter((l) => l.startsWith('+')) };
}

for (const c of CLIENTS) {
  describe(`${c.name} (${c.id})`, () => {
    test('connect writes the entry and nothing else; again changes nothing; disconnect restores the bytes', async () => {
      const { d, file, original } = setup(c);
      const [o] = await connectClients(d, [c], {});
      assert.equal(o!.status, 'connected');
      const after = readFileSync(file, 'utf8');
      const wanted = c.entry(shimCommand('linux', SHIM));
      assert.deepEqual(serversOf(c, after)[ENTRY], wanted);
      // Every server and every other key as it was.
      const before = c.format.parse(original.toString());
      assert.deepEqual(c.format.parse(c.format.remove(after, [...c.serversPath(before), ENTRY])), before);
      // Only lines added, but a comma after what was the last entry.
      const { minus, plus } = changed(o!.diff);
      assert.ok(
        plus.some((l) => l.includes('serve')),
        o!.diff,
      );
      assert.ok(minus.length <= 1, o!.diff);
      for (const m of minus) assert.ok(plus.includes(`+${m.slice(1)},`), o!.diff);
      assert.equal(after.includes('\r\n'), original.includes('\r\n'), 'line endings kept');
      assert.equal(after.endsWith('\n'), original.toString().endsWith('\n'), 'final newline kept as it was');

      const [again] = await connectClients(d, [c], {});
      assert.equal(again!.status, 'unchanged');
      assert.equal(again!.diff, '');
      assert.equal(readFileSync(file, 'utf8'), after, 'byte for byte');

      const row = listClients(d, [c])[0]!;
      assert.deepEqual([row.present, row.connected, row.drift], [true, true, undefined]);
      assert.equal(readFileSync(row.backup!).compare(original), 0, 'the backup is the file before');

      const [off] = await disconnectClients(d, [c]);
      assert.equal(off!.status, 'disconnected');
      assert.equal(readFileSync(file).compare(original), 0, 'byte-identical to the original');
      assert.equal(existsSync(row.backup!), false);
    });

    test('--dry-run prints the change as a diff and writes nothing', async () => {
      const { d, file, original, stateDir } = setup(c);
      const [o] = await connectClients(d, [c], { dryRun: true, import: true });
      assert.equal(o!.status, 'connected');
      assert.match(o!.diff, new RegExp(`^--- ${file.replace(/[.\\]/g, '\\$&')}\n\\+\\+\\+ `));
      assert.ok(changed(o!.diff).plus.some((l) => l.includes('--transport')));
      assert.ok(o!.imported.length > 0);
      assert.equal(readFileSync(file).compare(original), 0);
      assert.equal(existsSync(join(stateDir, 'connect')), false, 'no record, no backup');
    });

    test('--profile NAME reaches the entry; a changed entry is drift, and connect repairs it', async () => {
      const { d, file } = setup(c);
      await connectClients(d, [c], { profile: 'work' });
      const entry = serversOf(c, readFileSync(file, 'utf8'))[ENTRY];
      assert.deepEqual(entry, c.entry(shimCommand('linux', SHIM, 'work')));
      assert.match(JSON.stringify(entry), /"--profile","work"/);
      assert.equal(listClients(d, [c])[0]!.drift, undefined);
      // By hand: the entry changed, then removed.
      const path = c.serversPath(c.format.parse(readFileSync(file, 'utf8')));
      writeFileSync(file, c.format.set(readFileSync(file, 'utf8'), [...path, ENTRY], { command: 'other' }));
      assert.equal(listClients(d, [c])[0]!.drift, 'changed');
      writeFileSync(file, c.format.remove(readFileSync(file, 'utf8'), [...path, ENTRY]));
      assert.equal(listClients(d, [c])[0]!.drift, 'removed');
      await connectClients(d, [c], { profile: 'work' });
      assert.equal(listClients(d, [c])[0]!.drift, undefined);
    });

    test('--import moves its servers into mcpx config (a clash renamed, secrets kept out of it); disconnect undoes it', async () => {
      const { d, file, original, config } = setup(c);
      const own = Object.keys(serversOf(c, original.toString()));
      const [o] = await connectClients(d, [c], { import: true });
      const kept = KEPT[c.id] ?? [];
      assert.deepEqual(o!.kept.map((k) => k.name).sort(), [...kept].sort());
      assert.deepEqual(o!.imported.map((i) => i.name).sort(), own.filter((s) => !kept.includes(s)).sort());
      assert.deepEqual(Object.keys(serversOf(c, readFileSync(file, 'utf8'))).sort(), [...kept, ENTRY].sort());
      const mcpx = JSON.parse(readFileSync(config, 'utf8')) as { servers: Record<string, Json> };
      assert.deepEqual(mcpx.servers.github, { command: 'mcpx-own-github' }, "mcpx's own github stays");
      const gh = o!.imported.find((i) => i.name === 'github');
      if (gh) assert.equal(gh.as, `${c.id}-github`);
      const text = readFileSync(config, 'utf8');
      for (const secret of ['ghp_fixture_token', 'fixture-password', 'ctx7']) assert.ok(!text.includes(secret), secret);
      for (const def of Object.values(mcpx.servers))
        if (typeof def.envFile === 'string') assert.equal(statSync(def.envFile).mode & 0o777, 0o600);
      if (original.includes('ghp_fixture_token')) {
        const env = mcpx.servers[`${c.id}-github`]!.envFile as string;
        assert.match(readFileSync(env, 'utf8'), /ghp_fixture_token/);
      }

      const [off] = await disconnectClients(d, [c]);
      assert.equal(off!.stayed, undefined);
      assert.equal(readFileSync(file).compare(original), 0);
      assert.deepEqual(JSON.parse(readFileSync(config, 'utf8')), JSON.parse(SEED));
    });

    test('disconnect after other edits undoes only mcpx parts', async () => {
      const { d, file, original } = setup(c);
      await connectClients(d, [c], { import: true });
      const path = c.serversPath(c.format.parse(readFileSync(file, 'utf8')));
      writeFileSync(file, c.format.set(readFileSync(file, 'utf8'), [...path, 'added-by-hand'], { command: 'x' }));
      await disconnectClients(d, [c]);
      const now = serversOf(c, readFileSync(file, 'utf8'));
      assert.deepEqual(now['added-by-hand'], { command: 'x' });
      assert.equal(now[ENTRY], undefined);
      const was = serversOf(c, original.toString());
      for (const name of Object.keys(was)) assert.deepEqual(now[name], was[name], `${name} put back`);
    });

    test('a malformed file is refused, named and untouched; another client still connects', async () => {
      const { d, file } = setup(c);
      const broken = c.format.kind === 'toml' ? '[mcp_servers.x\ncommand = 1\n' : '{ "mcpServers": { "a": 1 }\n';
      writeFileSync(file, broken);
      const other = c.id === 'cursor' ? clientById('gemini')! : clientById('cursor')!;
      mkdirSync(dirname(other.file(d.places)), { recursive: true });
      const [bad, good] = await connectClients(d, [c, other], {});
      assert.equal(bad!.status, 'refused');
      assert.equal(bad!.file, file);
      assert.ok(bad!.problem, 'says what is wrong');
      assert.equal(readFileSync(file, 'utf8'), broken);
      assert.equal(good!.status, 'connected');
      assert.ok(existsSync(other.file(d.places)));
      assert.match(listClients(d, [c])[0]!.problem ?? '', /./);
    });
  });
}

test('a file mcpx created is removed again by disconnect', async () => {
  const c = clientById('gemini')!;
  const { d, file } = setup(c);
  rmSync(file);
  await connectClients(d, [c], {});
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), {
    mcpServers: { mcpx: c.entry(shimCommand('linux', SHIM)) },
  });
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(listClients(d, [c])[0]!.backup, null);
  await disconnectClients(d, [c]);
  assert.equal(existsSync(file), false);
});

test("--import maps each client's entries: references as ${env:…}, remote URLs by the client's own key, switched off as disabled", () => {
  const fixture = (id: string): Json => {
    const c = clientById(id)!;
    return serversOf(c, readFileSync(join(repoRoot(), 'test', 'fixtures', 'connect', FIXTURE[id]!), 'utf8'));
  };
  const read = (id: string, name: string) => clientById(id)!.read(fixture(id)[name]);
  const def = (id: string, name: string) => {
    const r = read(id, name);
    assert.ok(typeof r !== 'string', `${id}/${name}: ${String(r)}`);
    return r.def;
  };
  assert.deepEqual(def('claude-code', 'notion'), {
    type: 'http',
    url: 'https://mcp.notion.com/mcp',
    headers: { Authorization: 'Bearer ${env:NOTION_TOKEN}' },
  });
  assert.deepEqual(def('cursor', 'context7').headers, { CONTEXT7_API_KEY: '${env:CONTEXT7_API_KEY}' });
  assert.deepEqual(def('windsurf', 'figma'), { type: 'http', url: 'https://mcp.figma.com/mcp', disabled: true });
  assert.deepEqual(def('gemini', 'httpServer'), {
    type: 'http',
    url: 'https://api.example.com/mcp',
    headers: { Authorization: 'Bearer ${env:API_TOKEN}' },
  });
  assert.equal((clientById('gemini')!.read({ url: 'https://x.example/sse' }) as { def: Json }).def.type, 'sse');
  assert.deepEqual(def('codex', 'figma'), {
    type: 'http',
    url: 'https://mcp.figma.com/mcp',
    headers: { Authorization: 'Bearer ${env:FIGMA_OAUTH_TOKEN}' },
  });
  assert.deepEqual(def('opencode', 'jira'), { type: 'http', url: 'https://jira.example.com/mcp', disabled: true });
  const cline = read('cline', 'remote-server');
  assert.ok(typeof cline !== 'string');
  assert.deepEqual(cline.def, { type: 'http', url: 'https://your-server.com/mcp' });
  assert.deepEqual(cline.dropped, ['timeout']);
  assert.match(String(read('copilot', 'context7')), /header CONTEXT7_API_KEY holds a literal value/);
  // Local: the client's reference syntax, and literal values as secrets.
  assert.deepEqual(def('gemini', 'github').env, { GITHUB_PERSONAL_ACCESS_TOKEN: '${env:GITHUB_TOKEN}' });
  assert.deepEqual(def('opencode', 'github'), {
    command: 'npx',
    args: ['-y', '@modelcontextprotocol/server-github'],
    env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${env:GITHUB_TOKEN}' },
  });
  const codexGithub = read('codex', 'github');
  assert.ok(typeof codexGithub !== 'string');
  assert.deepEqual(codexGithub.def.env, { GITHUB_PERSONAL_ACCESS_TOKEN: '${env:GITHUB_PERSONAL_ACCESS_TOKEN}' });
  assert.deepEqual(codexGithub.secrets, { GITHUB_API_URL: 'https://api.github.com' });
  assert.deepEqual(codexGithub.dropped, ['startup_timeout_sec']);
  const zedLegacy = read('zed', 'legacy');
  assert.ok(typeof zedLegacy !== 'string');
  assert.deepEqual(zedLegacy.def, { command: 'legacy-mcp', args: ['--stdio'] });
  assert.match(String(read('zed', 'postgres')), /provided by a Zed extension/);
});
