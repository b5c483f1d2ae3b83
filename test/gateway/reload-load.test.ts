// A change of configuration applied in place under load (docs/gateway.md "Changing the configuration"):
// resource subscriptions kept across it, pass-through servers removed and added, and many clients of
// both eras calling while the configuration changes — no call fails, nothing is lost.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseConfig } from '../../src/config/file';
import { Settings } from '../../src/config/settings';
import { ReloadError } from '../../src/gateway/reload';
import { HttpPeer } from '../fixtures/upstream/client';
import { killHostiles } from '../harness/hostile';
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
const settings = (values: Json = {}) => new Settings([{ source: 'flag', values }]);

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
      await until(() => inbound(rec2, 'resources/subscribe') === 1, {
        what: 'the new instance subscribed without a call',
      });
      await peer.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'c', tool: 'touch', arguments: { uri: 'fixture://doc' } },
      });
      await until(
        () => peer.frames.some((f) => f.method === 'notifications/resources/updated' && (f.params as Json).uri === DOC),
        { what: 'the update from the new instance' },
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
      await until(() => peer.frames.some((f) => f.method === 'notifications/tools/list_changed'), {
        what: 'tools/list_changed',
      });
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
      await until(() => heard() === 1 && heardModern() === 1, { what: 'tools/list_changed (added)' });
      assert.ok((await names()).includes('echo'));
      const d = await gw.g.reload(parseConfig({ servers: {} }, 'test', { env: process.env }), settings(values));
      assert.deepEqual(d.removed, ['p']);
      await until(() => heard() === 2 && heardModern() === 2, { what: 'tools/list_changed (removed)' });
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
          await until(() => l.frames().length >= 1, { what: 'the listen acknowledgement' });
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
        await until(() => heard.legacy().every((n) => n >= announced), {
          what: `${what}: every legacy session heard it`,
        });
        await until(() => heard.modern().every((n) => n >= announced), {
          what: `${what}: every listen stream heard it`,
        });
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
      await until(() => [...pids].every((pid) => !alive(pid)), { what: 'no instance of b left' });
    } finally {
      for (const s of stops) s();
      await gw.close();
    }
  });
});
