// The editor's views (src/vscode/views/) in plain Node: the tree items they make for each state, with
// VS Code's classes stood in for (test/vscode-fakes/), over a hand-written GatewayFacade and task
// stores — and the Upstreams view over a real Gateway with the fixture upstream.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { EDITOR_IDENTITY } from '../../src/vscode/editorCall';
import { type UpstreamNode, UpstreamsTree } from '../../src/vscode/views/upstreams';
import { fakeKit } from '../vscode-fakes/editor';
import { FakeGateway, fakeHost } from '../vscode-fakes/host';
const { Collapsed, None } = { Collapsed: 1, None: 0 };

after(() => killAll());

interface Item {
  label: string;
  collapsibleState: number;
  description?: string;
  tooltip?: string;
  iconPath?: { id: string; color?: { id: string } };
  contextValue?: string;
  id?: string;
  command?: { command: string; arguments?: unknown[] };
}
const item = (x: unknown) => x as Item;
describe('the Upstreams view', () => {
  const servers = [
    { name: 'live', scope: 'shared', state: 'running' as const, revision: '2025-11-25', transport: 'stdio' },
    { name: 'booting', scope: 'shared', state: 'starting' as const, transport: 'http' },
    { name: 'broken', scope: 'shared', state: 'failed' as const, lastError: 'exited with code 3', transport: 'stdio' },
    { name: 'idle', scope: 'shared', state: 'stopped' as const, transport: 'stdio' },
    { name: 'locked', scope: 'shared', state: 'stopped' as const, transport: 'http' },
    { name: 'secure', scope: 'shared', state: 'running' as const, revision: '2025-06-18', transport: 'http' },
  ];
  const g = new FakeGateway({
    servers,
    signIn: { locked: 'needs-sign-in', secure: 'signed-in' },
    lists: {
      live: {
        tools: [
          {
            name: 'read',
            title: 'Read',
            description: 'Reads',
            annotations: { readOnlyHint: true, openWorldHint: false },
          },
          { name: 'wipe', annotations: { destructiveHint: true, idempotentHint: true } },
          { name: 'plain' },
        ],
        prompts: [],
        resources: 'the server is gone',
        skills: [
          {
            uri: 'skill://pdf-processing/SKILL.md',
            frontmatter: { name: 'pdf-processing', description: 'Fill PDF forms' },
            resources: [
              {
                uri: 'skill://pdf-processing/SKILL.md',
                digest: 'sha256:abababababababababababababababababababababababababababababababab',
                size: 100,
              },
              {
                uri: 'skill://pdf-processing/FORMS.md',
                digest: 'sha256:abababababababababababababababababababababababababababababababab',
                size: 20,
              },
            ],
          },
        ],
      },
    },
  });
  const tree = new UpstreamsTree(fakeHost({ gateway: g }), fakeKit);
  after(() => tree.dispose());

  test('a row per server: an icon, a description and a context value for each state and sign-in', async () => {
    const roots = await tree.getChildren();
    const rows = roots.map((n) => {
      const t = item(tree.getTreeItem(n));
      return [t.label, t.description, t.iconPath?.id, t.contextValue, t.collapsibleState, t.id];
    });
    assert.deepEqual(rows, [
      ['live', 'running · 2025-11-25 · stdio', 'pass-filled', 'mcpx.server.running', Collapsed, 'server:live'],
      ['booting', 'starting · http', 'loading~spin', 'mcpx.server.starting', Collapsed, 'server:booting'],
      ['broken', 'failed: exited with code 3 · stdio', 'error', 'mcpx.server.failed', Collapsed, 'server:broken'],
      ['idle', 'stopped · stdio', 'circle-outline', 'mcpx.server.stopped', Collapsed, 'server:idle'],
      [
        'locked',
        'needs sign-in · http',
        'account',
        'mcpx.server.needs-sign-in.needsSignIn',
        Collapsed,
        'server:locked',
      ],
      [
        'secure',
        'running · signed in · 2025-06-18 · http',
        'pass-filled',
        'mcpx.server.running.signedIn',
        Collapsed,
        'server:secure',
      ],
    ]);
    assert.equal(item(tree.getTreeItem(roots[2]!)).tooltip, 'broken: failed — exited with code 3');
  });

  test("a server's lists; each tool with its hints as the server's own words, an icon for the strongest, Call Tool… on a click", async () => {
    const live = (await tree.getChildren())[0]!;
    const groups = await tree.getChildren(live);
    assert.deepEqual(
      groups.map((n) => item(tree.getTreeItem(n)).label),
      ['tools', 'prompts', 'resources', 'skills'],
    );
    const tools = (await tree.getChildren(groups[0])).map((n) => item(tree.getTreeItem(n)));
    assert.deepEqual(
      tools.map((t) => [t.label, t.description, t.iconPath?.id, t.contextValue, t.collapsibleState]),
      [
        ['read', 'Read · read-only', 'eye', 'mcpx.tools', None],
        ['wipe', 'destructive · idempotent', 'warning', 'mcpx.tools', None],
        ['plain', undefined, 'tools', 'mcpx.tools', None],
      ],
    );
    assert.equal(
      tools[0]!.tooltip,
      'Reads\n\nThe server says (untrusted hints):\n- read-only (readOnlyHint: true)\n- closed world (openWorldHint: false)',
    );
    assert.equal(tools[2]!.tooltip, 'plain\n\nThe server says nothing about this tool.');
    assert.deepEqual(tools[1]!.command, { command: 'mcpx.callTool', title: 'Call Tool…', arguments: ['live', 'wipe'] });
    assert.deepEqual(
      (await tree.getChildren(groups[1])).map((n) => item(tree.getTreeItem(n)).label),
      ['no prompts'],
    );
    assert.deepEqual(
      (await tree.getChildren(groups[2])).map((n) => item(tree.getTreeItem(n)).label),
      ['the server is gone'],
    );
    // A skill by its name, its URI beside it; its description and files in the tooltip.
    const skills = (await tree.getChildren(groups[3])).map((n) => item(tree.getTreeItem(n)));
    assert.deepEqual(
      skills.map((s) => [s.label, s.description, s.iconPath?.id, s.contextValue]),
      [['pdf-processing', 'skill://pdf-processing/SKILL.md', 'book', 'mcpx.skills']],
    );
    assert.equal(
      skills[0]!.tooltip,
      'Fill PDF forms\n2 file(s), 120 bytes, each checked against its SHA-256 when read.',
    );
    assert.deepEqual(
      g.calls.filter((c) => c[0] === 'serverList').map((c) => c[3]),
      [EDITOR_IDENTITY, EDITOR_IDENTITY, EDITOR_IDENTITY, EDITOR_IDENTITY],
      'listed as the editor',
    );
  });

  test('no gateway: one row says why; a change of the host refreshes the view', async () => {
    const host = fakeHost({ whyStopped: 'mcpx.autoStart is off' });
    const stopped = new UpstreamsTree(host, fakeKit);
    const rows = await stopped.getChildren();
    assert.deepEqual(
      rows.map((n) => item(stopped.getTreeItem(n)).label),
      ['The gateway is not running: mcpx.autoStart is off'],
    );
    let refreshed = 0;
    stopped.onDidChangeTreeData(() => refreshed++);
    host.changed();
    assert.equal(refreshed, 1);
    stopped.dispose();
    host.changed();
    assert.equal(refreshed, 1, 'disposed: no longer listening');
  });

  test('over a real gateway: the fixture running, its echo tool read-only by its own word', async () => {
    const gw = await gatewayFor({ up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) });
    try {
      const real = new UpstreamsTree(fakeHost({ gateway: gw.g }), fakeKit);
      const [up] = await real.getChildren();
      assert.equal(item(real.getTreeItem(up!)).description, 'stopped · stdio', 'not started until something asks');
      const [tools] = await real.getChildren(up);
      const echo = (await real.getChildren(tools)).find(
        (n: UpstreamNode) => n.kind === 'item' && n.item.name === 'echo',
      )!;
      assert.deepEqual(
        [item(real.getTreeItem(echo)).description, item(real.getTreeItem(echo)).iconPath?.id],
        ['Echo · read-only', 'eye'],
      );
      const [upNow] = await real.getChildren();
      assert.equal(item(real.getTreeItem(upNow!)).description, 'running · 2025-11-25 · stdio');
      real.dispose();
    } finally {
      await gw.close();
    }
  });
});
