// The editor's commands (src/vscode/commands/) in plain Node: each given the hand-written ports of
// test/vscode-fakes/ — a window answering from a script, recorded messages, clipboard and settings —
// and a GatewayFacade: a real Gateway over the fixture upstream where the call goes through, a fake one
// where a state is hard to reach for real. What is asserted is what the person sees and what reaches
// the gateway, the settings and SecretStorage.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { CallToolResult } from '../../src/protocol/methods';
import { repoRoot } from '../harness/gateway';
import { type TestGateway, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { COMMANDS } from '../../src/vscode/commands/table';
import { invoke, notRunning } from '../../src/vscode/commands/command';
import { EDITOR_IDENTITY } from '../../src/vscode/editorCall';
import { EditorApprover } from '../../src/vscode/permissions/approver';
import { withEditorRule } from '../../src/vscode/permissions/editorRule';
import { taskRows } from '../../src/vscode/views/tasks';
import { type Answer, fakeDeps, fakePerson } from '../vscode-fakes/editor';
import { FakeGateway, fakeHost } from '../vscode-fakes/host';
import { turn, until } from '../harness/wait';

after(() => killAll());

const run = (id: string, d: Parameters<typeof invoke>[1], ...args: unknown[]) => invoke(COMMANDS[id]!, d, args);

test('the editor unit tests load no vscode: their bundle requires none', () => {
  assert.ok(!/require\(["']vscode["']\)/.test(readFileSync(__filename, 'utf8')));
});

describe('the command table', () => {
  test('lists every command package.json contributes, in its order, each with its module', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as {
      contributes: { commands: Array<{ command: string }> };
    };
    assert.deepEqual(
      Object.keys(COMMANDS),
      pkg.contributes.commands.map((c) => c.command),
    );
    for (const [id, c] of Object.entries(COMMANDS)) assert.equal(typeof c.run, 'function', id);
  });

  test('a command that needs the gateway says why while none runs, and asks nothing', async () => {
    const needy = Object.entries(COMMANDS).filter(([, c]) => c.needsGateway);
    assert.deepEqual(needy.map(([id]) => id).sort(), [
      'mcpx.acceptHeldTools',
      'mcpx.addServer',
      'mcpx.answerQuestion',
      'mcpx.callTool',
      'mcpx.filterActivity',
      'mcpx.getPrompt',
      'mcpx.managePermissions',
      'mcpx.openConfig',
      'mcpx.readResource',
      'mcpx.restartUpstream',
      'mcpx.reviewHeldTools',
      'mcpx.showApp',
      'mcpx.showTaskCalls',
      'mcpx.showUpstreamLog',
      'mcpx.signIn',
      'mcpx.signOut',
      'mcpx.stopUpstream',
      'mcpx.updateServer',
    ]);
    for (const [id] of needy) {
      const { d, ui } = fakeDeps({ host: fakeHost({ whyStopped: 'mcpx.autoStart is off' }) });
      assert.equal(await run(id, d, 'up'), undefined, id);
      assert.deepEqual(ui.messages, [
        { level: 'warning', text: 'mcpx: the gateway is not running: mcpx.autoStart is off.', items: [] },
      ]);
      assert.deepEqual(ui.asked, [], `${id} asked nothing`);
    }
    assert.equal(notRunning({ whyStopped: 'x' }), 'mcpx: the gateway is not running: x.');
  });

  test('Copy Endpoint with no gateway says there is nothing to copy; with one, copies the endpoint and shows it without the secret', async () => {
    const stopped = fakeDeps({ host: fakeHost({ whyStopped: 'it was stopped' }) });
    await run('mcpx.copyEndpoint', stopped.d);
    assert.deepEqual(stopped.ui.said('warning'), [
      'mcpx: the gateway is not running (it was stopped), so there is no endpoint to copy.',
    ]);
    assert.deepEqual(stopped.clipboard, []);
    const host = fakeHost({ endpoint: 'http://127.0.0.1:9/mcp/s3cret', bareEndpoint: 'http://127.0.0.1:9/mcp' });
    const running = fakeDeps({ host });
    await run('mcpx.copyEndpoint', running.d);
    assert.deepEqual(running.clipboard, ['http://127.0.0.1:9/mcp/s3cret']);
    assert.deepEqual(running.ui.said('info'), [
      'mcpx: copied http://127.0.0.1:9/mcp/… (the endpoint with its secret; keep it private)',
    ]);
  });
});

describe('Call Tool… through a real gateway (the fixture upstream)', () => {
  let gw: TestGateway;
  const start = async () => (gw ??= await gatewayFor({ up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) }));
  after(() => gw?.close());

  test('with no rule that asks: arguments from the form, the result in an editor', async () => {
    await start();
    const { person, questions } = fakePerson([{ action: 'accept', content: { text: 'hello from a unit test' } }]);
    const { d, ui, shown } = fakeDeps({ host: fakeHost({ gateway: gw.g }), parts: { person } });
    await run('mcpx.callTool', d, 'up', 'echo');
    assert.equal(questions.length, 1);
    assert.equal(questions[0]!.params.message, 'up · echo: arguments');
    assert.deepEqual(ui.asked, [], 'no confirmation: no rule asks');
    assert.deepEqual(
      ui.progress.map((p) => p.title),
      ['mcpx: up · echo'],
    );
    assert.match(
      String(ui.progress[0]!.reports[0]!.message),
      /^\[Run in background\]\(command:mcpx\.runInBackground\?/,
    );
    assert.equal(shown.length, 1);
    assert.equal(shown[0]!.title, 'up · echo');
    assert.deepEqual(shown[0]!.result.content, [{ type: 'text', text: 'hello from a unit test' }]);
  });

  test('one not marked read-only goes through the permission check: the editor rule asks; denied (nothing sent), allowed once, always allowed (a grant), revoked in Manage Permissions', async () => {
    await start();
    gw.g.config.permissions = withEditorRule(gw.g.config.permissions);
    const count = async (answers: Answer[]) => {
      const x = fakeDeps({ host: fakeHost({ gateway: gw.g }), answers });
      gw.g.setApprover(new EditorApprover({ window: x.d.window, showJson: x.d.results.showJson }));
      await run('mcpx.callTool', x.d, 'up', 'count');
      return x;
    };
    const deny = await count([{ pick: 'Deny' }]);
    assert.deepEqual(deny.ui.asked, [
      {
        kind: 'pick',
        title: 'mcpx: mcpx:editor wants to call up/count from the palette (permissions.rules[0])',
        placeHolder: 'The server says nothing about this tool. · arguments: {}',
        labels: [
          'Allow once',
          'Allow count for mcpx:editor until the gateway stops',
          'Always allow',
          'Deny',
          'Show the whole arguments',
        ],
      },
    ]);
    assert.match(textOf(deny.shown[0]!.result), /^mcpx refused the call of up\/count: permissions\.rules\[0\] asks/);
    const once = await count([{ pick: 'Allow once' }]);
    assert.equal(textOf(once.shown[0]!.result), '1', "the fixture's counter: the denied call never reached it");
    const palette = gw.g.activity.recent({}, 2);
    assert.deepEqual(
      palette.map((r) => [r.path, r.client.transport, r.outcome.status, r.decision.approvedBy]),
      [
        ['palette', 'editor', 'ok', 'the person: allow once'],
        ['palette', 'editor', 'denied', 'the person: deny'],
      ],
    );
    const always = await count([{ pick: 'Always allow' }]);
    assert.equal(textOf(always.shown[0]!.result), '2');
    const remembered = await count([]);
    assert.deepEqual(remembered.ui.asked, [], 'always: not asked again');
    assert.equal(textOf(remembered.shown[0]!.result), '3');
    const granted = gw.g.grants();
    assert.equal(granted.length, 1);
    const manage = fakeDeps({
      host: fakeHost({ gateway: gw.g }),
      answers: [{ pick: 'Revoke' }, { pick: 'tool up/count' }],
    });
    assert.equal(await run('mcpx.managePermissions', manage.d), 1);
    assert.deepEqual(manage.ui.asked[1]!.labels, ['tool up/count']);
    assert.deepEqual(gw.g.grants(), []);
    const asksAgain = await count([{ pick: 'Deny' }]);
    assert.equal(asksAgain.ui.asked.length, 1, 'revoked: asked again');
    // A tool that says it is read-only asks too: the hint is the server's untrusted claim.
    const { person } = fakePerson([{ action: 'accept', content: { text: 'claimed read-only' } }]);
    const echo = fakeDeps({ host: fakeHost({ gateway: gw.g }), parts: { person }, answers: [{ pick: 'Deny' }] });
    gw.g.setApprover(new EditorApprover({ window: echo.d.window, showJson: echo.d.results.showJson }));
    await run('mcpx.callTool', echo.d, 'up', 'echo');
    assert.equal(echo.ui.asked.length, 1, 'asked before the call');
    assert.match(String(echo.ui.asked[0]!.title), /wants to call up\/echo from the palette/);
    assert.match(String(echo.ui.asked[0]!.placeHolder), /The server says \(untrusted hints\): read-only/);
    assert.match(textOf(echo.shown[0]!.result), /^mcpx refused the call of up\/echo/);
    gw.g.setApprover(undefined);
    gw.g.config.permissions = undefined;
  });

  test("from the palette: the tool is picked with the gateway's tool search; a row of the Upstreams view names it", async () => {
    await start();
    const { d, ui, shown } = fakeDeps({
      host: fakeHost({ gateway: gw.g }),
      answers: [
        { type: 'play some relaxing music' },
        { pick: 'No tool matches this well' },
        { type: 'increment the counter' },
        { pick: 'count' },
      ],
    });
    await run('mcpx.callTool', d);
    // Every offered tool first, then what the search finds as the person types: a task no tool fits is
    // told so (picking that line does nothing), one that fits has its tool first.
    assert.equal(ui.asked[0]!.title, 'mcpx: find a tool');
    assert.ok(ui.asked[0]!.labels!.includes('echo') && ui.asked[0]!.labels!.includes('whoami'));
    assert.deepEqual(ui.asked[1]!.labels, [
      'No tool matches this well: try other words, or clear the box to see every tool.',
    ]);
    assert.equal(ui.asked[2]!.value, 'increment the counter');
    assert.equal(ui.asked[2]!.labels![0], 'count');
    assert.match(textOf(shown[0]!.result), /^\d+$/);
    // The Tools row of a server: its tools only.
    const tools = fakeDeps({ host: fakeHost({ gateway: gw.g }), answers: [{ pick: 'whoami' }] });
    await run('mcpx.callTool', tools.d, { kind: 'tools', server: 'up' });
    assert.equal(tools.ui.asked[0]!.title, 'mcpx: a tool of up');
    assert.match(textOf(tools.shown[0]!.result), /^up:\d+:/);
    // The context menu of a tool row hands the command the row itself.
    const row = fakeDeps({ host: fakeHost({ gateway: gw.g }) });
    await run('mcpx.callTool', row.d, { kind: 'item', server: 'up', list: 'tools', item: { name: 'whoami' } });
    assert.match(textOf(row.shown[0]!.result), /^up:\d+:/);
  });

  test('Restart Upstream… and Stop Upstream…: the server (named, a row, or picked) restarted and stopped; a failure named', async () => {
    await start();
    const restart = fakeDeps({ host: fakeHost({ gateway: gw.g }) });
    await run('mcpx.restartUpstream', restart.d, 'up');
    assert.deepEqual(restart.ui.said('info'), ['mcpx: up restarted.']);
    assert.equal(gw.g.servers().find((s) => s.name === 'up')!.state, 'running');
    const stop = fakeDeps({ host: fakeHost({ gateway: gw.g }), answers: [{ pick: 'up' }] });
    await run('mcpx.stopUpstream', stop.d);
    assert.deepEqual(stop.ui.asked[0]!.labels, ['up']);
    assert.equal(gw.g.servers().find((s) => s.name === 'up')!.state, 'stopped');
    await run('mcpx.restartUpstream', restart.d, { name: 'up' });
    assert.equal(gw.g.servers().find((s) => s.name === 'up')!.state, 'running');

    const broken = new FakeGateway({ failsToStart: { bad: 'exited with code 3' } });
    const failed = fakeDeps({ host: fakeHost({ gateway: broken }) });
    await run('mcpx.restartUpstream', failed.d, 'bad');
    assert.deepEqual(failed.ui.said('error'), ['mcpx: bad did not start: exited with code 3']);
    assert.deepEqual(broken.calls, [['restartServer', 'bad', EDITOR_IDENTITY]]);
    const none = fakeDeps({ host: fakeHost({ gateway: new FakeGateway() }) });
    await run('mcpx.stopUpstream', none.d);
    assert.deepEqual(none.ui.said('info'), [
      'mcpx: no upstream servers are configured (.vscode/mcp.json or mcpx.servers).',
    ]);
  });
});

const textOf = (r: Record<string, unknown>) => String((r.content as Array<{ text: string }>)[0]!.text);

/** A promise and its resolve. */
function deferred<T>(): { promise: Promise<T>; resolve(v: T): void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

test('Call Tool… "Run in background": the call runs on, the Tasks view lists it, its end is announced with Show Result, which shows it', async () => {
  const result = deferred<CallToolResult>();
  let signal: AbortSignal | undefined;
  const g = new FakeGateway({
    lists: { up: { tools: [{ name: 'slow', annotations: { readOnlyHint: true } }] } },
    callTool: (_n, _a, ctx) => {
      signal = ctx.signal;
      return result.promise;
    },
  });
  const { d, ui, executed, shown } = fakeDeps({ host: fakeHost({ gateway: g }) });
  ui.pressing((text) => (text.includes('run in the background') ? 'Show Result' : undefined));
  const calling = run('mcpx.callTool', d, 'up', 'slow');
  // The notification's link: this call's id.
  await until(() => ui.progress.length === 1);
  const link = String(ui.progress[0]!.reports[0]!.message);
  const id = (JSON.parse(decodeURIComponent(/\?(.*)\)$/.exec(link)![1]!)) as string[])[0]!;
  await run('mcpx.runInBackground', d, id);
  await calling;
  assert.deepEqual(shown, [], 'nothing shown yet: the call still runs');
  const rows = taskRows(d.host, d.palette);
  assert.deepEqual(
    rows.map((r) => [r.kind, r.label, r.contextValue]),
    [['palette', 'tools/call slow', 'mcpx.palette.working']],
  );
  assert.match(rows[0]!.description, /^up · working · palette · started \d+ s ago$/);

  result.resolve({ content: [{ type: 'text', text: 'slept' }] });
  await until(() => executed.length === 1);
  assert.deepEqual(ui.messages.at(-1), {
    level: 'info',
    text: 'mcpx: up · slow, run in the background, completed.',
    items: ['Show Result'],
  });
  assert.deepEqual(executed, [['mcpx.showTaskResult', { kind: 'palette', id }]]);
  await run('mcpx.showTaskResult', d, executed[0]![1]);
  assert.deepEqual(shown, [{ title: 'up · slow', result: { content: [{ type: 'text', text: 'slept' }] } }]);
  assert.equal(taskRows(d.host, d.palette)[0]!.contextValue, 'mcpx.palette.completed');
  assert.equal(signal?.aborted, false);

  // With nothing running, Run in Background says so.
  await run('mcpx.runInBackground', d);
  assert.equal(ui.messages.at(-1)!.text, 'mcpx: no tool call from the palette is running.');
});

test('Cancel Task on a palette call in the background aborts its work; the row turns cancelled and no end is announced', async () => {
  const never = deferred<CallToolResult>();
  let signal: AbortSignal | undefined;
  const g = new FakeGateway({
    lists: { up: { tools: [{ name: 'slow', annotations: { readOnlyHint: true } }] } },
    callTool: (_n, _a, ctx) => {
      signal = ctx.signal;
      return never.promise;
    },
  });
  const { d, ui } = fakeDeps({ host: fakeHost({ gateway: g }) });
  const calling = run('mcpx.callTool', d, 'up', 'slow');
  await until(() => ui.progress.length === 1);
  await run('mcpx.runInBackground', d);
  await calling;
  const [row] = taskRows(d.host, d.palette);
  await run('mcpx.cancelTask', d, { kind: row!.kind, id: row!.id });
  assert.equal(signal?.aborted, true);
  assert.equal(taskRows(d.host, d.palette)[0]!.contextValue, 'mcpx.palette.cancelled');
  await run('mcpx.cancelTask', d, { kind: row!.kind, id: row!.id });
  assert.equal(ui.messages.at(-1)!.text, 'mcpx: that task is no longer running.');
  never.resolve({ content: [] });
  await turn();
  assert.ok(!ui.messages.some((m) => m.text.includes('run in the background')), 'a cancelled call is not announced');
});

test('Call Tool…: the progress notification Cancel aborts the call; its error is shown', async () => {
  const g = new FakeGateway({
    lists: { up: { tools: [{ name: 'slow', annotations: { readOnlyHint: true } }] } },
    callTool: (_n, _a, ctx) =>
      new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error))),
  });
  const { d, ui, shown } = fakeDeps({ host: fakeHost({ gateway: g }) });
  const calling = run('mcpx.callTool', d, 'up', 'slow');
  await until(() => ui.progress.length === 1);
  ui.progress[0]!.cancel();
  await calling;
  assert.deepEqual(ui.said('error'), ['mcpx: up · slow: cancelled in the editor']);
  assert.deepEqual(shown, []);
});
