// The one store interface (src/store/store.ts), one suite run against both implementations: local files
// (src/store/files.ts) and a real Redis (src/redis/store.ts through dist/store-redis.js, Debian's
// redis-server started here) — a single server and a Redis Cluster of three masters. Key-value with expiry, compare-and-set under contention, keys by prefix,
// streams (order, ranges both ways, trimming), publish/subscribe between two store instances (two
// processes' worth), and the Redis client finding a restarted server again.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore, storeUrlProblem } from '../../src/store/open';
import type { Store } from '../../src/store/store';
import { type RedisServer, startRedis, startRedisCluster } from '../harness/redis';
import { storePairs } from '../harness/stores';
import { stays, until } from '../harness/wait';

const root = mkdtempSync(join(tmpdir(), 'mcpx-store-'));
let redis: RedisServer;
let cluster: Awaited<ReturnType<typeof startRedisCluster>>;
before(async () => {
  redis = await startRedis();
  cluster = await startRedisCluster();
});
after(async () => {
  await redis?.close();
  await cluster?.close();
  rmSync(root, { recursive: true, force: true });
});

const logs: string[] = [];
const log = (l: string) => logs.push(l);
const IMPLEMENTATIONS = storePairs(
  root,
  () => redis.url,
  log,
  () => cluster.url,
);

for (const [name, pair] of IMPLEMENTATIONS) {
  describe(`store: ${name}`, () => {
    let a: Store;
    let b: Store;
    before(async () => {
      [a, b] = await pair();
    });
    after(async () => {
      await a.close();
      await b.close();
    });

    test('set, get and delete; ifAbsent refuses a taken key; what one writes the other reads', async () => {
      assert.equal(await a.get('k1'), undefined);
      assert.equal(await a.set('k1', 'one'), true);
      assert.equal(await b.get('k1'), 'one');
      assert.equal(await b.set('k1', 'two', { ifAbsent: true }), false);
      assert.equal(await a.get('k1'), 'one');
      assert.equal(await b.set('k1', 'three'), true);
      assert.equal(await a.get('k1'), 'three');
      assert.equal(await a.del('k1'), true);
      assert.equal(await a.del('k1'), false);
      assert.equal(await b.get('k1'), undefined);
      assert.equal(await b.set('k1', 'four', { ifAbsent: true }), true);
    });

    test('a key with a ttl is gone after it, for keys() too; one without stays', async () => {
      // Long enough for the reads below to come before it ends, on a loaded machine and over Redis.
      await a.set('ttl/short', 'x', { ttlMs: 1_000 });
      await a.set('ttl/long', 'y');
      assert.equal(await b.get('ttl/short'), 'x');
      assert.deepEqual((await b.keys('ttl/')).sort(), ['ttl/long', 'ttl/short']);
      await until(async () => (await b.get('ttl/short')) === undefined, { what: 'ttl/short expired' });
      assert.equal(await b.get('ttl/short'), undefined);
      assert.deepEqual(await b.keys('ttl/'), ['ttl/long']);
      // An expired key is absent for ifAbsent and compare-and-set alike.
      await a.set('ttl/gone', 'z', { ttlMs: 50 });
      await until(async () => (await b.get('ttl/gone')) === undefined, { what: 'ttl/gone expired' });
      assert.equal(await b.cas('ttl/gone', undefined, 'new'), true);
      assert.equal(await a.get('ttl/gone'), 'new');
    });

    test('compare-and-set: only the holder of the current value wins; a delete by cas', async () => {
      assert.equal(await a.cas('c', undefined, 'v1'), true);
      assert.equal(await b.cas('c', undefined, 'v1'), false, 'the key is taken');
      assert.equal(await b.cas('c', 'v0', 'v2'), false, 'a stale expected value');
      assert.equal(await b.cas('c', 'v1', 'v2', { ttlMs: 60_000 }), true);
      assert.equal(await a.get('c'), 'v2');
      assert.equal(await a.cas('c', 'v2', undefined), true);
      assert.equal(await b.get('c'), undefined);
    });

    test('compare-and-set under contention: 40 increments from two stores, none lost', async () => {
      await a.set('counter', '0');
      const bump = async (s: Store) => {
        for (;;) {
          const cur = (await s.get('counter'))!;
          if (await s.cas('counter', cur, String(Number(cur) + 1))) return;
        }
      };
      await Promise.all(Array.from({ length: 40 }, (_, i) => bump(i % 2 ? a : b)));
      assert.equal(await a.get('counter'), '40');
    });

    test('keys by prefix: exactly those under it, a prefix with glob characters taken literally', async () => {
      await a.set('p/one', '1');
      await a.set('p/two', '2');
      await a.set('pq', '3');
      await a.set('g*[x]/1', '4');
      await a.set('gz/2', '5');
      assert.deepEqual((await b.keys('p/')).sort(), ['p/one', 'p/two']);
      assert.deepEqual(await b.keys('g*[x]/'), ['g*[x]/1']);
      assert.deepEqual(await b.keys('nothing/'), []);
    });

    test('streams: ids increase, ranges both ways and from an id, trimmed to about maxLen', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(await (i % 2 ? a : b).append('s1', `e${i}`));
      const sorted = [...ids].sort((x, y) => {
        const [xm, xs] = x.split('-').map(Number) as [number, number];
        const [ym, ys] = y.split('-').map(Number) as [number, number];
        return xm - ym || xs - ys;
      });
      assert.deepEqual(ids, sorted, 'ids increase');
      assert.equal(new Set(ids).size, 10);
      const oldest = await a.range('s1', { limit: 3 });
      assert.deepEqual(
        oldest.map((e) => e.value),
        ['e0', 'e1', 'e2'],
      );
      const newest = await b.range('s1', { limit: 3, newestFirst: true });
      assert.deepEqual(
        newest.map((e) => e.value),
        ['e9', 'e8', 'e7'],
      );
      const after5 = await a.range('s1', { after: ids[5], limit: 100 });
      assert.deepEqual(
        after5.map((e) => e.value),
        ['e6', 'e7', 'e8', 'e9'],
      );
      const before5 = await a.range('s1', { before: ids[5], limit: 2, newestFirst: true });
      assert.deepEqual(
        before5.map((e) => e.value),
        ['e4', 'e3'],
      );
      assert.deepEqual(await a.range('no-such-stream', { limit: 5 }), []);
      for (let i = 0; i < 500; i++) await a.append('s2', `x${i}`, { maxLen: 50 });
      const kept = await b.range('s2', { limit: 10_000 });
      assert.ok(kept.length >= 50 && kept.length < 250, `kept ${kept.length}`);
      assert.equal(kept.at(-1)?.value, 'x499', 'the newest are kept');
    });

    test('publish/subscribe: every subscriber of either store hears a message once; none after it stops', async () => {
      const heardA: string[] = [];
      const heardB: string[] = [];
      const offA = await a.subscribe('ch', (m) => heardA.push(m));
      const offB = await b.subscribe('ch', (m) => heardB.push(m));
      await a.publish('ch', 'from a');
      await b.publish('ch', 'from b');
      await b.publish('other', 'not on ch');
      await until(() => heardA.length === 2 && heardB.length === 2, { what: 'both heard both' });
      assert.deepEqual(heardA.sort(), ['from a', 'from b']);
      assert.deepEqual(heardB.sort(), ['from a', 'from b']);
      await offB();
      await a.publish('ch', 'after');
      await until(() => heardA.length === 3, { what: 'a heard it' });
      await stays(() => heardB.length === 2, { for: 200, what: 'a stopped subscriber hears nothing' });
      assert.equal(heardB.length, 2, 'a stopped subscriber hears nothing');
      await offA();
    });
  });
}

