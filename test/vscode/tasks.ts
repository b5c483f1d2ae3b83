// The Tasks view: a 2026-07-28 background call, 2025-11-25 tasks in every state, a palette call sent to
// the background, an mcpx_exec script with its calls.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { drive, driven, type Json, legacyClient, newId, pageTest, recorded, type TaskRow, test } from './harness';
import { until } from '../harness/wait';

export const backgroundCall = pageTest(
  "the Tasks view: a 2026-07-28 client's background call waiting for input, cancelled from the view",
  async (x) => {
    const url = x.endpoint()!;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2026-07-28',
        'Mcp-Method': 'tools/call',
        'Mcp-Name': 'mcpx_call',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 99,
        method: 'tools/call',
        params: {
          name: 'mcpx_call',
          arguments: { server: 'up', tool: 'elicit', arguments: { text: 'In the background?' } },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
          },
        },
      }),
    });
    const first = JSON.parse(await res.text()) as Json;
    assert.equal((first.result as Json).resultType, 'input_required');
    const rows = (await x.tasks.getChildren()) as TaskRow[];
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.label, 'tools/call mcpx_call up/elicit');
    assert.equal(
      rows[0]!.kind,
      'background',
      'a background call, not a task: the client did not declare the extension',
    );
    assert.equal(rows[0]!.contextValue, 'mcpx.background.input_required');
    assert.match(rows[0]!.description, /^waiting for input · started \d+ s ago · 1 round of questions$/);
    assert.equal(((await x.tasks.getTreeItem(rows[0]!)).iconPath as vscode.ThemeIcon).id, 'question');
    const cancelling = vscode.commands.executeCommand(
      rows[0]!.command!.command,
      ...(rows[0]!.command!.arguments ?? []),
    );
    drive({ pick: 'Cancel the call' });
    await cancelling;
    assert.deepEqual(await x.tasks.getChildren(), []);
  },
);

