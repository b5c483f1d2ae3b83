// A change of configuration applied in place (docs/gateway.md "Changing the configuration"): the diff,
// and a gateway whose clients of both eras keep calling server A while server B is added, changed,
// removed, a setting changes and an invalid configuration is refused — no call to A fails, no session
// is lost, each list-altering change is announced the way each era defines, B's old instances end, and a
// call running on B's old instance finishes there.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseConfig } from '../../src/config/file';
import { parseServer } from '../../src/config/servers';
import { Settings } from '../../src/config/settings';
import { ReloadError, diffConfig, enabledServers } from '../../src/gateway/reload';
import { HttpPeer } from '../fixtures/upstream/client';
import { events, hostile, killHostiles, until } from '../harness/hostile';
import { alive } from '../harness/process';
import { fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json, modernListen } from '../harness/wire';

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
      await until('the listen acknowledgement', () => listen.frames().length >= 1);
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
        await until(`${what}: legacy prompts/list_changed`, () => legacyChanges() >= announced);
        await until(`${what}: 2026-07-28 prompts/list_changed`, () => modernChanges() >= announced);
      };
      const pidOf = (name: string) => gw.g.servers().find((s) => s.name === name && s.state === 'running')?.pid;

      // 1. B added.
      let d = await gw.g.reload(config({ a: A, b: B1 }), settings(values));
      assert.deepEqual([d.added, d.kept, d.removed, d.changed], [['b'], ['a'], [], []]);
      await announcedOnce('b added');
      const release = join(dir, 'release');
      const held = call(legacy, 'b', 'hold', { release });
      await until('B holding', () => events(rec).some((e) => e.event === 'holding'));
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
      await until('the old instance of b gone', () => !alive(oldPid));

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
      await until('B holding again', () => events(rec).filter((e) => e.event === 'holding').length > holdingBefore);
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

describe('Gateway.reload and resource subscriptions', () => {
  test("a changed server's watches move to its new instance; a removed server's end", async () => {
    const rec1 = join(dir, 'c1.jsonl');
    const rec2 = join(dir, 'c2.jsonl');
    const C1 = fixtureCommand(['--rev', LEGACY, '--name', 'c', '--record', rec1]);
    const C2 = fixtureCommand(['--rev', LEGACY, '--name', 'c', '--record', rec2]);
    const values = { 'pool.probeTimeout': '1s', 'pool.startTimeout': '5s' };
    const gw = await gatewayFor({ c: C1 }, values);
    const config = (servers: Json) => parseConfig({ servers }, 'test', { env: process.env });
    const inbound = (file: string, method: string) =>
      (existsSync(file) ? readFileSync(file, 'utf8') : '')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { dir: string; frame: Json })
        .filter((l) => l.dir === 'in' && l.frame.method === method).length;
    try {
      const peer = new HttpPeer(LEGACY, gw.url);
      await peer.initialize({});
      const stream = await peer.listen();
      const DOC = 'mcpx://c/fixture://doc';
      assert.deepEqual((await peer.request('resources/subscribe', { uri: DOC })).result, {});
      assert.equal(inbound(rec1, 'resources/subscribe'), 1);

      await gw.g.reload(config({ c: C2 }), settings(values));
      await until('the new instance subscribed without a call', () => inbound(rec2, 'resources/subscribe') === 1);
      await peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'c', tool: 'touch', arguments: { uri: 'fixture://doc' } },
      });
      await until('the update from the new instance', () =>
        peer.frames.some((f) => f.method === 'notifications/resources/updated' && (f.params as Json).uri === DOC),
      );
      assert.deepEqual(
        gw.g.watches().map((w) => [w.server, w.watchers]),
        [['c', 1]],
      );

      await gw.g.reload(config({}), settings(values));
      assert.deepEqual(gw.g.watches(), [], "the removed server's watches ended");
      assert.deepEqual((await peer.request('resources/unsubscribe', { uri: DOC })).result, {});
      stream.close();
      assert.deepEqual(peer.problems, []);
    } finally {
      await gw.close();
    }
  });
});

