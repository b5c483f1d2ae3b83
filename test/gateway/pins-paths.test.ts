// Pins on every path (docs/gateway.md "Pins"), in gateway mode: once the upstream changes the tool rug,
// mcpx_tools and mcpx_describe show its pinned form (or nothing, when its input schema changed), and a call
// of it is refused naming the review — through mcpx_call, an mcpx_exec script, the palette (the facade's
// callTool) and a 2025-11-25 task — with the activity record and the approval request naming the pin state;
// a prompt is pinned too; `pins.newTools: hold` holds a tool that is new; `warn` logs and lets the change
// through; `off` pins nothing; a server's own `pins` overrides the setting.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { listen } from '../../src/app/app';
import { gatewayRoutes } from '../../src/app/routes';
import { parseConfig } from '../../src/config/file';
import { Settings } from '../../src/config/settings';
import type { ActivityRecord } from '../../src/gateway/activity/record';
import { Gateway } from '../../src/gateway/gateway';
import type { ApprovalRequest } from '../../src/gateway/permissions/approval';
import { MemoryGrantStore } from '../../src/gateway/permissions/grants';
import { editorContext } from '../../src/vscode/editorCall';
import { RUG, RUG_PULLED } from '../fixtures/upstream/surface';
import { fixtureCommand } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';

const LEGACY = '2025-11-25';
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const textOf = (r: Json | undefined): string =>
  ((r?.content as Json[] | undefined) ?? []).map((b) => String(b.text ?? '')).join('');

interface Up {
  g: Gateway;
  c: HttpClient;
  dir: string;
  logs: string[];
  records: ActivityRecord[];
  asked: ApprovalRequest[];
  call(server: string, tool: string, args: Json): Promise<Json>;
  close(): Promise<void>;
}

/** A gateway (gateway mode) in front of `a`, a fixture with the tool rug; its state in a fresh directory. */
async function up(rug: string, values: Record<string, unknown> = {}, def: Json = {}, permissions?: Json): Promise<Up> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-pins-paths-'));
  dirs.push(dir);
  const config = parseConfig(
    {
      servers: { a: { ...fixtureCommand(['--rev', LEGACY, '--name', 'a', '--rug', rug]), ...def } },
      ...(permissions ? { permissions } : {}),
    },
    'test',
    { env: process.env },
  );
  assert.deepEqual(config.issues, []);
  const settings = new Settings([{ source: 'flag', values: { 'pool.startTimeout': '5s', ...values } }]);
  const logs: string[] = [];
  const records: ActivityRecord[] = [];
  const asked: ApprovalRequest[] = [];
  const g = new Gateway(config, settings, {
    stateDir: dir,
    log: (l) => logs.push(l),
    permissions: {
      grants: new MemoryGrantStore(),
      approver: {
        ask: async (r) => {
          asked.push(r);
          return 'once';
        },
      },
      activity: { append: (r) => records.push(r) },
    },
  });
  const l = await listen({ provider: g, settings, port: 0, address: '127.0.0.1', routes: gatewayRoutes(g) });
  const c = new HttpClient(l.endpoint, LEGACY);
  await c.initialize();
  const call = async (server: string, tool: string, args: Json) =>
    (await c.request('tools/call', { name: 'mcpx_call', arguments: { server, tool, arguments: args } })).result!;
  return {
    g,
    c,
    dir,
    logs,
    records,
    asked,
    call,
    close: async () => {
      await l.close();
      await g.close();
    },
  };
}

/** mcpx_tools's entries for the upstream tools named `name` (or starting with it, ending in `*`). */
const found = async (u: Up, name = 'rug'): Promise<Json[]> =>
  (
    (
      (await u.c.request('tools/call', { name: 'mcpx_tools', arguments: { query: name.replace('*', '') } })).result!
        .structuredContent as Json
    ).tools as Json[]
  ).filter((t) => (name.endsWith('*') ? String(t.tool).startsWith(name.slice(0, -1)) : t.tool === name));