export const legacyTasks = pageTest(
  'the Tasks view: 2025-11-25 tasks working, failed, completed (Show Task Result) and cancelled from the view; a palette call sent to the background',
  async (x) => {
    const url = x.endpoint()!;
    const client = await legacyClient(url, 'legacy-agent');
    const other = await legacyClient(url, 'other-agent');
    const start = async (tool: string, args: Json, by = client) => {
      const r = await by('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool, arguments: args },
        task: {},
        _meta: { progressToken: `p-${newId()}` },
      });
      return String((r.task as Json).taskId);
    };
    const rows = async () => (await x.tasks.getChildren()) as TaskRow[];
    const rowOf = (id: string, state: string) => async () =>
      (await rows()).find((r) => r.id === id && r.state === state);
    const icon = async (r: TaskRow) => ((await x.tasks.getTreeItem(r)).iconPath as vscode.ThemeIcon).id;

    const long = await start('slow', { ms: 120_000, steps: 60 });
    const short = await start('slow', { ms: 300 });
    const broken = await start('error', {});
    const kept = await start('slow', { ms: 120_000, steps: 60 }, other);
    const working = await until(rowOf(long, 'working'), { what: 'the long task working', every: 100 });
    assert.equal(working.kind, 'task');
    assert.equal(working.label, 'tools/call mcpx_call up/slow');
    assert.match(working.description, /^working · legacy-agent · (\d+\/60 · )?started \d+ s ago$/);
    assert.equal(working.contextValue, 'mcpx.task.working');
    assert.equal(await icon(working), 'sync~spin');
    const completed = await until(rowOf(short, 'completed'), { what: 'the short task completed', every: 100 });
    assert.match(completed.description, /^completed · legacy-agent · ended \d+ s ago$/);
    assert.equal(completed.contextValue, 'mcpx.task.completed');
    assert.equal(await icon(completed), 'check');
    const failed = await until(rowOf(broken, 'failed'), { what: 'the failing task failed', every: 100 });
    assert.equal(await icon(failed), 'error');

    // A palette call sent to the background from its progress notification's "Run in background".
    const palette = vscode.commands.executeCommand('mcpx.callTool', 'up', 'slow');
    drive({ fill: '15000' }, { fill: '' }, { pick: 'Accept' }, { pick: 'Allow once' });
    await until(
      () =>
        recorded().some(
          (f) => f.method === 'tools/call' && ((f.params as Json).arguments as Json | undefined)?.ms === 15000,
        ),
      { what: 'the palette call upstream', every: 100 },
    );
    await vscode.commands.executeCommand('notifications.showList');
    drive({ link: 'Run in background' });
    await palette; // the command ends once the call is detached
    await vscode.commands.executeCommand('notifications.hideList');
    const detached = await until(
      async () => (await rows()).find((r) => r.kind === 'palette' && r.state === 'working'),
      { what: 'the palette call in the Tasks view', every: 100 },
    );
    assert.equal(detached.label, 'tools/call slow');
    assert.match(detached.description, /^up · working · palette · (\d+\/2 · )?started \d+ s ago$/);

    // Cancel from the view: the row's inline action (shown only on rows still running).
    await vscode.commands.executeCommand('mcpx.tasks.focus');
    drive({ rowAction: [['legacy-agent', 'working'], 'Cancel Task'] });
    const cancelled = await until(rowOf(long, 'cancelled'), { what: 'the long task cancelled', every: 100 });
    assert.equal(x.host.tasks?.find(long)?.status, 'cancelled');
    assert.match(cancelled.description, /^cancelled · legacy-agent · ended \d+ s ago$/);
    assert.equal(cancelled.contextValue, 'mcpx.task.cancelled');
    assert.equal(await icon(cancelled), 'circle-slash');
    assert.equal((await client('tasks/get', { taskId: long })).status, 'cancelled', 'the client sees it cancelled');
    assert.equal(x.host.tasks?.find(kept)?.status, 'working', 'only that one');

    // The view with every state in it, wide enough to read.
    await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('mcpx.tasks.focus');
    for (let i = 0; i < 3; i++) await vscode.commands.executeCommand('workbench.action.increaseViewSize');
    await driven(
      { row: ['palette', 'working'] },
      { row: ['other-agent', 'working'] },
      { row: ['legacy-agent', 'cancelled'] },
      { shot: 'tasks-view' },
    );
    for (let i = 0; i < 3; i++) await vscode.commands.executeCommand('workbench.action.decreaseViewSize');

    // Show Task Result on the completed task: the result in a read-only editor, as from the palette.
    await vscode.commands.executeCommand('mcpx.showTaskResult', completed);
    const editor = await until(
      () =>
        vscode.window.activeTextEditor?.document.getText().includes('slept 300ms')
          ? vscode.window.activeTextEditor
          : undefined,
      { what: 'the task result editor', every: 100 },
    );
    assert.equal(editor.document.uri.scheme, 'mcpx-result');
    // The palette call finishes on its own; its result is shown the same way.
    const done = await until(rowOf(detached.id, 'completed'), {
      what: 'the palette call completed',
      every: 100,
      timeout: 30_000,
    });
    await vscode.commands.executeCommand('mcpx.showTaskResult', done);
    await until(
      () => (vscode.window.activeTextEditor?.document.getText().includes('slept 15000ms') ? true : undefined),
      { what: 'the palette call result', every: 100 },
    );
    // The contributed command on a row, as its context menu runs it.
    await vscode.commands.executeCommand(
      'mcpx.cancelTask',
      await until(rowOf(kept, 'working'), { what: 'the kept task', every: 100 }),
    );
    await until(rowOf(kept, 'cancelled'), { what: 'the kept task cancelled', every: 100 });
  },
);

export const execScript = test(
  "the Tasks view: a running mcpx_exec script with the calls it has made so far (its sandboxed child under the editor's runtime)",
  async (x) => {
    const client = await legacyClient(x.endpoint()!, 'exec-agent');
    const script =
      "await mcpx.call('up', 'echo', { text: 'a' }); await mcpx.servers.up.slow({ ms: 4000 }); return 'script done';";
    const pending = client('tools/call', { name: 'mcpx_exec', arguments: { script } });
    const rows = async () => (await x.tasks.getChildren()) as TaskRow[];
    const callsOf = async (r: TaskRow) => ((await x.tasks.getChildren(r)) ?? []) as TaskRow[];
    const run = await until(
      async () => {
        const r = (await rows()).find((row) => row.kind === 'exec');
        return r && (await callsOf(r)).length === 2 ? r : undefined;
      },
      { what: 'the script in the Tasks view with its two calls', every: 100 },
    );
    assert.equal(run.label, 'mcpx_exec script');
    assert.match(run.description, /^working · exec-agent · 2 calls · started \d+ s ago$/);
    assert.equal((await x.tasks.getTreeItem(run)).collapsibleState, vscode.TreeItemCollapsibleState.Expanded);
    assert.deepEqual(
      (await callsOf(run)).map((c) => [c.label, c.description]),
      [
        ['up/echo', 'completed'],
        ['up/slow', 'working'],
      ],
    );
    const result = await pending;
    assert.equal((result.structuredContent as Json).result, 'script done', JSON.stringify(result));
    await until(async () => ((await rows()).some((r) => r.kind === 'exec') ? undefined : true), {
      what: 'the script gone from the view',
      every: 100,
    });
  },
  { smoke: true },
);
