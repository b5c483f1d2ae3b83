// MCP Apps in the editor through a real gateway over the fixture upstream (--app), in plain Node with the
// editor's ports faked (test/vscode-fakes/): a palette call of an app tool, and Show App on an agent's
// call or task, hand the app that call's tool, input and result; the views offer Show App only on an app
// tool's call, and drawing them never starts an upstream (the panel itself: test/vscode/apps.ts).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { invoke } from '../../src/vscode/commands/command';
import { COMMANDS } from '../../src/vscode/commands/table';
import { activityRows } from '../../src/vscode/views/activity';
import { taskRows } from '../../src/vscode/views/tasks';
import { type TestGateway, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient } from '../harness/wire';
import { fakeDeps, fakePerson } from '../vscode-fakes/editor';
import { fakeHost } from '../vscode-fakes/host';
import { stays } from '../harness/wait';

after(() => killAll());

const run = (id: string, d: Parameters<typeof invoke>[1], ...args: unknown[]) => invoke(COMMANDS[id]!, d, args);

describe('apps through a real gateway (the fixture upstream with --app)', () => {
  let gw: TestGateway;
  const start = async () =>
    (gw ??= await gatewayFor({ up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--app']) }));
  after(() => gw?.close());

  test("a palette call of an app tool opens its app with the tool's definition, its input and its result; another tool's result goes to an editor", async () => {
    await start();
    const { person } = fakePerson([
      { action: 'accept', content: { text: 'from the palette' } },
      { action: 'accept', content: { text: 'plain' } },
    ]);
    const { d, apps, shown } = fakeDeps({ host: fakeHost({ gateway: gw.g }), parts: { person } });
    await run('mcpx.callTool', d, 'up', 'app_show');
    assert.equal(apps.length, 1);
    assert.equal(apps[0]!.server, 'up');
    assert.deepEqual(apps[0]!.tool._meta, { ui: { resourceUri: 'ui://fixture/app.html' } });
    assert.deepEqual(apps[0]!.input, { text: 'from the palette' });
    assert.deepEqual(apps[0]!.result?.content, [{ type: 'text', text: 'shown: from the palette' }]);
    assert.equal(shown.length, 0, 'no text editor for it');
    assert.equal(d.apps.has('up', 'app_show'), true, 'the palette taught the index');
    assert.equal(d.apps.has('up', 'echo'), false);
    await run('mcpx.callTool', d, 'up', 'echo');
    assert.equal(apps.length, 1);
    assert.deepEqual(shown[0]!.result.content, [{ type: 'text', text: 'plain' }]);
  });

  test('an app that cannot be opened: the result in an editor, and the reason', async () => {
    await start();
    const { person } = fakePerson([{ action: 'accept', content: { text: 'x' } }]);
    const { d, ui, shown } = fakeDeps({
      host: fakeHost({ gateway: gw.g }),
      parts: {
        person,
        apps: {
          has: () => true,
          onDidChange: () => ({ dispose: () => undefined }),
          definition: async () => undefined,
          learn: () => undefined,
          open: async () => {
            throw new Error('no webview here');
          },
        },
      },
    });
    await run('mcpx.callTool', d, 'up', 'app_show');
    assert.deepEqual(ui.said('warning'), ['mcpx: up · app_show: its app could not be shown: no webview here']);
    assert.deepEqual(shown[0]!.result.content, [{ type: 'text', text: 'shown: x' }]);
  });

  test("Show App on an agent's call (its Activity row) opens the app with that call's input and result; the rows offer it only for an app tool", async () => {
    await start();
    const c = new HttpClient(gw.url, '2025-11-25');
    await c.initialize();
    const call = async (tool: string, text: string) =>
      (await c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'up', tool, arguments: { text } } }))
        .result;
    assert.deepEqual((await call('app_show', 'from an agent'))?.content, [
      { type: 'text', text: 'shown: from an agent' },
    ]);
    await call('echo', 'e');
    const { d, apps, ui } = fakeDeps({ host: fakeHost({ gateway: gw.g }) });
    const [echoCall, appCall] = gw.g.activity.recent({}, 2);
    assert.equal(appCall!.target, 'app_show');
    // The index knows no server yet: the rows say no app until it has listed it, then tell the view.
    const told = new Promise<void>((r) => d.apps.onDidChange(() => r()));
    const before = activityRows([appCall!], {}, (s, t) => d.apps.has(s, t));
    assert.equal(before[0]!.children![0]!.contextValue, 'activity');
    await told;
    const rows = activityRows([echoCall!, appCall!], {}, (s, t) => d.apps.has(s, t))[0]!.children!;
    assert.deepEqual(
      rows.map((r) => r.contextValue),
      ['activity', 'activity.app'],
    );
    await run('mcpx.showApp', d, rows[1]);
    assert.equal(apps.length, 1);
    assert.deepEqual(apps[0]!.input, { text: 'from an agent' });
    assert.deepEqual(apps[0]!.result?.content, [{ type: 'text', text: 'shown: from an agent' }]);
    await run('mcpx.showApp', d, rows[0]);
    assert.deepEqual(ui.said('info'), ['mcpx: up · echo has no app.']);
    await run('mcpx.showApp', d, { kind: 'task', id: 'no-such-task' });
    assert.deepEqual(ui.said('info').at(-1), 'mcpx: that call is no longer in the Activity log.');
  });

  test("an agent's task of an app tool: its Tasks row offers Show App, which opens the app with the task's input and result", async () => {
    await start();
    const c = new HttpClient(gw.url, '2025-11-25');
    await c.initialize();
    const made = await c.request('tools/call', {
      name: 'mcpx_call',
      arguments: { server: 'up', tool: 'app_show', arguments: { text: 'in a task' } },
      task: {},
    });
    const taskId = String(((made.result as Record<string, unknown>).task as Record<string, unknown>).taskId);
    const done = await c.request('tasks/result', { taskId });
    assert.deepEqual((done.result as Record<string, unknown>).content, [{ type: 'text', text: 'shown: in a task' }]);
    const entry = {
      id: taskId,
      status: 'completed' as const,
      statusMessage: undefined,
      createdAt: Date.now(),
      updatedAt: Date.now(),
      terminal: true,
      cancel: () => undefined,
      info: { label: 'tools/call mcpx_call up/app_show', client: 'agent', era: 'legacy' as const },
      call: { id: 'c1', progress: undefined, finished: undefined },
    };
    const tasks = { list: () => [entry], find: () => entry, onChange: () => () => undefined };
    const { d, apps } = fakeDeps({ host: fakeHost({ gateway: gw.g, tasks: tasks as never }) });
    await d.apps.definition('up', 'app_show');
    const row = taskRows(d.host, d.palette, (s, t) => d.apps.has(s, t)).find((r) => r.id === taskId)!;
    assert.equal(row.contextValue, 'mcpx.task.completed.app');
    await run('mcpx.showApp', d, { kind: 'task', id: taskId });
    assert.equal(apps.length, 1);
    assert.deepEqual(apps[0]!.input, { text: 'in a task' });
    assert.deepEqual(apps[0]!.result?.content, [{ type: 'text', text: 'shown: in a task' }]);
  });

  test('a palette call of an app tool sent to the background: its row offers Show App, and Show Result opens the app', async () => {
    await start();
    const { d, apps } = fakeDeps({ host: fakeHost({ gateway: gw.g }) });
    const tool = (await gw.g.serverList('up', 'tools', 'mcpx:editor')).find((t) => t.name === 'app_show')!;
    d.palette.add({
      id: 'p1',
      server: 'up',
      tool: 'app_show',
      arguments: { text: 'later' },
      definition: tool,
      startedAt: Date.now(),
      status: 'completed',
      endedAt: Date.now(),
      outcome: { content: [{ type: 'text', text: 'shown: later' }] },
      abort: new AbortController(),
    });
    assert.equal(taskRows(d.host, d.palette)[0]!.contextValue, 'mcpx.palette.completed.app');
    await run('mcpx.showTaskResult', d, { kind: 'palette', id: 'p1' });
    await run('mcpx.showApp', d, { kind: 'palette', id: 'p1' });
    assert.equal(apps.length, 2);
    for (const a of apps) {
      assert.deepEqual(a.input, { text: 'later' });
      assert.deepEqual(a.result?.content, [{ type: 'text', text: 'shown: later' }]);
    }
  });
});

