// The Upstreams view and what shows an upstream's health: the tree, a failed upstream in the status bar,
// its icon and its own log.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { drive, driven, shotTaken, test, type TreeNode } from './harness';
import { until } from '../harness/wait';

export const upstreamsTree = test('the upstreams tree shows the server with its state', async (x) => {
  await until(() => x.host.gateway?.servers().find((s) => s.name === 'up' && s.state === 'running'), {
    what: 'the upstream running',
    every: 100,
  });
  const roots = (await x.upstreams.getChildren()) as TreeNode[];
  const up = roots.find((n) => n.name === 'up')!;
  const item = await x.upstreams.getTreeItem(up);
  assert.match(String(item.description), /^running · 2025-11-25 · stdio$/);
  const groups = (await x.upstreams.getChildren(up)) as TreeNode[];
  assert.deepEqual(
    groups.map((g) => g.list),
    ['tools', 'prompts', 'resources', 'skills'],
  );
  const tools = ((await x.upstreams.getChildren(groups[0])) as TreeNode[]).map((n) => String(n.item?.name));
  for (const t of ['echo', 'elicit', 'roots']) assert.ok(tools.includes(t), t);
  await vscode.commands.executeCommand('mcpx.upstreams.focus');
  await driven({ shot: 'upstreams-tree' });
});

export const upstreamsSkills = test("the upstreams tree lists a server's skills, each by its name", async (x) => {
  const up = ((await x.upstreams.getChildren()) as TreeNode[]).find((n) => n.name === 'up')!;
  const group = ((await x.upstreams.getChildren(up)) as TreeNode[]).find((g) => g.list === 'skills')!;
  const rows = (await x.upstreams.getChildren(group)) as TreeNode[];
  assert.deepEqual(
    rows.map((r) => r.item?.uri),
    ['skill://release-notes/SKILL.md'],
  );
  const row = await x.upstreams.getTreeItem(rows[0]!);
  assert.equal(row.label, 'release-notes');
  assert.equal(row.description, 'skill://release-notes/SKILL.md');
  assert.match(String(row.tooltip), /^Write release notes from the changelog\n1 file\(s\), \d+ bytes/);
  assert.equal((row.iconPath as vscode.ThemeIcon).id, 'book');
});

export const failedUpstream =
  test('Editor polish: a failed upstream turns the status bar to a warning naming it; its icon and its own log', async (x) => {
    const cfg = vscode.workspace.getConfiguration('mcpx');
    try {
      await cfg.update(
        'servers',
        {
          broken: {
            type: 'stdio',
            command: process.execPath,
            args: ['-e', "console.error('boom on stderr'); process.exit(3)"],
          },
        },
        vscode.ConfigurationTarget.Global,
      );
      await until(() => x.host.gateway?.servers().some((s) => s.name === 'broken'), {
        what: 'the broken server configured',
        every: 100,
      });
      // Not awaited: the command ends when its error notification is dismissed.
      void vscode.commands.executeCommand('mcpx.restartUpstream', 'broken');
      await until(
        () =>
          x.status.backgroundColor instanceof vscode.ThemeColor &&
          x.status.backgroundColor.id === 'statusBarItem.warningBackground'
            ? true
            : undefined,
        { what: 'the warning', every: 100 },
      );
      assert.match(String(x.status.tooltip), /broken failed/);
      const node = ((await x.upstreams.getChildren()) as TreeNode[]).find((n) => n.name === 'broken')!;
      assert.equal(((await x.upstreams.getTreeItem(node)).iconPath as vscode.ThemeIcon).id, 'error');
      const own = await until(
        () => {
          const lines = x.upstreamLogs.recent.get('broken') ?? [];
          return lines.includes('boom on stderr') && lines.some((l) => l.startsWith('state: failed'))
            ? lines
            : undefined;
        },
        { what: 'its own log', every: 100 },
      );
      assert.ok(!(x.upstreamLogs.recent.get('up') ?? []).includes('boom on stderr'), 'nothing of it in the log of up');
      assert.ok(own.length > 1);
      await vscode.commands.executeCommand('mcpx.showUpstreamLog', node);
      await vscode.commands.executeCommand('notifications.hideList');
      const t0 = Date.now();
      drive({ see: ['.statusbar-item', 'mcpx'], shot: 'status-warning' });
      await shotTaken('status-warning', t0);
    } finally {
      await cfg.update('servers', undefined, vscode.ConfigurationTarget.Global);
      await until(() => (x.status.backgroundColor === undefined ? true : undefined), {
        what: 'no warning',
        every: 100,
      });
    }
  });
