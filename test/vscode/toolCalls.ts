// Tool calls from the editor: the palette, a tool row's click and context menu, the approval of each call
// (the permission check's editor rule: a read-only hint is the server's claim), results in read-only editors with their media; Get Prompt…, Read Resource…,
// Open Server Config….
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { drive, driven, pageTest, test, toolNodes, upCalls } from './harness';
import { stays, until } from '../harness/wait';

export const paletteCall = pageTest(
  'a palette tool call end to end: server, tool, arguments through the form, the result in an editor',
  async () => {
    const done = vscode.commands.executeCommand('mcpx.callTool', 'up', 'echo');
    // echo says it is read-only: the server's claim, so the palette asks all the same.
    drive({ fill: 'hello from the palette' }, { pick: 'Accept' }, { pick: 'Allow once' });
    await done;
    const editor = await until(
      () =>
        vscode.window.activeTextEditor?.document.getText().includes('hello from the palette')
          ? vscode.window.activeTextEditor
          : undefined,
      { what: 'the result editor', every: 100 },
    );
    assert.match(editor.document.getText(), /"text": "hello from the palette"/);
    assert.equal(editor.document.uri.scheme, 'mcpx-result', 'a read-only document, not an untitled one');
    await driven({ shot: 'tool-result' });
  },
);

export const mediaAndOpenConfig =
  test('images and audio of a result render in a webview beside it; Open Server Config… opens the entry', async () => {
    const rich = vscode.commands.executeCommand('mcpx.callTool', 'up', 'rich');
    drive({ pick: 'Allow once' });
    await rich;
    const tab = await until(
      () =>
        vscode.window.tabGroups.all
          .flatMap((g) => g.tabs)
          .find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('mcpx.result')),
      { what: 'the media panel', every: 100 },
    );
    assert.match(tab.label, /up · rich: media/);
    await driven({ shot: 'tool-result-media' });
    await vscode.commands.executeCommand('mcpx.openConfig', 'up');
    const editor = await until(
      () =>
        vscode.window.activeTextEditor?.document.uri.path.endsWith('.vscode/mcp.json')
          ? vscode.window.activeTextEditor
          : undefined,
      { what: 'mcp.json open at the entry', every: 100 },
    );
    assert.match(editor.document.lineAt(editor.selection.active.line).text, /"up"/);
  });

export const promptAndResource = pageTest(
  'Get Prompt… and Read Resource… from the palette, results in read-only editors',
  async () => {
    const prompt = vscode.commands.executeCommand('mcpx.getPrompt');
    drive({ pick: 'greet' }, { fill: 'Ada' }, { pick: 'Accept' });
    await prompt;
    await until(() => (vscode.window.activeTextEditor?.document.getText().includes('Hello, Ada!') ? true : undefined), {
      what: 'the prompt in an editor',
      every: 100,
    });
    const read = vscode.commands.executeCommand('mcpx.readResource');
    drive({ pick: 'fixture://doc' });
    await read;
    const editor = await until(
      () =>
        vscode.window.activeTextEditor?.document.getText().startsWith('doc body')
          ? vscode.window.activeTextEditor
          : undefined,
      { what: 'the resource in an editor', every: 100 },
    );
    assert.equal(editor.document.uri.scheme, 'mcpx-result');
  },
);

export const contextMenuCall =
  test("Editor polish: Call Tool from a tool's context menu (the row itself as the argument) calls that tool", async (x) => {
    // Listing its tools starts the server if nothing has yet.
    const echo = await until(async () => (await toolNodes(x, 'up')).find((n) => n.item?.name === 'echo'), {
      what: 'the echo row',
      every: 100,
    });
    // The menu hands the command the row it was opened on.
    const done = vscode.commands.executeCommand('mcpx.callTool', echo);
    drive({ fill: 'from the context menu' }, { pick: 'Accept' }, { pick: 'Allow once' });
    await done;
    const editor = await until(
      () =>
        vscode.window.activeTextEditor?.document.getText().includes('"text": "from the context menu"')
          ? vscode.window.activeTextEditor
          : undefined,
      { what: 'the result editor', every: 100 },
    );
    assert.equal(editor.document.uri.scheme, 'mcpx-result');
  });

export const toolTrust =
  test("Editor polish: a tool's hints show as the server's own words; a call asks first (the editor's palette rule, through the permission check): denied, allowed once, always allowed (a workspace grant), revoked in Manage Permissions", async (x) => {
    const tools = await toolNodes(x, 'up');
    const item = async (name: string) => x.upstreams.getTreeItem(tools.find((n) => n.item?.name === name)!);
    const echo = await item('echo');
    assert.match(String(echo.description), /read-only/);
    assert.match(String(echo.tooltip), /The server says \(untrusted hints\):\n- read-only \(readOnlyHint: true\)/);
    assert.equal((echo.iconPath as vscode.ThemeIcon).id, 'eye');
    const count = await item('count');
    assert.match(String(count.tooltip), /The server says nothing about this tool/);

    const before = upCalls('count');
    const granted = () => x.grants.list().some((g) => g.server === 'up' && g.tool === 'count');
    const denied = vscode.commands.executeCommand('mcpx.callTool', 'up', 'count');
    drive(
      { title: 'mcpx:editor wants to call up/count from the palette' },
      { shot: 'tool-confirmation', when: 'quick' },
      { pick: 'Deny' },
    );
    await denied;
    await stays(() => upCalls('count') === before, { for: 500, what: 'denied: nothing reached the upstream' });

    const once = vscode.commands.executeCommand('mcpx.callTool', 'up', 'count');
    drive({ pick: 'Allow once' });
    await once;
    await until(() => upCalls('count') === before + 1, { what: 'the call allowed once', every: 100 });
    assert.equal(granted(), false);

    const always = vscode.commands.executeCommand('mcpx.callTool', 'up', 'count');
    drive({ pick: 'Always allow' });
    await always;
    await until(() => upCalls('count') === before + 2, { what: 'the call always allowed', every: 100 });
    assert.equal(granted(), true, 'a grant in workspaceState');
    // Remembered: no question this time.
    await vscode.commands.executeCommand('mcpx.callTool', 'up', 'count');
    await until(() => upCalls('count') === before + 3, { what: 'the remembered call', every: 100 });

    const revoked = vscode.commands.executeCommand('mcpx.managePermissions');
    drive({ pick: 'Revoke always-allow grants' }, { pick: 'tool up/count' }, { key: 'Enter' });
    assert.equal(await revoked, 1);
    assert.equal(granted(), false);
    const asksAgain = vscode.commands.executeCommand('mcpx.callTool', 'up', 'count');
    drive({ pick: 'Deny' });
    await asksAgain;
    assert.equal(upCalls('count'), before + 3);
  });
