// Pins in the editor (docs/gateway.md "Pins", docs/commands.md): a server whose tool `rug` changes its
// description after it was first listed (the fixture's --rug description; its tool `pull` changes it and
// says so) → the notification names the server and the count, the Upstreams row is marked held, Review
// opens VS Code's diff editor with the pinned and the new definition, Accept → the mark goes and the new
// description is listed.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { type Exports, drive, fixtureArgs, mcp, pageTest, shotTaken, textOf, toolNodes } from './harness';
import { until } from '../harness/wait';

const rugNode = async (x: Exports) => (await toolNodes(x, 'rug')).find((n) => n.item?.name === 'rug');

export const heldTool = pageTest(
  'Pins: a changed tool held — the notification, the held mark, the diff editor with both versions, Accept',
  async (x) => {
    const cfg = vscode.workspace.getConfiguration('mcpx');
    try {
      await cfg.update(
        'servers',
        { rug: { type: 'stdio', command: process.execPath, args: fixtureArgs('rug', '--rug', 'description') } },
        vscode.ConfigurationTarget.Global,
      );
      await until(() => x.host.gateway?.servers().some((s) => s.name === 'rug'), {
        what: 'rug configured',
        every: 100,
      });
      // First listed (which starts it): pinned, nothing marked.
      const first = await until(() => rugNode(x), { what: 'rug listed', every: 100 });
      assert.equal(first.held, undefined);
      assert.doesNotMatch(JSON.stringify(first.item), /id_rsa/);

      // The upstream changes rug's description and says so: held.
      const pulled = await mcp(x.endpoint()!, 'tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'rug', tool: 'pull', arguments: {} },
      });
      assert.equal(textOf(pulled), 'pulled');
      const said = await until(() => x.pins.announced.find((m) => m.includes('rug')), {
        what: 'the notification',
        every: 100,
      });
      assert.equal(
        said,
        'mcpx: rug has 1 tool definition (rug) changed since pinned; held (not offered in the new form) until you review.',
      );
      const held = await until(
        async () => {
          const n = await rugNode(x);
          return n?.held ? n : undefined;
        },
        { what: 'the held mark', every: 100 },
      );
      assert.equal(held.held, 'changed');
      const row = await x.upstreams.getTreeItem(held);
      assert.equal(row.description, 'held: changed since pinned');
      assert.equal(row.contextValue, 'mcpx.tools.held');
      assert.match(String(row.tooltip), /Review Held Tools/);
      assert.doesNotMatch(JSON.stringify(held.item), /id_rsa/, 'listed in its pinned form');

      // Review: the diff editor, the pinned form left, the new one right.
      // A toast with buttons hides after a while: its button is pressed in the notifications center.
      await vscode.commands.executeCommand('notifications.showList');
      drive({ toast: 'Review', has: 'rug has 1 tool definition' });
      const diff = await until(
        () => {
          const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
          return input instanceof vscode.TabInputTextDiff && input.original.scheme === 'mcpx-pins' ? input : undefined;
        },
        { what: 'the diff editor', every: 100, timeout: 40_000 },
      );
      assert.equal(vscode.window.tabGroups.activeTabGroup.activeTab?.label, 'rug/rug: pinned ↔ new (held)');
      const pinned = (await vscode.workspace.openTextDocument(diff.original)).getText();
      const now = (await vscode.workspace.openTextDocument(diff.modified)).getText();
      assert.match(pinned, /Echoes its text\./);
      assert.doesNotMatch(pinned, /id_rsa/);
      assert.match(now, /id_rsa/);
      // Room for the two sides (VS Code shows a narrow diff editor inline): the side bars closed.
      await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
      await vscode.commands.executeCommand('workbench.action.closeSidebar');
      const t0 = Date.now();
      drive(
        { see: ['.monaco-diff-editor .editor.original', 'Echoes'] },
        { see: ['.monaco-diff-editor .editor.modified', 'id_rsa'], shot: 'pins-diff' },
      );
      await shotTaken('pins-diff', t0);

      // Accept: the mark goes, the new description is listed.
      await vscode.commands.executeCommand('notifications.showList');
      drive({ toast: 'Accept', has: 'accept the changed tool rug/rug' });
      const accepted = await until(
        async () => {
          const n = await rugNode(x);
          return n && !n.held && String(n.item?.description).includes('id_rsa') ? n : undefined;
        },
        { what: 'accepted', every: 100 },
      );
      assert.equal((await x.upstreams.getTreeItem(accepted)).contextValue, 'mcpx.tools');
    } finally {
      await vscode.commands.executeCommand('notifications.hideList');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand('workbench.view.explorer');
      await cfg.update('servers', undefined, vscode.ConfigurationTarget.Global);
    }
  },
);
