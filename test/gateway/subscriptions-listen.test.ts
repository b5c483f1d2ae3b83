// Resource subscriptions beyond the matrix (docs/protocol.md "Resource subscriptions"): the listen stream mcpx
// keeps to a 2026-07-28 upstream (what it asks for, reopened with a watched URI), and a bare URI offered by
// two pass-through servers. Every frame validated against its revision.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { checkRecorded, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { editorContext } from '../../src/vscode/editorCall';
import { until } from '../harness/wait';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-submatrix-'));
after(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('a 2026-07-28 upstream: the listen stream mcpx keeps', () => {
  test('list changes arrive on it (the cached list dropped and relayed); it is cancelled on stdio when no longer wanted', async () => {
    const record = join(dir, 'lc.jsonl');
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2026-07-28', '--name', 'up', '--record', record]) },
      { 'mcp.passthrough': ['up'] },
    );
    try {
      const c = new HttpClient(gw.url, '2026-07-28');
      const before = ((await c.request('tools/list')).result!.tools as Json[]).length;
      await until(() => readFileSync(record, 'utf8').includes('subscriptions/listen'), {
        what: 'the upstream listen stream',
      });
      const listen = checkRecorded(record, '2026-07-28').find((f) => f.method === 'subscriptions/listen')!;
      assert.deepEqual(
        (listen.params as Json).notifications,
        { toolsListChanged: true },
        'what the upstream declares, and no URI nobody wants',
      );
      await c.request('tools/call', { name: 'mutate', arguments: {} });
      const after = await until(
        async () => {
          const n = ((await c.request('tools/list')).result!.tools as Json[]).length;
          return n !== before ? n : undefined;
        },
        { what: 'tools/list to change' },
      );
      assert.equal(after, before + 1, 'the list_changed on the listen stream dropped the cached list');
      // Watching a URI reopens the stream with it; the old one is cancelled on stdio after the new one is acknowledged.
      const w = await gw.g.subscribe('mcpx://up/fixture://doc', () => undefined, editorContext());
      assert.equal(w.deliverable, true);
      const frames = checkRecorded(record, '2026-07-28');
      const listens = frames.filter((f) => f.method === 'subscriptions/listen');
      assert.equal(listens.length, 2);
      assert.deepEqual(((listens[1]!.params as Json).notifications as Json).resourceSubscriptions, ['fixture://doc']);
      await until(
        () =>
          checkRecorded(record, '2026-07-28').some(
            (f) => f.method === 'notifications/cancelled' && (f.params as Json).requestId === listens[0]!.id,
          ),
        { what: 'the first stream cancelled' },
      );
      w.release();
    } finally {
      await gw.close();
    }
  });
});

describe('a bare URI offered by two pass-through servers', () => {
  test('is watched where it is read: at the first that lists it', async () => {
    const ra = join(dir, 'first.jsonl');
    const rb = join(dir, 'second.jsonl');
    const gw = await gatewayFor(
      {
        a: fixtureCommand(['--rev', '2025-11-25', '--name', 'a', '--record', ra]),
        b: fixtureCommand(['--rev', '2025-11-25', '--name', 'b', '--record', rb]),
      },
      { 'mcp.passthrough': ['a', 'b'] },
    );
    try {
      const w = await gw.g.subscribe('fixture://doc', () => undefined, editorContext());
      assert.equal(w.deliverable, true, w.reason);
      // b may never even start: a lists the URI.
      const subscribed = (record: string) =>
        (existsSync(record) ? checkRecorded(record, '2025-11-25') : [])
          .filter((f) => f.method === 'resources/subscribe')
          .map((f) => (f.params as Json).uri);
      assert.deepEqual(subscribed(ra), ['fixture://doc']);
      assert.deepEqual(subscribed(rb), []);
      w.release();
    } finally {
      await gw.close();
    }
  });
});