/** The upstream pulls the rug and says so (list_changed, seen as the gateway's list.changed event). */
async function pull(u: Up): Promise<void> {
  let heard = false;
  const off = u.g.onEvent((e) => {
    if (e.type === 'list.changed' && e.server === 'a') heard = true;
  });
  assert.equal(textOf(await u.call('a', 'pull', {})), 'pulled');
  await until(() => heard, { what: "the upstream's tools/list_changed" });
  off();
}

describe('gateway mode: every path sees the same held state', () => {
  test('a changed description: the pinned form in mcpx_tools and mcpx_describe; refused on every path', async () => {
    const u = await up('description', {}, {}, { default: 'ask' });
    try {
      assert.equal((await found(u))[0]?.description, RUG);
      assert.equal(u.records.at(-1)?.pin, undefined, 'nothing called yet');
      assert.equal(textOf(await u.call('a', 'rug', { text: 'before' })), 'before');
      assert.equal(u.records.at(-1)?.pin, 'pinned');
      assert.equal(u.asked.at(-1)?.pin, 'pinned', 'the approval request names the pin state');
      await pull(u);
      // mcpx_tools fetches the list again (the upstream said it changed): the pinned form.
      assert.equal((await found(u))[0]?.description, RUG);
      const view = u.g.pinViews('a')[0]!;
      assert.deepEqual(view.held, [
        { kind: 'tools', name: 'rug', reason: 'changed', listed: true, changed: ['description'] },
      ]);
      const d = await u.c.request('tools/call', { name: 'mcpx_describe', arguments: { server: 'a', tool: 'rug' } });
      assert.doesNotMatch(JSON.stringify(d.result), /id_rsa/, 'mcpx_describe shows the pinned form');
      const asked = u.asked.length;
      const refusals = [
        ['mcpx_call', await u.call('a', 'rug', { text: 'x' })],
        [
          'mcpx_exec',
          (
            await u.c.request('tools/call', {
              name: 'mcpx_exec',
              arguments: { script: "return await mcpx.call('a', 'rug', { text: 'x' });" },
            })
          ).result!,
        ],
        [
          'palette',
          await u.g.callTool('mcpx_call', { server: 'a', tool: 'rug', arguments: { text: 'x' } }, editorContext()),
        ],
      ] as const;
      for (const [path, r] of refusals) {
        assert.match(JSON.stringify(r), /mcpx holds the tool \\"rug\\" of a|mcpx holds the tool "rug" of a/, path);
        assert.match(JSON.stringify(r), /mcpx pins diff a/, path);
      }
      assert.equal(u.asked.length, asked, 'nobody is asked about a held tool');
      const held = u.records.filter((r) => r.pin === 'held');
      assert.deepEqual(
        held.map((r) => [r.path, r.outcome.status, r.outcome.code, r.decision.rule]),
        [
          ['mcpx_call', 'denied', 'pins.held', 'pins'],
          ['mcpx_exec', 'denied', 'pins.held', 'pins'],
          ['palette', 'denied', 'pins.held', 'pins'],
        ],
      );
      // A 2025-11-25 task: its result is the same refusal.
      const created = (
        await u.c.request('tools/call', {
          name: 'mcpx_call',
          arguments: { server: 'a', tool: 'rug', arguments: { text: 'x' } },
          task: { ttl: 60_000 },
        })
      ).result!;
      const taskId = (created.task as Json).taskId;
      const result = (await u.c.request('tasks/result', { taskId })).result!;
      assert.equal(result.isError, true);
      assert.match(textOf(result), /mcpx pins diff a/);
      // Accepted: the new form everywhere, callable.
      assert.deepEqual(u.g.acceptPins('a'), ['rug']);
      assert.equal((await found(u))[0]?.description, `${RUG} ${RUG_PULLED}`);
      assert.equal(textOf(await u.call('a', 'rug', { text: 'after' })), 'after');
      assert.equal(u.records.at(-1)?.pin, 'pinned');
    } finally {
      await u.close();
    }
  });

  test('a changed input schema: withheld from mcpx_tools; refused; reset pins what is listed next', async () => {
    const u = await up('schema');
    try {
      assert.equal((await found(u)).length, 1);
      await pull(u);
      assert.deepEqual(await found(u), [], 'withheld');
      const r = await u.call('a', 'rug', { text: 'x', key: 'k' });
      assert.equal(r.isError, true);
      assert.match(textOf(r), /changed since it was pinned \(inputSchema\)/);
      const review = u.g.pinReviews('a', 'rug')[0]!;
      assert.match(review.diff, /^\+ {4}"required": \[$/m);
      assert.equal(u.g.resetPins('a'), true);
      assert.equal((await found(u)).length, 1, 'pinned afresh');
      assert.equal(textOf(await u.call('a', 'rug', { text: 'x', key: 'k' })), 'x');
    } finally {
      await u.close();
    }
  });

  test('pins.newTools hold: a tool that is new is withheld and refused until accepted; allow (default) lets it in', async () => {
    const held = await up('description', { 'pins.newTools': 'hold' });
    const allowed = await up('description');
    try {
      for (const u of [held, allowed]) {
        assert.equal((await found(u, 'added_*')).length, 0);
        assert.match(textOf(await u.call('a', 'mutate', {})), /added added_1/);
      }
      assert.deepEqual(await found(held, 'added_*'), []);
      const r = await held.call('a', 'added_1', { text: 'x' });
      assert.match(textOf(r), /is new since its definitions were pinned \(pins.newTools is hold\)/);
      assert.equal(held.g.pinReviews('a')[0]!.reason, 'new');
      assert.deepEqual(held.g.acceptPins('a', 'added_1'), ['added_1']);
      assert.equal(textOf(await held.call('a', 'added_1', { text: 'now' })), 'now');
      assert.equal((await found(allowed, 'added_*')).length, 1);
      assert.equal(textOf(await allowed.call('a', 'added_1', { text: 'ok' })), 'ok');
      assert.deepEqual(allowed.g.pinViews('a')[0]!.tools.includes('added_1'), true, 'a new tool allowed is pinned');
    } finally {
      await held.close();
      await allowed.close();
    }
  });

  test('warn logs the change and lets it through; off pins nothing; a server`s own pins overrides', async () => {
    const warn = await up('description', { 'pins.mode': 'warn' });
    const off = await up('description', { 'pins.mode': 'off' });
    const override = await up('description', { 'pins.mode': 'off' }, { pins: 'hold' });
    try {
      for (const u of [warn, off, override]) {
        assert.equal((await found(u))[0]?.description, RUG);
        await pull(u);
      }
      assert.equal((await found(warn))[0]?.description, `${RUG} ${RUG_PULLED}`);
      assert.equal(textOf(await warn.call('a', 'rug', { text: 'w' })), 'w');
      assert.equal(warn.records.at(-1)?.pin, 'changed');
      assert.ok(warn.logs.some((l) => /tool rug changed since it was pinned \(description\); let through/.test(l)));
      assert.equal((await found(off))[0]?.description, `${RUG} ${RUG_PULLED}`);
      assert.equal(textOf(await off.call('a', 'rug', { text: 'o' })), 'o');
      assert.equal(off.records.at(-1)?.pin, 'off');
      assert.equal(existsSync(join(off.dir, 'tool-pins.json')), false, 'off writes no pins');
      assert.equal((await found(override))[0]?.description, RUG, "the server's pins: hold wins over the setting");
      assert.equal((await override.call('a', 'rug', { text: 'x' })).isError, true);
    } finally {
      for (const u of [warn, off, override]) await u.close();
    }
  });
});