describe('Gateway.reload in pass-through', () => {
  test("a pass-through server's change is a tools/list_changed; its new tools are listed", async () => {
    const values = { 'pool.probeTimeout': '1s', 'pool.startTimeout': '5s', 'mcp.passthrough': ['p'] };
    const P = (extra: string[]) => fixtureCommand(['--rev', LEGACY, '--name', 'p', ...extra]);
    const gw = await gatewayFor({ p: P([]) }, values);
    try {
      const peer = new HttpPeer(LEGACY, gw.url);
      await peer.initialize({});
      const stream = await peer.listen();
      const names = async () =>
        (((await peer.request('tools/list')).result as Json).tools as Json[]).map((t) => String(t.name));
      const before = await names();
      assert.ok(!before.includes('extra'));
      const d = await gw.g.reload(
        parseConfig({ servers: { p: P(['--tool-name', 'extra']) } }, 'test', { env: process.env }),
        settings(values),
      );
      assert.deepEqual(d.changed, ['p']);
      await until('tools/list_changed', () => peer.frames.some((f) => f.method === 'notifications/tools/list_changed'));
      assert.ok((await names()).includes('extra'), 'the list is fetched anew from the new instance');
      stream.close();
      assert.deepEqual(peer.problems, []);
    } finally {
      await gw.close();
    }
  });
});

describe('Gateway.reload: the last pass-through server removed, and one added', () => {
  test('the clients that listed its tools hear tools/list_changed both ways; listChanged.tools was declared for them', async () => {
    // mcp.passthrough names p, which is not configured yet: a reload adds it, and a later one removes it.
    const values = { 'pool.probeTimeout': '1s', 'pool.startTimeout': '5s', 'mcp.passthrough': ['p'] };
    const P = fixtureCommand(['--rev', LEGACY, '--name', 'p']);
    const gw = await gatewayFor({}, values);
    try {
      const peer = new HttpPeer(LEGACY, gw.url);
      const init = await peer.initialize({});
      const caps = (init.result as Json).capabilities as Json;
      assert.deepEqual((caps.tools as Json).listChanged, true, 'declared: the setting names a server');
      const stream = await peer.listen();
      const modern = await modernListen(gw.url, { toolsListChanged: true });
      const heard = () => peer.frames.filter((f) => f.method === 'notifications/tools/list_changed').length;
      const heardModern = () => modern.frames().filter((f) => f.method === 'notifications/tools/list_changed').length;
      const names = async () =>
        (((await peer.request('tools/list')).result as Json).tools as Json[]).map((t) => String(t.name));
      await gw.g.reload(parseConfig({ servers: { p: P } }, 'test', { env: process.env }), settings(values));
      await until('tools/list_changed (added)', () => heard() === 1 && heardModern() === 1);
      assert.ok((await names()).includes('echo'));
      const d = await gw.g.reload(parseConfig({ servers: {} }, 'test', { env: process.env }), settings(values));
      assert.deepEqual(d.removed, ['p']);
      await until('tools/list_changed (removed)', () => heard() === 2 && heardModern() === 2);
      assert.ok(!(await names()).includes('echo'), 'its tools are gone');
      stream.close();
      modern.close();
      assert.deepEqual(peer.problems, []);
    } finally {
      await gw.close();
    }
  });
});