test('drawing a view never starts an upstream: a stopped server is not listed for its app tools', async () => {
  const gw = await gatewayFor({ idle: fixtureCommand(['--rev', '2025-11-25', '--name', 'idle', '--app']) });
  try {
    const { d } = fakeDeps({ host: fakeHost({ gateway: gw.g }) });
    const state = () => gw.g.servers().find((s) => s.name === 'idle')?.state;
    assert.equal(state(), 'stopped');
    assert.equal(d.apps.has('idle', 'app_show'), false);
    await stays(() => state() === 'stopped', { for: 300, what: 'the server not started' });
    assert.equal(state(), 'stopped', 'still not started');
    // Show App (a person's explicit ask) lists it, starting it.
    assert.deepEqual((await d.apps.definition('idle', 'app_show'))?._meta, {
      ui: { resourceUri: 'ui://fixture/app.html' },
    });
    assert.equal(state(), 'running');
    assert.equal(d.apps.has('idle', 'app_show'), true);
  } finally {
    await gw.close();
  }
});

describe('a server that offers its app tools only to hosts that render apps (the fixture with --apps)', () => {
  let gw: TestGateway;
  after(() => gw?.close());

  test('the editor declares the ui extension: the palette is offered the app tool, and opens its app', async () => {
    gw = await gatewayFor(
      { wx: fixtureCommand(['--rev', '2025-11-25', '--name', 'wx', '--apps']) },
      { 'mcp.passthrough': ['wx'] },
    );
    // An agent that declared nothing sees only the fallback.
    const agent = new HttpClient(gw.url, '2025-11-25');
    await agent.initialize();
    const listed = ((await agent.request('tools/list', {})).result!.tools as Array<{ name: string }>).map(
      (t) => t.name,
    );
    assert.ok(listed.includes('forecast_text') && !listed.includes('forecast'), listed.join());
    const { person } = fakePerson([{ action: 'accept', content: { place: 'Lisbon' } }]);
    const { d, apps } = fakeDeps({ host: fakeHost({ gateway: gw.g }), parts: { person } });
    await run('mcpx.callTool', d, 'wx', 'forecast');
    assert.equal(apps.length, 1, 'the app opened');
    assert.equal(apps[0]!.server, 'wx');
    assert.equal((apps[0]!.tool._meta as { ui: { resourceUri: string } }).ui.resourceUri, 'ui://forecast/view.html');
  });
});
