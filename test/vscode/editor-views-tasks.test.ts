// The editor's Tasks, Questions and Subscriptions views and the status bar (src/vscode/views/) in plain Node:
// the tree items they make for each state, with VS Code's classes stood in for (test/vscode-fakes/), over a
// hand-written GatewayFacade and task stores.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { killAll } from '../harness/upstreams';
import { Lifetimes } from '../../src/vscode/lifetimes';
import { PaletteCalls } from '../../src/vscode/paletteCalls';
import type { GatewayRun, TaskEntry } from '../../src/vscode/ports';
import { questionsTree, questionsView } from '../../src/vscode/views/questions';
import { statusBar } from '../../src/vscode/views/statusBar';
import { subscriptionsTree } from '../../src/vscode/views/subscriptions';
import { type TaskRow, tasksTree } from '../../src/vscode/views/tasks';
import { fakeKit } from '../vscode-fakes/editor';
import { FakeGateway, fakeBackground, fakeHost, fakeTaskList } from '../vscode-fakes/host';
import { turn } from '../harness/wait';
const { Expanded, None } = { Expanded: 2, None: 0 };

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
/** A task of the server's store, as the view reads it. */
function task(o: {
  id: string;
  status: TaskEntry['status'];
  era?: 'legacy' | 'modern';
  createdAt: number;
  progress?: { progress: number; total?: number };
  message?: string;
}): TaskEntry {
  const terminal = ['completed', 'failed', 'cancelled'].includes(o.status);
  return {
    id: o.id,
    status: o.status,
    statusMessage: o.message,
    createdAt: o.createdAt,
    updatedAt: o.createdAt + 1000,
    terminal,
    cancel: () => true,
    info: { label: `tools/call mcpx_call up/${o.id}`, client: 'agent', era: o.era ?? 'legacy' },
    call: { id: `call-${o.id}`, progress: o.progress, finished: undefined },
  } as TaskEntry;
}

