// mcpx: Connect Agents… and Repair Agent Connections over the fakes (test/vscode-fakes/), on two fixture
// clients in a temporary home: the QuickPick lists what is found with the connected ones checked, the diff
// is shown before anything is written, --import puts the servers into mcpx.servers with their literal
// values in SecretStorage, unchecking disconnects, and the agents status item flags drift and repairs it.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { ENTRY } from '../../src/connect/client';
import { clientById } from '../../src/connect/clients/index';
import { type ConnectDeps, listClients } from '../../src/connect/engine';
import type { Places } from '../../src/connect/places';
import { SettingsStore } from '../../src/vscode/agents';
import { connectAgentsWith, repairAgentsWith } from '../../src/vscode/commands/connectAgents';
import { agentsStatus } from '../../src/vscode/views/agentsStatus';
import { repoRoot } from '../harness/gateway';
import { type Answer, fakeDeps, fakeKit } from '../vscode-fakes/editor';

const root = mkdtempSync(join(tmpdir(), 'mcpx-editor-connect-'));
after(() => rmSync(root, { recursive: true, force: true }));

const cursor = clientById('cursor')!;
const zed = clientById('zed')!;
const places: Places = { os: 'linux', home: root, env: { XDG_CONFIG_HOME: join(root, '.config') } };
const shim = { runtime: '/opt/code/code', script: '/ext/dist/cli.js', electron: true };
for (const [c, fixture] of [
  [cursor, 'cursor.json'],
  [zed, 'zed.jsonc'],
] as const) {
  mkdirSync(dirname(c.file(places)), { recursive: true });
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'connect', fixture), c.file(places));
}
const originals = [cursor, zed].map((c) => readFileSync(c.file(places)));
/** The user settings every run of the command shares (mcpx.servers already has a github). */
const USER: { mcpx: Record<string, unknown> } = { mcpx: { servers: { github: { command: 'own' } } } };

function harness(answers: Answer[]) {
  const f = fakeDeps({ answers, settings: USER });
  const shown: string[] = [];
  Object.assign(f.d.config, {
    openTextDocument: async (o: { content: string; language: string }) => ({ ...o }),
  });
  Object.assign(f.d.window, {
    showTextDocument: async (doc: { content: string }) => void shown.push(doc.content),
  });
  const env = (d: typeof f.d): ConnectDeps => ({
    places,
    stateDir: join(root, 'state'),
    shim,
    store: new SettingsStore(d),
  });
  return { ...f, shown, env };
}

