// A change of configuration applied in place (docs/gateway.md "Changing the configuration"): the diff,
// and a gateway whose clients of both eras keep calling server A while server B is added, changed,
// removed, a setting changes and an invalid configuration is refused — no call to A fails, no session
// is lost, each list-altering change is announced the way each era defines, B's old instances end, and a
// call running on B's old instance finishes there.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseConfig } from '../../src/config/file';
import { parseServer } from '../../src/config/servers';
import { Settings } from '../../src/config/settings';
import { ReloadError, diffConfig, enabledServers } from '../../src/gateway/reload';
import { HttpPeer } from '../fixtures/upstream/client';
import { events, hostile, killHostiles } from '../harness/hostile';
import { alive } from '../harness/process';
import { fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json, modernListen } from '../harness/wire';
import { until } from '../harness/wait';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-reload-'));
after(() => {
  killAll();
  killHostiles();
  rmSync(dir, { recursive: true, force: true });
});

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
const text = (r: Json | undefined) => String(((r?.content as Json[]) ?? [])[0]?.text ?? '');
const call = (c: HttpClient, server: string, tool: string, args: Json = {}) =>
  c.request('tools/call', { name: 'mcpx_call', arguments: { server, tool, arguments: args } });

const def = (name: string, v: Json) => parseServer(name, v, 'test').def!;
const settings = (values: Json = {}) => new Settings([{ source: 'flag', values }]);

describe('diffConfig', () => {
  const a = def('a', { command: 'node', args: ['a.js'] });
  const b = def('b', { command: 'node', args: ['b.js'], env: { X: '1', Y: '2' } });
  test('added, removed, changed and kept servers; a definition written in another order is kept', () => {
    const before = new Map([
      ['a', a],
      ['b', b],
      ['c', def('c', { url: 'http://127.0.0.1:1/mcp' })],
    ]);
    const after = new Map([
      ['a', def('a', { command: 'node', args: ['a.js', '--more'] })],
      ['b', def('b', { env: { Y: '2', X: '1' }, args: ['b.js'], command: 'node' })],
      ['d', def('d', { command: 'node' })],
    ]);
    const d = diffConfig(before, after, settings(), settings());
    assert.deepEqual(
      { added: d.added, removed: d.removed, changed: d.changed, kept: d.kept },
      { added: ['d'], removed: ['c'], changed: ['a'], kept: ['b'] },
    );
    assert.deepEqual([d.settings, d.atNextStart], [[], []]);
  });

  test('each definition field counts: URL, headers, scope, tools filter, disabled', () => {
    const h = def('h', { url: 'http://127.0.0.1:1/mcp' });
    for (const changed of [
      { url: 'http://127.0.0.1:2/mcp' },
      { url: 'http://127.0.0.1:1/mcp', headers: { A: 'b' } },
      { url: 'http://127.0.0.1:1/mcp', scope: 'identity' },
      { url: 'http://127.0.0.1:1/mcp', tools: { deny: ['x'] } },
    ]) {
      const d = diffConfig(new Map([['h', h]]), new Map([['h', def('h', changed)]]), settings(), settings());
      assert.deepEqual(d.changed, ['h'], JSON.stringify(changed));
    }
    const off = parseConfig({ servers: { h: { url: 'http://127.0.0.1:1/mcp', disabled: true } } }, 't', {
      env: {},
    });
    assert.deepEqual(diffConfig(new Map([['h', h]]), enabledServers(off), settings(), settings()).removed, ['h']);
  });

  test('settings: those applied live, and those (port, address) applied at the next start', () => {
    const d = diffConfig(
      new Map(),
      new Map(),
      settings({ port: 1234, 'pool.callTimeout': '10s' }),
      settings({ port: 4321, address: '127.0.0.2', 'pool.callTimeout': '20s', 'log.level': 'debug' }),
    );
    assert.deepEqual(d.settings.sort(), ['log.level', 'pool.callTimeout']);
    assert.deepEqual(d.atNextStart.sort(), ['address', 'port']);
  });
});