describe('Gateway.reload under load', () => {
  test('16 clients of both eras call A through 20 changes: none fails, every session stays, each hears every change', async () => {
    const A = fixtureCommand(['--rev', LEGACY, '--name', 'a']);
    const B1 = fixtureCommand(['--rev', LEGACY, '--name', 'b']);
    const B2 = fixtureCommand(['--rev', LEGACY, '--name', 'b', '--tools', '3']);
    const values = { 'pool.probeTimeout': '1s', 'pool.startTimeout': '5s' };
    const gw = await gatewayFor({ a: A }, values);
    const config = (servers: Json) => parseConfig({ servers }, 'test', { env: process.env });
    const stops: Array<() => void> = [];
    try {
      // Eight legacy sessions, each calling and listening on its own GET stream; eight 2026-07-28 clients,
      // each calling and listening on its own subscriptions/listen stream.
      const peers = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const p = new HttpPeer(LEGACY, gw.url);
          await p.initialize({});
          const s = await p.listen();
          stops.push(s.close);
          return p;
        }),
      );
      const moderns = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const l = await modernListen(gw.url);
          stops.push(l.close);
          await until('the listen acknowledgement', () => l.frames().length >= 1);
          return { c: new HttpClient(gw.url, MODERN), l };
        }),
      );
      const heard = {
        legacy: () =>
          peers.map((p) => p.frames.filter((f) => f.method === 'notifications/prompts/list_changed').length),
        modern: () =>
          moderns.map((m) => m.l.frames().filter((f) => f.method === 'notifications/prompts/list_changed').length),
      };
      let running = true;
      const failed: string[] = [];
      let ok = 0;
      const args = (i: number) => ({
        name: 'mcpx_call',
        arguments: { server: 'a', tool: 'echo', arguments: { text: `n${i}` } },
      });
      const loops = [
        ...peers.map(async (p) => {
          for (let i = 0; running; i++) {
            const r = await p.request('tools/call', args(i));
            if (text(r.result as Json) === `n${i}`) ok++;
            else failed.push(JSON.stringify(r.error ?? r.result));
          }
        }),
        ...moderns.map(async ({ c }) => {
          for (let i = 0; running; i++) {
            const r = await c.request('tools/call', args(i));
            if (text(r.result) === `n${i}`) ok++;
            else failed.push(JSON.stringify(r.error ?? r.result));
          }
        }),
      ];
      const pids = new Set<number>();
      const pidOfB = () => gw.g.servers().find((s) => s.name === 'b' && s.state === 'running')?.pid;
      let announced = 0;
      const everyoneHeard = async (what: string) => {
        announced++;
        await until(`${what}: every legacy session heard it`, () => heard.legacy().every((n) => n >= announced));
        await until(`${what}: every listen stream heard it`, () => heard.modern().every((n) => n >= announced));
      };
      for (let round = 0; round < 4; round++) {
        await gw.g.reload(config({ a: A, b: B1 }), settings(values));
        await everyoneHeard(`round ${round}: b added`);
        assert.equal(
          text(
            (
              await peers[0]!.request('tools/call', {
                name: 'mcpx_call',
                arguments: { server: 'b', tool: 'echo', arguments: { text: 'b' } },
              })
            ).result as Json,
          ),
          'b',
        );
        pids.add(pidOfB()!);
        await gw.g.reload(config({ a: A, b: B2 }), settings(values));
        await everyoneHeard(`round ${round}: b changed`);
        assert.equal(
          text(
            (
              await moderns[0]!.c.request('tools/call', {
                name: 'mcpx_call',
                arguments: { server: 'b', tool: 'echo', arguments: { text: 'b2' } },
              })
            ).result,
          ),
          'b2',
        );
        pids.add(pidOfB()!);
        await gw.g.reload(config({ a: A, b: B2 }), settings({ ...values, 'pool.callTimeout': `${40 + round}s` }));
        await assert.rejects(gw.g.reload(config({ a: A, b: B2, c: { type: 'stdio' } }), settings(values)), ReloadError);
        await gw.g.reload(config({ a: A }), settings(values));
        await everyoneHeard(`round ${round}: b removed`);
      }
      running = false;
      await Promise.all(loops);
      assert.deepEqual(failed, [], 'no call to A failed');
      assert.ok(ok >= 16, `calls to A answered throughout (${ok})`);
      assert.deepEqual(
        heard.legacy(),
        Array(8).fill(12),
        'each legacy session heard each of the 12 list-altering changes once',
      );
      assert.deepEqual(
        heard.modern(),
        Array(8).fill(12),
        'each listen stream heard each of the 12 list-altering changes once',
      );
      // The same sessions still answer; every instance of B that ran has exited.
      for (const p of peers) assert.equal(text((await p.request('tools/call', args(-1))).result as Json), 'n-1');
      for (const p of peers) assert.deepEqual(p.problems, []);
      assert.equal(pids.size, 8, 'each add and change ran a new instance of b');
      await until('no instance of b left', () => [...pids].every((pid) => !alive(pid)));
    } finally {
      for (const s of stops) s();
      await gw.close();
    }
  });
});