test('Connect Agents…: the found agents, the diff before writing, --import into mcpx.servers and SecretStorage', async () => {
  const h = harness([{ pick: 'Cursor' }, { pick: 'Move their servers' }, { pick: 'Apply' }]);
  const outcomes = (await connectAgentsWith(h.env).run(h.d)) as Array<{ id: string; status: string }>;
  const list = h.ui.asked[0]!;
  assert.deepEqual(list.labels, ['Cursor', 'Zed'], 'only the agents found here');
  assert.equal(h.shown.length, 1, 'the diff was shown');
  assert.match(h.shown[0]!, /^--- .*\.cursor\/mcp\.json\n\+\+\+ /);
  assert.match(h.shown[0]!, /^\+ {4}"mcpx": \{$/m);
  assert.deepEqual(
    outcomes.map((o) => [o.id, o.status]),
    [['cursor', 'connected']],
  );
  const entry = (JSON.parse(readFileSync(cursor.file(places), 'utf8')) as { mcpServers: Record<string, unknown> })
    .mcpServers;
  assert.deepEqual(Object.keys(entry), [ENTRY]);
  assert.deepEqual(entry.mcpx, {
    command: '/opt/code/code',
    args: ['/ext/dist/cli.js', 'serve', '--transport', 'stdio'],
    env: { ELECTRON_RUN_AS_NODE: '1' },
  });
  // github clashed with mcpx.servers' own: renamed; its token in SecretStorage, referenced.
  const servers = h.settings.global.mcpx!.servers as Record<string, { env?: Record<string, string> }>;
  assert.deepEqual(Object.keys(servers).sort(), ['context7', 'cursor-github', 'github']);
  assert.deepEqual(servers['cursor-github']!.env, {
    GITHUB_PERSONAL_ACCESS_TOKEN: '${secret:cursor-github.GITHUB_PERSONAL_ACCESS_TOKEN}',
  });
  assert.equal(h.host.stored['cursor-github.GITHUB_PERSONAL_ACCESS_TOKEN'], 'ghp_fixture_token');
  assert.ok(!JSON.stringify(h.settings.writes).includes('ghp_fixture_token'), 'no secret in a setting');
  assert.match(
    h.ui.said('info')[0]!,
    /connected Cursor; moved into mcpx\.servers: cursor-github as|github as cursor-github/,
  );
});

test('cancelled at the diff: nothing is written', async () => {
  // The fake's pick of many returns the one item named: Zed checked, Cursor (connected) unchecked.
  const h = harness([{ pick: 'Zed' }, { pick: 'Keep their own' }, { pick: 'Cancel' }]);
  const before = [cursor, zed].map((c) => readFileSync(c.file(places)));
  assert.equal(await connectAgentsWith(h.env).run(h.d), undefined);
  assert.match(h.shown[0]!, /zed\/settings\.json/);
  assert.match(h.shown[0]!, /cursor\/mcp\.json/);
  for (const [i, c] of [cursor, zed].entries()) assert.equal(readFileSync(c.file(places)).compare(before[i]!), 0);
  assert.equal(h.ui.asked[0]!.labels!.length, 2);
});

test('unchecking a connected agent disconnects it: its file byte for byte, its servers out of mcpx.servers', async () => {
  const h = harness([{ pick: 'Zed' }, { pick: 'Keep their own' }, { pick: 'Apply' }]);
  const outcomes = (await connectAgentsWith(h.env).run(h.d)) as Array<{ id: string; status: string }>;
  assert.deepEqual(outcomes.map((o) => [o.id, o.status]).sort(), [
    ['cursor', 'disconnected'],
    ['zed', 'connected'],
  ]);
  assert.equal(readFileSync(cursor.file(places)).compare(originals[0]!), 0, 'Cursor byte-identical');
  assert.deepEqual(USER.mcpx.servers, { github: { command: 'own' } }, 'the imported servers taken out again');
  const zedText = readFileSync(zed.file(places), 'utf8');
  assert.ok(zedText.includes('// the older nested form'), 'comments kept');
  assert.ok(zedText.includes('"legacy"'), 'its own servers kept');
});

test('the status item counts connected agents, flags drift, and its click repairs it', async () => {
  const d: ConnectDeps = { places, stateDir: join(root, 'state'), shim };
  const created: Array<Record<string, unknown>> = [];
  const window = {
    createStatusBarItem: () => {
      const item: Record<string, unknown> = {
        show: () => (item.shown = true),
        hide: () => (item.shown = false),
        dispose() {},
      };
      created.push(item);
      return item;
    },
  };
  const s = agentsStatus(window as never, fakeKit, {
    list: async () => listClients(d, [cursor, zed]),
    watched: (rows) => rows.map((r) => r.file),
  });
  try {
    await s.refresh();
    const item = created[0]!;
    assert.equal(item.text, '$(link) agents 1');
    assert.equal(item.command, 'mcpx.connectAgents');
    // By hand: mcpx's entry in Zed's file changed.
    const file = zed.file(places);
    writeFileSync(file, zed.format.set(readFileSync(file, 'utf8'), ['context_servers', ENTRY], { command: 'x' }));
    await s.refresh();
    assert.equal(item.text, '$(warning) agents 0/1');
    assert.equal(item.command, 'mcpx.repairAgents');
    assert.match(String(item.tooltip), /Zed: mcpx's entry was changed by hand/);
    const h = harness([]);
    await repairAgentsWith(() => d).run(h.d);
    await s.refresh();
    assert.equal(item.text, '$(link) agents 1');
    assert.equal(listClients(d, [zed])[0]!.drift, undefined);
  } finally {
    s.dispose();
  }
});