describe('store: opening', () => {
  test('a URL of no store is refused, naming the schemes, its password never quoted', async () => {
    assert.match(storeUrlProblem('http://x') ?? '', /redis:\/\/, rediss:\/\/.*file:\/\//);
    assert.equal(storeUrlProblem('redis://127.0.0.1:6379'), undefined);
    const bad = storeUrlProblem('not a url with secret');
    assert.match(bad ?? '', /is not a URL/);
    await assert.rejects(openStore({ url: 'ftp://u:hunter2@x', prefix: '', log }), (e: Error) => {
      assert.doesNotMatch(e.message, /hunter2/);
      return true;
    });
  });

  test('a Redis that does not answer: refused at open within the timeout, naming it without a password', async () => {
    const started = Date.now();
    await assert.rejects(
      openStore({ url: 'redis://user:hunter2@127.0.0.1:1', prefix: '', log, connectTimeoutMs: 500 }),
      (e: Error) => {
        assert.match(e.message, /127\.0\.0\.1:1/);
        assert.doesNotMatch(e.message, /hunter2/);
        return true;
      },
    );
    assert.ok(Date.now() - started < 5000);
    assert.ok(!logs.some((l) => l.includes('hunter2')), 'no password in a log line');
  });

  test('Redis restarted: commands fail while it is away, then the client is back, subscriptions too', async () => {
    const s = await openStore({ url: redis.url, prefix: '{restart}:', log });
    const other = await openStore({ url: redis.url, prefix: '{restart}:', log });
    const ups: boolean[] = [];
    s.onUp((u) => ups.push(u));
    const heard: string[] = [];
    await s.subscribe('ch', (m) => heard.push(m));
    await s.set('kept', 'yes');
    await redis.stop();
    await until(() => !s.up, { what: 's sees it down' });
    await assert.rejects(s.get('kept'), /store .*refused/);
    await redis.restart();
    await until(() => s.up, { what: 's is back', timeout: 10_000 });
    await until(() => other.up, { what: 'other is back', timeout: 10_000 });
    assert.deepEqual(ups, [false, true]);
    assert.equal(await s.get('kept'), 'yes', 'the append-only file kept it');
    // The subscription is made again by the client: a message published now is heard.
    await until(
      async () => {
        await other.publish('ch', 'again');
        return heard.includes('again');
      },
      { what: 'heard after restart', timeout: 10_000 },
    );
    await s.close();
    await other.close();
  });
});