describe('the Tasks view', () => {
  test('a row per task, background call, palette call and script, newest first, each with its context value, icon and click', async () => {
    const now = Date.now();
    const tasks = fakeTaskList([
      task({ id: 'w', status: 'working', createdAt: now - 9000, progress: { progress: 3, total: 60 } }),
      task({ id: 'i', status: 'input_required', era: 'modern', createdAt: now - 8000 }),
      task({ id: 'c', status: 'completed', createdAt: now - 7000 }),
      task({ id: 'f', status: 'failed', createdAt: now - 6000, message: 'boom' }),
      task({ id: 'x', status: 'cancelled', createdAt: now - 5000 }),
    ]);
    const background = fakeBackground([
      {
        id: 'b',
        label: 'tools/call mcpx_call up/elicit',
        status: 'waiting for input',
        startedAt: now - 4000,
        rounds: 1,
        outcomeForShow: undefined,
      },
      // The call behind task w: listed once, as the task.
      { id: 'call-w', label: 'dup', status: 'running', startedAt: now, rounds: 0, outcomeForShow: undefined },
    ]);
    const palette = new PaletteCalls();
    palette.add({
      id: 'p',
      server: 'up',
      tool: 'slow',
      arguments: {},
      startedAt: now - 3000,
      status: 'working',
      progress: { progress: 1, total: 2 },
      abort: new AbortController(),
    });
    const g = new FakeGateway({
      runs: [
        {
          id: 'r',
          startedAt: now - 2000,
          client: 'exec-agent',
          identity: 'i',
          total: 2,
          calls: [
            { label: 'up/echo', state: 'completed' },
            { label: 'up/slow', state: 'running' },
          ],
        } as never,
      ],
    });
    const host = fakeHost({ gateway: g, tasks, background });
    const view = tasksTree(host, palette, fakeKit);
    after(() => view.dispose());
    const rows = view.getChildren() as TaskRow[];
    assert.deepEqual(
      rows.map((r) => [r.kind, r.id, r.contextValue]),
      [
        ['exec', 'r', 'mcpx.exec.working'],
        ['palette', 'p', 'mcpx.palette.working'],
        ['background', 'b', 'mcpx.background.input_required'],
        ['task', 'x', 'mcpx.task.cancelled'],
        ['task', 'f', 'mcpx.task.failed'],
        ['task', 'c', 'mcpx.task.completed'],
        ['task', 'i', 'mcpx.task.input_required'],
        ['task', 'w', 'mcpx.task.working'],
      ],
    );
    const items = rows.map((r) => item(view.getTreeItem(r)));
    assert.deepEqual(
      items.map((t) => [t.iconPath?.id, t.iconPath?.color?.id]),
      [
        ['sync~spin', undefined],
        ['sync~spin', undefined],
        ['question', 'notificationsWarningIcon.foreground'],
        ['circle-slash', 'disabledForeground'],
        ['error', 'testing.iconFailed'],
        ['check', 'testing.iconPassed'],
        ['question', 'notificationsWarningIcon.foreground'],
        ['sync~spin', undefined],
      ],
    );
    const d = (i: number) => String(items[i]!.description);
    assert.match(d(0), /^working · exec-agent · 2 calls · started \d+ s ago$/);
    assert.match(d(1), /^up · working · palette · 1\/2 · started \d+ s ago$/);
    assert.match(d(2), /^waiting for input · started \d+ s ago · 1 round of questions$/);
    assert.match(d(4), /^failed · agent · ended \d+ s ago$/);
    assert.match(d(7), /^working · agent · 3\/60 · started \d+ s ago$/);
    assert.equal(items[4]!.tooltip, 'tools/call mcpx_call up/f — failed: boom\n2025-11-25 task f');
    assert.equal(
      items[6]!.tooltip,
      'tools/call mcpx_call up/i — waiting for input\n2026-07-28 task i\nA question no client can take waits in the Questions view (click).',
    );
    assert.deepEqual(items[6]!.command, { command: 'mcpx.showQuestions', title: 'Show Questions' });
    assert.deepEqual(items[5]!.command, {
      command: 'mcpx.task',
      title: 'Task…',
      arguments: [{ kind: 'task', id: 'c' }],
    });
    assert.deepEqual(items.map((t) => t.id).slice(0, 2), ['exec:r', 'palette:p'], 'a key kept across refreshes');
    // The script's calls under it, expanded.
    assert.equal(items[0]!.collapsibleState, Expanded);
    assert.equal(items[1]!.collapsibleState, None);
    assert.deepEqual(
      (view.getChildren(rows[0]) as TaskRow[]).map((c) => [c.label, c.description, c.tooltip]),
      [
        ['up/echo', 'completed', 'call 1 of the script: up/echo'],
        ['up/slow', 'working', 'call 2 of the script: up/slow'],
      ],
    );
  });

  test('it refreshes when the gateway or a palette call changes', () => {
    const host = fakeHost();
    const palette = new PaletteCalls();
    const view = tasksTree(host, palette, fakeKit);
    let refreshed = 0;
    view.onDidChangeTreeData(() => refreshed++);
    host.changed();
    palette.update();
    assert.equal(refreshed, 2);
    view.dispose();
    host.changed();
    assert.equal(refreshed, 2);
    assert.deepEqual(view.getChildren(), [], 'no gateway, no palette call: empty (the welcome content shows)');
  });
});

