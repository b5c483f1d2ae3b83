// The editor's Activity view and permission rules (src/vscode/permissions/, views/activity.ts) in plain Node:
// the view's rows from a real in-memory feed, live, filtered; Manage Permissions' rules and a task's calls;
// an approval waiting at the broker when no editor Approver is set.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ActivityRecord } from '../../src/gateway/activity/record';
import { APPROVAL_METHOD } from '../../src/gateway/inbox/broker';
import { withEditorRule } from '../../src/vscode/permissions/editorRule';
import { ActivityView, activityRows } from '../../src/vscode/views/activity';
import { questionsTree } from '../../src/vscode/views/questions';
import { COMMANDS } from '../../src/vscode/commands/table';
import { invoke } from '../../src/vscode/commands/command';
import { fakeDeps, fakeKit } from '../vscode-fakes/editor';
import { FakeGateway, fakeHost } from '../vscode-fakes/host';
import { until } from '../harness/wait';

const record = (over: Partial<ActivityRecord>): ActivityRecord => ({
  time: new Date().toISOString(),
  kind: 'tool',
  client: { name: 'Claude Code', identity: 'client:abc', revision: '2025-11-25', transport: 'shim' },
  path: 'pass-through',
  server: 'up',
  target: 'echo',
  argsDigest: 'd',
  arguments: { text: 'hi' },
  decision: { action: 'allow', rule: 'default' },
  outcome: { status: 'ok' },
  durationMs: 3,
  bytesIn: 10,
  bytesOut: 20,
  ...over,
});

describe('the Activity view', () => {
  test('grouped by client, newest first, an icon per outcome; a row opens the record', () => {
    const rows = activityRows([
      record({ target: 'b', outcome: { status: 'denied', message: 'no' } }),
      record({ target: 'x', client: { identity: 'mcpx:editor', revision: 'r', transport: 'editor' }, path: 'palette' }),
      record({ target: 'a', path: 'mcpx_exec', run: 'r1', outcome: { status: 'isError' } }),
    ]);
    assert.deepEqual(
      rows.map((r) => [r.label, r.description]),
      [
        ['Claude Code', '2 calls · client:abc'],
        ['mcpx:editor', '1 call · mcpx:editor'],
      ],
    );
    const calls = rows[0]!.children!;
    assert.deepEqual(
      calls.map((r) => [r.label, r.icon?.id, r.description.replace(/ · \d+ s ago/, '')]),
      [
        ['up/b', 'circle-slash', 'denied · pass-through · 3 ms'],
        ['up/a', 'warning', 'isError · mcpx_exec run r1 · 3 ms'],
      ],
    );
    assert.equal(calls[0]!.command?.command, 'mcpx.showActivityRecord');
    // A call the guardrails flagged: marked with what was done, a shield where it went through, its
    // findings in the tooltip (never the text found).
    const flagged = activityRows([
      record({
        target: 'read',
        guardrails: [
          {
            detector: 'secrets',
            kind: 'aws',
            rule: 'guardrails.rules[0]',
            action: 'redact',
            where: 'result.content[0].text',
            count: 2,
          },
          {
            detector: 'pii',
            kind: 'email',
            rule: 'guardrails.rules[1]',
            action: 'log',
            where: 'result.content[0].text',
            count: 1,
          },
        ],
      }),
      record({
        target: 'leak',
        outcome: { status: 'denied', code: 'guardrails.blocked' },
        guardrails: [
          {
            detector: 'secrets',
            kind: 'github',
            rule: 'guardrails.rules[0]',
            action: 'block',
            where: 'result',
            count: 1,
          },
        ],
      }),
    ])[0]!.children!;
    assert.deepEqual(
      flagged.map((r) => [r.label, r.icon?.id, r.description.replace(/ · \d+ s ago/, '')]),
      [
        ['up/read', 'shield', 'guardrails: redacted · ok · pass-through · 3 ms'],
        ['up/leak', 'circle-slash', 'guardrails: blocked · denied · pass-through · 3 ms'],
      ],
    );
    assert.match(
      flagged[0]!.tooltip,
      /guardrails: secrets\/aws ×2 at result\.content\[0\]\.text — redact \(guardrails\.rules\[0\]\)/,
    );
    assert.match(calls[0]!.tooltip, /outcome: denied — no/);
    assert.deepEqual(
      activityRows([], { server: 'up' }).map((r) => r.label),
      ['Only server up'],
    );
  });

  test('follows the gateway’s feed live and its filter, and the next gateway after a restart', async () => {
    const g = new FakeGateway();
    const host = fakeHost({ gateway: g });
    const view = new ActivityView(host, fakeKit);
    let changes = 0;
    view.tree.onDidChangeTreeData(() => changes++);
    g.activity.append(record({ target: 'one' }));
    g.activity.append(record({ target: 'two', server: 'web' }));
    await until(() => changes >= 2);
    assert.deepEqual(
      view.rows()[0]!.children!.map((r) => r.label),
      ['web/two', 'up/one'],
    );
    view.setFilter({ server: 'up' });
    assert.deepEqual(
      view.rows().map((r) => r.label),
      ['Only server up', 'Claude Code'],
    );
    const next = new FakeGateway();
    host.gateway = next;
    host.changed();
    next.activity.append(record({ target: 'three' }));
    const before = changes;
    await until(() => changes > before);
    assert.deepEqual(
      view.rows()[1]!.children!.map((r) => r.label),
      ['up/three'],
    );
    view.dispose();
    await g.activity.close();
    await next.activity.close();
  });
});