describe('Gateway.reload with clients of both eras calling', () => {
  test('A never fails, sessions stay, each change that alters the lists is announced, B ends cleanly', async () => {
    const rec = join(dir, 'b.jsonl');
    const A = fixtureCommand(['--rev', LEGACY, '--name', 'a']);
    const B1 = hostile('--record', rec, '--prompts', '["pb"]');
    const B2 = hostile('--record', rec, '--prompts', '["pb", "pb2"]');
    const gw = await gatewayFor({ a: A });
    const config = (servers: Json) => parseConfig({ servers }, 'test', { env: process.env });
    const values = { 'pool.probeTimeout': '1s', 'pool.startTimeout': '5s' };
    const stops: Array<() => void> = [];
    try {
      const legacy = new HttpClient(gw.url, LEGACY);
      await legacy.initialize();
      const modern = new HttpClient(gw.url, MODERN);
      // The listeners: a legacy session's GET stream, a 2026-07-28 listen stream.
      const peer = new HttpPeer(LEGACY, gw.url);
      await peer.initialize({});
      const stream = await peer.listen();
      stops.push(stream.close);
      const listen = await modernListen(gw.url);
      stops.push(listen.close);
      await until(() => listen.frames().length >= 1, { what: 'the listen acknowledgement' });
      const legacyChanges = () => peer.frames.filter((f) => f.method === 'notifications/prompts/list_changed').length;
      const modernChanges = () =>
        listen.frames().filter((f) => f.method === 'notifications/prompts/list_changed').length;

      // Both eras call A in a loop for the whole test.
      let running = true;
      const counts = { ok: 0, failed: [] as string[] };
      const loop = async (c: HttpClient) => {
        for (let i = 0; running; i++) {
          const r = await call(c, 'a', 'echo', { text: `n${i}` });
          if (text(r.result) === `n${i}`) counts.ok++;
          else counts.failed.push(JSON.stringify(r.error ?? r.result));
        }
      };
      const loops = [loop(legacy), loop(modern)];
      let announced = 0;
      const announcedOnce = async (what: string) => {
        announced++;
        await until(() => legacyChanges() >= announced, { what: `${what}: legacy prompts/list_changed` });
        await until(() => modernChanges() >= announced, { what: `${what}: 2026-07-28 prompts/list_changed` });
      };
      const pidOf = (name: string) => gw.g.servers().find((s) => s.name === name && s.state === 'running')?.pid;

      // 1. B added.
      let d = await gw.g.reload(config({ a: A, b: B1 }), settings(values));
      assert.deepEqual([d.added, d.kept, d.removed, d.changed], [['b'], ['a'], [], []]);
      await announcedOnce('b added');
      const release = join(dir, 'release');
      const held = call(legacy, 'b', 'hold', { release });
      await until(() => events(rec).some((e) => e.event === 'holding'), { what: 'B holding' });
      const oldPid = pidOf('b')!;
      assert.ok(oldPid && alive(oldPid));

      // 2. B's args changed while a call runs on its old instance: new calls go to a new one.
      d = await gw.g.reload(config({ a: A, b: B2 }), settings(values));
      assert.deepEqual(d.changed, ['b']);
      await announcedOnce('b changed');
      const prompts = (await legacy.request('prompts/list')).result?.prompts as Json[];
      assert.ok(
        prompts.some((p) => String(p.name).endsWith('pb2')),
        'the new instance lists its prompts',
      );
      const newPid = pidOf('b')!;
      assert.ok(newPid && newPid !== oldPid, 'a new instance serves new calls');
      assert.ok(alive(oldPid), 'the old instance still runs its call');
      writeFileSync(release, '');
      assert.equal(text((await held).result), 'released', 'the call on the old instance finished with its result');
      await until(() => !alive(oldPid), { what: 'the old instance of b gone' });

      // 3. A setting changed: applied live, nothing announced.
      d = await gw.g.reload(config({ a: A, b: B2 }), settings({ ...values, 'pool.callTimeout': '45s' }));
      assert.deepEqual([d.added, d.removed, d.changed, d.settings], [[], [], [], ['pool.callTimeout']]);
      assert.equal(gw.g.settings.duration('pool.callTimeout'), 45_000);

      // 4. An invalid configuration: refused whole, naming the problem; B still serves.
      await assert.rejects(
        gw.g.reload(config({ a: A, c: { type: 'stdio' } }), settings(values)),
        (e: unknown) => e instanceof ReloadError && /servers\.c/.test(e.message) && /not applied/.test(e.message),
      );
      assert.equal(text((await call(modern, 'b', 'echo', { text: 'still' })).result), 'still');

      // 5. B removed while a call holds it: the call ends naming the change, its process ends.
      rmSync(release);
      const holdingBefore = events(rec).filter((e) => e.event === 'holding').length;
      const cut = call(modern, 'b', 'hold', { release });
      await until(() => events(rec).filter((e) => e.event === 'holding').length > holdingBefore, {
        what: 'B holding again',
      });
      const lastPid = pidOf('b')!;
      d = await gw.g.reload(config({ a: A }), settings(values));
      assert.deepEqual([d.removed, d.kept], [['b'], ['a']]);
      const r = await cut;
      assert.match(String(r.error?.message), /server b was removed from the configuration/);
      assert.ok(!alive(lastPid), 'no orphan: B stopped before the reload resolved');
      await announcedOnce('b removed');
      const gone = await call(legacy, 'b', 'echo', { text: 'x' });
      assert.match(JSON.stringify(gone), /no server named \\"b\\"/);

      running = false;
      await Promise.all(loops);
      assert.deepEqual(counts.failed, [], 'no call to A failed');
      assert.ok(counts.ok > 0);
      // The same sessions and streams still work; each change that altered the lists was said once.
      assert.equal(text((await call(legacy, 'a', 'echo', { text: 'same session' })).result), 'same session');
      assert.equal(
        peer.frames.filter((f) => f.method === 'notifications/tools/list_changed').length,
        0,
        "gateway mode: the tools are the gateway's own and never change",
      );
      assert.equal(legacyChanges(), 3);
      assert.equal(modernChanges(), 3);
      assert.deepEqual(peer.problems, []);
    } finally {
      for (const s of stops) s();
      await gw.close();
    }
  });
});