describe('the Questions and Subscriptions views, the status bar', () => {
  /** A question waiting at the broker, its deadline `left` ms away. */
  const question = (left = 90_000) => ({
    id: 'q1',
    server: 'up',
    method: 'elicitation/create',
    params: { message: 'up (via mcpx) asks: Later?' },
    createdAt: Date.now(),
    deadline: Date.now() + left,
    reason: 'dismissed in the editor',
  });

  test('a question row answers on a click; its deadline counts down', () => {
    const g = new FakeGateway({ questions: [question(), question(-5000)] });
    const view = questionsTree(fakeHost({ gateway: g }), fakeKit);
    const [row, late] = view.getChildren();
    view.dispose();
    assert.equal(row!.label, 'up (via mcpx) asks: Later?');
    const left = Number(/^elicitation\/create · (\d+) s left$/.exec(row!.description)?.[1]);
    assert.ok(left > 0 && left <= 90, row!.description);
    assert.equal(late!.description, 'elicitation/create · 0 s left', 'past its deadline: none left, not negative');
    assert.match(row!.tooltip, /^waiting since \d+ s ago — dismissed in the editor$/);
    assert.deepEqual(row!.command, { command: 'mcpx.answerQuestion', title: 'Answer', arguments: ['q1'] });
  });

  test('the badge counts the questions waiting; one asked while the view is hidden is announced, with Show Questions', async () => {
    const g = new FakeGateway({ questions: [] });
    const host = fakeHost({ gateway: g });
    const life = new Lifetimes<GatewayRun>();
    const view = { visible: false, badge: undefined as unknown, dispose: () => undefined };
    const shown: string[] = [];
    const executed: string[] = [];
    const shownView = questionsView(
      {
        createTreeView: () => view as never,
        showInformationMessage: (async (m: string) => {
          shown.push(m);
          return 'Show Questions';
        }) as never,
      },
      { executeCommand: (async (id: string) => void executed.push(id)) as never },
      host,
      life,
      questionsTree(host, fakeKit),
    );
    life.begin({ gateway: g, tasks: fakeTaskList(), background: fakeBackground() });
    assert.equal(view.badge, undefined);
    g.o.questions = [question()];
    host.changed();
    assert.deepEqual(view.badge, { value: 1, tooltip: '1 question waiting for an answer' });
    g.emit({ type: 'question', server: 'up', id: 'q1', method: 'elicitation/create', state: 'asked' });
    await turn();
    assert.deepEqual(shown, ['mcpx: up asks a question (elicitation/create); it waits in the Questions view.']);
    assert.deepEqual(executed, ['mcpx.showQuestions']);
    assert.equal(shownView.announced, 1);
    // Shown to the person now (not waiting at the broker), or the view in sight: not announced.
    g.emit({ type: 'question', server: 'up', id: 'q2', method: 'elicitation/create', state: 'asked' });
    view.visible = true;
    g.emit({ type: 'question', server: 'up', id: 'q1', method: 'elicitation/create', state: 'asked' });
    assert.equal(shownView.announced, 1);
    await life.end();
    assert.equal(g.listening, 0, 'the run ended: nothing listens to its gateway');
    shownView.dispose();
  });

  test('the Subscriptions view: URI, upstream, watchers, last update', () => {
    const g = new FakeGateway({
      watches: [
        { uri: 'fixture://doc', server: 'up', watchers: 1 },
        { uri: 'fixture://log', server: 'up', watchers: 2, lastUpdate: Date.now() - 3 * 3600_000 },
      ] as never,
    });
    const view = subscriptionsTree(fakeHost({ gateway: g }), fakeKit);
    view.dispose();
    assert.deepEqual(
      view.getChildren().map((r) => [r.label, r.description]),
      [
        ['fixture://doc', 'up · 1 watcher'],
        ['fixture://log', 'up · 2 watchers · updated 3 h ago'],
      ],
    );
  });

  test('the status bar: port and running/configured; a failed upstream turns it to the warning colours and is named; stopped says why', () => {
    const item: Record<string, unknown> = {};
    const window = { createStatusBarItem: () => Object.assign(item, { show() {}, dispose() {} }) as never };
    const g = new FakeGateway({
      servers: [
        { name: 'up', scope: 'shared', state: 'running', transport: 'stdio' },
        { name: 'broken', scope: 'shared', state: 'failed', lastError: 'exited with code 3', transport: 'stdio' },
      ],
    });
    const host = fakeHost({ gateway: g, bareEndpoint: 'http://127.0.0.1:8899/mcp' });
    const bar = statusBar(window, fakeKit, host);
    assert.equal(item.text, '$(plug) mcpx :8899 · 1/2 $(warning) 1');
    assert.equal(
      item.tooltip,
      'mcpx gateway at http://127.0.0.1:8899/mcp: 2 upstream(s), 1 running\nbroken failed: exited with code 3\nClick for commands.',
    );
    assert.equal((item.backgroundColor as { id: string }).id, 'statusBarItem.warningBackground');
    assert.equal(item.command, 'mcpx.menu');
    host.gateway = undefined;
    host.bareEndpoint = undefined;
    host.whyStopped = 'it was stopped';
    host.changed();
    assert.equal(item.text, '$(debug-disconnect) mcpx stopped');
    assert.equal(item.tooltip, 'The mcpx gateway is not running: it was stopped');
    assert.equal(item.backgroundColor, undefined);
    bar.dispose();
  });
});
