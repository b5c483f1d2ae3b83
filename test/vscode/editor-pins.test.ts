// The editor's side of pins (src/vscode/pins.ts, commands/reviewHeldTools.ts, the Upstreams view's held
// mark) in plain Node, over a real Gateway with the fixture upstream's --rug tool (docs/gateway.md
// "Pins"): its description changes after it was first listed → the notification names the server and
// the count; Review opens VS Code's diff editor (vscode.diff) on two read-only documents, the pinned
// and the new form; Accept accepts through the gateway, and the view's mark goes.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { GatewayEvent } from '../../src/gateway/editorPort';
import { EDITOR_IDENTITY, editorContext } from '../../src/vscode/editorCall';
import { type HeldPins, compareNow, heldSummary } from '../../src/vscode/pins';
import { COMMANDS } from '../../src/vscode/commands/table';
import { invoke } from '../../src/vscode/commands/command';
import { type UpstreamNode, UpstreamsTree } from '../../src/vscode/views/upstreams';
import { RUG_PULLED } from '../fixtures/upstream/surface';
import { fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { fakeDeps, fakeKit } from '../vscode-fakes/editor';
import { FakeGateway, fakeHost } from '../vscode-fakes/host';
import { until } from '../harness/wait';

after(() => killAll());

interface Item {
  description?: string;
  tooltip?: string;
  iconPath?: { id: string };
  contextValue?: string;
  command?: { command: string; arguments?: unknown[] };
}

test('the held summary counts tools and prompts and names them', () => {
  assert.deepEqual(heldSummary({ tools: ['rug'], prompts: [] }), { count: 1, text: '1 tool definition (rug)' });
  assert.deepEqual(heldSummary({ tools: ['a', 'b'], prompts: ['greet'] }), {
    count: 3,
    text: '2 tool definitions (a, b) and 1 prompt definition (greet)',
  });
  assert.deepEqual(heldSummary({ tools: [], prompts: [], skills: ['skill://notes/SKILL.md'] }), {
    count: 1,
    text: '1 skill definition (skill://notes/SKILL.md)',
  });
});

describe('a changed tool held, reviewed and accepted in the editor', async () => {
  const gw = await gatewayFor({ a: fixtureCommand(['--rev', '2025-11-25', '--name', 'a', '--rug', 'description']) });
  after(() => gw.close());
  const g = gw.g;
  const events: Array<GatewayEvent & { at: number }> = [];
  const off = g.onEvent((e) => void events.push(e));
  after(off);
  const host = fakeHost({ gateway: g });
  const tree = new UpstreamsTree(host, fakeKit);
  after(() => tree.dispose());
  const rows = async () => {
    const server = (await tree.getChildren()).find((n) => n.kind === 'server' && n.name === 'a')!;
    const tools = (await tree.getChildren(server))[0]!;
    return (await tree.getChildren(tools)).filter(
      (n): n is Extract<UpstreamNode, { kind: 'item' }> => n.kind === 'item',
    );
  };
  const rugRow = async () => {
    const n = (await rows()).find((r) => r.item.name === 'rug')!;
    return { n, t: tree.getTreeItem(n) as unknown as Item };
  };

  test('first listed: pinned, nothing marked', async () => {
    const { n, t } = await rugRow();
    assert.equal(n.held, undefined);
    assert.equal(t.contextValue, 'mcpx.tools');
    assert.doesNotMatch(String(t.description ?? ''), /held/);
  });

  const { d, ui, executed } = fakeDeps({ host });
  const pins = d.pins as HeldPins;

  test('pulled: the notification names the server and the count; Review opens the diff; Keep Held keeps it', async () => {
    const r = await g.callTool('mcpx_call', { server: 'a', tool: 'pull', arguments: {} }, editorContext());
    assert.notEqual(r.isError, true, JSON.stringify(r));
    // The upstream's list_changed: the editor lists the tools at once, and the gateway compares them.
    const changed = await until(() => events.find((e) => e.type === 'list.changed' && e.list === 'tools'), {
      what: 'list_changed',
    });
    await compareNow(g, changed);
    const held = await until(() => events.find((e) => e.type === 'pins.held'), { what: 'held' });
    assert.deepEqual(held, { type: 'pins.held', server: 'a', tools: ['rug'], prompts: [], apps: [], at: held.at });
    // The row: marked, with how to review, and Review in its context menu.
    const { n, t } = await rugRow();
    assert.equal(n.held, 'changed');
    assert.equal(t.description, 'held: changed since pinned');
    assert.equal(t.iconPath?.id, 'warning');
    assert.equal(t.contextValue, 'mcpx.tools.held');
    assert.match(String(t.tooltip), /Review Held Tools/);
    assert.deepEqual(t.command?.arguments, ['a', 'rug']);
    // Listed in its pinned form meanwhile.
    assert.doesNotMatch(JSON.stringify(n.item), /id_rsa/);

    ui.pressing((_text, items) =>
      items.includes('Review') ? 'Review' : items.includes('Keep Held') ? 'Keep Held' : undefined,
    );
    assert.equal(await pins.announce(g, held), 'Review');
    assert.deepEqual(
      ui.messages.map((m) => [m.level, m.text, m.items]),
      [
        [
          'warning',
          'mcpx: a has 1 tool definition (rug) changed since pinned; held (not offered in the new form) until you review.',
          ['Review', 'Keep Held'],
        ],
        [
          'info',
          'mcpx: accept the changed tool a/rug? Clients are offered the new form once accepted.',
          ['Accept', 'Keep Held'],
        ],
      ],
    );
    const diff = executed.find((c) => c[0] === 'vscode.diff')!;
    assert.ok(diff, JSON.stringify(executed));
    const [, left, right, title] = diff as [
      string,
      { scheme: string; path: string },
      { scheme: string; path: string },
      string,
    ];
    assert.equal(title, 'a/rug: pinned ↔ new (held)');
    assert.equal(left.scheme, 'mcpx-pins');
    const pinned = pins.provideTextDocumentContent(left as never);
    const now = pins.provideTextDocumentContent(right as never);
    assert.doesNotMatch(pinned, /id_rsa/);
    assert.match(now, /id_rsa/);
    assert.equal(now, g.pinReviews('a', 'rug')[0]!.current);
    // Kept held: still held, nothing accepted.
    assert.equal((await rugRow()).n.held, 'changed');
  });

  test('Review Held Tools… from the row, then Accept: the gateway accepts, the mark goes, the new description is listed', async () => {
    ui.messages.length = 0;
    ui.pressing((_text, items) => (items.includes('Accept') ? 'Accept' : undefined));
    const { n } = await rugRow();
    const accepted = await invoke(COMMANDS['mcpx.reviewHeldTools']!, d, [n]);
    assert.deepEqual(accepted, ['rug']);
    assert.deepEqual(ui.said('info').at(-1), 'mcpx: accepted rug of a; its clients are told.');
    const accepted2 = await until(
      async () => {
        const r = await rugRow();
        return String(r.n.item.description).includes(RUG_PULLED) ? r : undefined;
      },
      { what: 'the new form listed' },
    );
    assert.ok(accepted2);
    assert.equal(accepted2.n.held, undefined);
    assert.equal(accepted2.t.contextValue, 'mcpx.tools');
    assert.equal(g.pinViews('a')[0]!.held.length, 0);
    // Nothing held any more: the commands say so.
    ui.messages.length = 0;
    assert.deepEqual(await invoke(COMMANDS['mcpx.acceptHeldTools']!, d, []), []);
    assert.deepEqual(ui.said('info'), ['mcpx: no tool or prompt is held.']);
    assert.ok(
      (await g.serverList('a', 'tools', EDITOR_IDENTITY)).some((t) => String(t.description).includes(RUG_PULLED)),
    );
  });
});

test('Review Held Tools… from the palette: the server picked, then the definition of several; Keep Held accepts nothing', async () => {
  const review = (server: string, name: string, kind: 'tools' | 'prompts') => ({
    server,
    kind,
    name,
    reason: 'changed' as const,
    pinned: `{ "name": "${name}" }\n`,
    current: `{ "name": "${name}", "description": "new" }\n`,
    diff: '',
  });
  const held = (kind: 'tools' | 'prompts', name: string) => ({
    kind,
    name,
    reason: 'changed' as const,
    listed: true,
    changed: ['description'],
  });
  const g = new FakeGateway({
    pins: {
      views: [
        { server: 'a', mode: 'hold', tools: ['x'], prompts: [], apps: [], held: [held('tools', 'x')] },
        {
          server: 'b',
          mode: 'hold',
          tools: ['y'],
          prompts: ['p'],
          apps: [],
          held: [held('tools', 'y'), held('prompts', 'p')],
        },
        { server: 'c', mode: 'hold', tools: ['z'], prompts: [], apps: [], held: [] },
      ],
      reviews: [review('a', 'x', 'tools'), review('b', 'y', 'tools'), review('b', 'p', 'prompts')],
    },
  });
  const { d, ui, executed } = fakeDeps({ host: fakeHost({ gateway: g }), answers: [{ pick: 'b' }, { pick: 'p' }] });
  ui.pressing((_t, items) => (items.includes('Keep Held') ? 'Keep Held' : undefined));
  assert.deepEqual(await invoke(COMMANDS['mcpx.reviewHeldTools']!, d, []), []);
  assert.deepEqual(
    ui.asked.map((a) => [a.title, a.labels]),
    [
      ['mcpx: the server whose held definitions to review', ['a', 'b']],
      ['mcpx: the held definitions of b', ['y', 'p']],
    ],
  );
  assert.deepEqual(ui.said('info'), [
    'mcpx: accept the changed prompt b/p? Clients are offered the new form once accepted.',
  ]);
  const [, left, right, title] = executed.find((c) => c[0] === 'vscode.diff') as [
    string,
    { path: string },
    { path: string },
    string,
  ];
  assert.equal(title, 'b/p: pinned ↔ new (held)');
  const pins = d.pins as HeldPins;
  assert.equal(pins.provideTextDocumentContent(left as never), '{ "name": "p" }\n');
  assert.equal(pins.provideTextDocumentContent(right as never), '{ "name": "p", "description": "new" }\n');
  assert.ok(!g.calls.some((c) => c[0] === 'acceptPins'), 'nothing accepted');
});