describe('Manage Permissions’ rules, and a task’s calls', () => {
  const run = (id: string, d: Parameters<typeof invoke>[1], ...args: unknown[]) => invoke(COMMANDS[id]!, d, args);

  test('the rules in force, read-only, each with where it came from; the palette rule named as built in', async () => {
    const g = new FakeGateway();
    g.permissions = () =>
      withEditorRule({ default: 'allow', askTimeoutMs: 90_000, rules: [{ server: 'up', action: 'deny' }] });
    const host = Object.assign(fakeHost({ gateway: g }), { permissionsFrom: '/ws/.vscode/mcp.json' });
    const { d, shown, ui } = fakeDeps({ host, answers: [{ pick: 'Show the rules in force' }] });
    await run('mcpx.managePermissions', d);
    assert.deepEqual(ui.asked[0]!.labels, ['Revoke always-allow grants…', 'Show the rules in force']);
    assert.deepEqual(shown[0]!.result, {
      default: 'allow',
      askTimeoutMs: 90_000,
      rules: [
        { rule: 'permissions.rules[0]', says: 'deny when server=up', from: '/ws/.vscode/mcp.json' },
        {
          rule: 'permissions.rules[1]',
          says: 'ask when kind=tool, identity=mcpx:editor',
          from: 'built in: the palette asks before it calls a tool (docs/gateway.md "Permissions")',
        },
      ],
      grants: [],
    });
    await g.activity.close();
  });

  test('Filter Activity… offers every client and server seen; a row’s record opens whole (arguments and result)', async () => {
    const g = new FakeGateway();
    g.activity.append(record({ server: 'web', result: { content: [{ type: 'text', text: 'ok' }] } }));
    g.activity.append(record({ client: { identity: 'mcpx:editor', revision: 'r', transport: 'editor' } }));
    const { d, ui, filters, shown } = fakeDeps({ host: fakeHost({ gateway: g }), answers: [{ pick: 'web' }] });
    assert.deepEqual(await run('mcpx.filterActivity', d), { server: 'web' });
    assert.deepEqual(ui.asked[0]!.labels, ['Every call', 'Claude Code', 'mcpx:editor', 'up', 'web']);
    assert.deepEqual(filters, [{ server: 'web' }]);
    const [shownRecord] = g.activity.recent({ server: 'web' });
    await run('mcpx.showActivityRecord', d, shownRecord);
    assert.equal(shown[0]!.title, `web · echo ${shownRecord!.time}`);
    assert.deepEqual((shown[0]!.result as unknown as ActivityRecord).result, {
      content: [{ type: 'text', text: 'ok' }],
    });
    assert.deepEqual((shown[0]!.result as unknown as ActivityRecord).arguments, { text: 'hi' });
    await g.activity.close();
  });

  test('a task row’s calls: the records with its taskId (an mcpx_exec row: its run), or a notice', async () => {
    const g = new FakeGateway();
    g.activity.append(record({ target: 'in-task', taskId: 't1' }));
    g.activity.append(record({ target: 'in-run', path: 'mcpx_exec', run: 'r9' }));
    g.activity.append(record({ target: 'other' }));
    const { d, shown, ui } = fakeDeps({ host: fakeHost({ gateway: g }) });
    const task = (await run('mcpx.showTaskCalls', d, { kind: 'task', id: 't1' })) as ActivityRecord[];
    assert.deepEqual(
      task.map((r) => r.target),
      ['in-task'],
    );
    assert.equal(shown[0]!.title, 'calls of t1');
    const exec = (await run('mcpx.showTaskCalls', d, { kind: 'exec', id: 'r9' })) as ActivityRecord[];
    assert.deepEqual(
      exec.map((r) => r.target),
      ['in-run'],
    );
    assert.deepEqual(await run('mcpx.showTaskCalls', d, { kind: 'task', id: 'none' }), []);
    assert.deepEqual(ui.said('info'), ['mcpx: no calls of that task are in the Activity log.']);
    await g.activity.close();
  });
});

describe('an approval waiting at the broker (no editor Approver set)', () => {
  test('the Questions view calls it an approval; Answer Question… answers it with the approval’s choices', async () => {
    const q = {
      id: 'q1',
      server: 'up',
      method: APPROVAL_METHOD,
      params: { message: 'Claude wants to call up/wipe (permissions.rules[0])', arguments: { all: true } },
      reason: 'an approval',
      createdAt: Date.now(),
      deadline: Date.now() + 60_000,
    };
    const g = new FakeGateway({ questions: [q as never] });
    const tree = questionsTree(fakeHost({ gateway: g }), fakeKit);
    assert.match(tree.getChildren()[0]!.description, /^approval · \d+ s left$/);
    tree.dispose();
    const { d, ui } = fakeDeps({ host: fakeHost({ gateway: g }), answers: [{ pick: 'Deny' }] });
    await invoke(COMMANDS['mcpx.answerQuestion']!, d, ['q1']);
    assert.deepEqual(ui.asked[0], {
      kind: 'pick',
      title: 'mcpx: Claude wants to call up/wipe (permissions.rules[0])',
      placeHolder: 'arguments: {"all":true}',
      labels: ['Allow once', 'Allow until the gateway stops', 'Always allow', 'Deny'],
    });
    assert.deepEqual(g.answers, [['q1', { action: 'deny' }]]);
    await g.activity.close();
  });
});
