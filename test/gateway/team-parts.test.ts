// What a team's replicas share, part by part (src/team/), each run on both stores — local files and a
// real Redis (Debian's redis-server started here, alone and as a Cluster of three) — with two instances standing for two replicas: sign-ins
// sealed (never in clear in the store, unreadable under another store.key), the shared secrets made once,
// grants and pins held by every replica (changes from two at once both land; a pin change re-screens the
// other's lists), a list change told once per replica, tasks of a stopped replica failed with the reason
// and taken in by another, artifacts read through another replica by their own identity only, and the
// activity stream read newest first across writers.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Artifacts } from '../../src/gateway/surface/artifacts';
import type { Grant } from '../../src/gateway/permissions/approval';
import type { CallContext } from '../../src/server/provider';
import { BackgroundCall, BackgroundCalls } from '../../src/server/mrtr';
import { Tasks } from '../../src/server/tasks';
import type { Store } from '../../src/store/store';
import { StoreActivity } from '../../src/team/activity';
import { SharedArtifacts } from '../../src/team/board';
import { SharedGrantStore } from '../../src/team/grants';
import { SharedLists } from '../../src/team/lists';
import { SharedPinStore } from '../../src/team/pins';
import { SealedSecretStore, Sealer, sharedSecret } from '../../src/team/sealed';
import { SharedTasks } from '../../src/team/tasks';
import { record } from '../harness/activity';
import { type RedisServer, startRedis, startRedisCluster } from '../harness/redis';
import { storePairs } from '../harness/stores';
import { stays, until } from '../harness/wait';

const root = mkdtempSync(join(tmpdir(), 'mcpx-team-parts-'));
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
const KEY = 'a-key-of-at-least-32-characters-0001';
const STORES = storePairs(
  root,
  () => redis.url,
  log,
  () => cluster.url,
);

const ctx = (identity: string) => ({ identity, transport: 'http' }) as unknown as CallContext;
const grant = (id: string): Grant => ({
  id,
  kind: 'tool',
  server: 'up',
  tool: 'add',
  client: 'agent',
  createdAt: Date.now(),
});

for (const [name, pair] of STORES) {
  describe(`team parts on ${name}`, () => {
    let a: Store;
    let b: Store;
    before(async () => {
      [a, b] = await pair();
    });
    after(async () => {
      await a.close();
      await b.close();
    });

    test('sign-ins are sealed: never in clear in the store, read by a replica with the key, not without', async () => {
      const token = 'at-7f3c9a1e5d2b48c6-very-secret';
      const mine = new SealedSecretStore(a, new Sealer(KEY), log);
      await mine.set('mcpx.oauth/up', JSON.stringify({ issuer: 'https://as', access_token: token }));
      const raw = await a.get('secret/mcpx.oauth/up');
      assert.ok(raw);
      assert.doesNotMatch(raw, /very-secret|access_token|issuer/);
      const theirs = new SealedSecretStore(b, new Sealer(KEY), log);
      assert.match((await theirs.get('mcpx.oauth/up')) ?? '', new RegExp(token));
      const wrong = new SealedSecretStore(b, new Sealer(`${KEY}-other`), log);
      assert.equal(await wrong.get('mcpx.oauth/up'), undefined);
      assert.ok(logs.some((l) => /does not open with this replica's store.key/.test(l)));
      // Bound to its name: moved under another key, it does not open.
      await b.set('secret/mcpx.oauth/other', raw);
      assert.equal(await theirs.get('mcpx.oauth/other'), undefined);
      await theirs.delete('mcpx.oauth/up');
      assert.equal(await mine.get('mcpx.oauth/up'), undefined);
      assert.throws(() => new Sealer('short'), /at least 32 characters/);
    });

    test('a shared secret is made once, whoever asks first; a replica with another key is refused', async () => {
      const [x, y] = await Promise.all([
        sharedSecret(a, new Sealer(KEY), 'endpoint-secret', () => 'from-a'),
        sharedSecret(b, new Sealer(KEY), 'endpoint-secret', () => 'from-b'),
      ]);
      assert.equal(x, y);
      assert.ok(x === 'from-a' || x === 'from-b');
      await assert.rejects(
        sharedSecret(b, new Sealer(`${KEY}-other`), 'endpoint-secret', () => 'c'),
        /every replica must be given the same store.key/,
      );
    });

    test('grants: given on either replica at once, both land and both replicas hold both; a revoke holds on both', async () => {
      const ga = await new SharedGrantStore(a, log).open();
      const gb = await new SharedGrantStore(b, log).open();
      await Promise.all([ga.add(grant('g-1')), gb.add(grant('g-2'))]);
      for (const g of [ga, gb])
        await until(
          () =>
            g
              .list()
              .map((x) => x.id)
              .sort()
              .join() === 'g-1,g-2'
              ? true
              : undefined,
          { what: 'both grants' },
        );
      assert.equal(await gb.remove('g-1'), true);
      await until(() => (ga.list().length === 1 ? true : undefined), { what: 'revoked on a' });
      assert.equal(await ga.remove('g-1'), false);
      await ga.close();
      await gb.close();
    });

    test('pins: pinned on one replica, read on the other, whose lists of that server are screened again', async () => {
      const pa = await new SharedPinStore(a, log).open();
      const pb = await new SharedPinStore(b, log).open();
      const told: string[] = [];
      pb.changed = (server, kinds) => told.push(`${server}:${kinds.join('+')}`);
      const pin = { digest: 'd1', definition: { name: 'rug' }, at: 1 };
      pa.put('up', 'tools', { rug: pin });
      assert.deepEqual(pa.read('up'), { tools: { rug: pin } }, 'held on the writer at once');
      await until(() => pb.read('up')?.tools?.rug, { what: 'on b' });
      assert.deepEqual(told, ['up:tools']);
      pa.put('up', 'tools', { rug: { ...pin, digest: 'd2' } });
      await until(() => (pb.read('up')?.tools?.rug?.digest === 'd2' ? true : undefined), { what: 'accepted on b' });
      assert.deepEqual(told, ['up:tools', 'up:tools']);
      assert.equal(pb.remove('up'), true);
      await until(() => (pa.read('up') === undefined ? true : undefined), { what: 'reset on a' });
      assert.deepEqual(pb.servers(), []);
      await pa.close();
      await pb.close();
    });

    test('a list change heard by one replica is told to the other once; heard by both, once each', async () => {
      const la = await new SharedLists(a, 'replicaaaa', log).open();
      const lb = await new SharedLists(b, 'replicabbb', log).open();
      const toldB: string[] = [];
      lb.changed = (kind, server) => toldB.push(`${kind}:${server}`);
      la.changed = () => assert.fail('a heard its own change back');
      assert.equal(la.heard('tools', 'up'), true);
      await until(() => (toldB.length === 1 ? true : undefined), { what: 'b told' });
      // b hears the same change from its own connection a moment later: its clients were told already.
      assert.equal(lb.heard('tools', 'up'), false);
      assert.equal(la.heard('prompts', 'up'), true);
      await until(() => (toldB.length === 2 ? true : undefined), { what: 'b told prompts' });
      await stays(() => toldB.length === 2, { for: 150, what: 'b told nothing more' });
      assert.deepEqual(toldB, ['tools:up', 'prompts:up']);
      await la.close();
      await lb.close();
    });

    test('tasks: a stopped replica’s running task reads failed with the reason; another replica takes it in', async () => {
      const keep = () => 60_000;
      const ta = new SharedTasks({ store: a, replica: 'replicaaaa', keepMs: keep, alive: async () => true, log });
      const tasksA = new Tasks(
        keep,
        () => 100,
        () => ({ perIdentity: 10, total: 10, held: 10 }),
      );
      const bgA = new BackgroundCalls(keep, () => ({ perIdentity: 10, total: 10 }));
      ta.attach(tasksA, bgA);
      const running = tasksA.create(new BackgroundCall('tools/call', 'tools/call slow', 'client:bob'), {
        label: 'tools/call slow',
        era: 'modern',
        identity: 'client:bob',
      });
      const call = new BackgroundCall('tools/call', 'tools/call done', 'client:bob');
      const done = tasksA.create(call, { label: 'tools/call done', era: 'modern', identity: 'client:bob' });
      call.run(Promise.resolve({ content: [{ type: 'text', text: 'kept' }] }));
      await until(() => (done.status === 'completed' ? true : undefined), { what: 'done' });
      await ta.flushed();
      assert.equal(await ta.ownerOf(running.id), 'replicaaaa');
      // replicaaaa stops without a word; replicabbb reaps it (once: a second reap changes nothing).
      let aliveA = true;
      const tb = new SharedTasks({
        store: b,
        replica: 'replicabbb',
        keepMs: keep,
        alive: async (id) => id === 'replicaaaa' && aliveA,
        log,
      });
      const tasksB = new Tasks(
        keep,
        () => 100,
        () => ({ perIdentity: 10, total: 10, held: 10 }),
      );
      tb.attach(tasksB, new BackgroundCalls(keep, () => ({ perIdentity: 10, total: 10 })));
      // While replicaaaa is alive, its task is its own: not taken in here.
      await tasksB.adopt!(running.id);
      assert.equal(tasksB.find(running.id), undefined);
      aliveA = false;
      assert.equal(await tb.reap('replicaaaa'), 1);
      assert.equal(await tb.reap('replicaaaa'), 0);
      await tasksB.adopt!(running.id);
      await tasksB.adopt!(done.id);
      const failed = tasksB.get(running.id, 'client:bob');
      assert.equal(failed.status, 'failed');
      assert.match(failed.statusMessage ?? '', /the replica replicaaaa that ran this call stopped/);
      const kept = tasksB.get(done.id, 'client:bob');
      assert.equal(kept.status, 'completed');
      assert.deepEqual(kept.outcome(), { content: [{ type: 'text', text: 'kept' }] });
      assert.throws(() => tasksB.get(done.id, 'client:eve'), /no task/);
    });

    test('an artifact kept through one replica is read through the other, by its own identity only', async () => {
      const deps = (s: Store) => ({
        over: () => 100,
        maxBytes: () => 1_000_000,
        ttlMs: () => 60_000,
        sharePercent: () => 100,
        log,
        shelf: new SharedArtifacts(s, log),
      });
      const onA = new Artifacts(deps(a));
      const onB = new Artifacts(deps(b));
      const result = { content: [{ type: 'text' as const, text: 'y'.repeat(5000) }] };
      const shrunk = onA.shrink(result, ctx('client:ann'), 'big');
      const link = (shrunk.content as Array<{ type: string; uri?: string }>).find((c) => c.type === 'resource_link');
      assert.ok(link?.uri);
      const read = await until(() => onB.readShared(link.uri!, 'client:ann'), { what: 'on b' });
      assert.deepEqual(JSON.parse(String((read.contents as Array<{ text: string }>)[0]!.text)), result);
      assert.equal(await onB.readShared(link.uri!, 'client:eve'), undefined);
    });

    test('activity: every replica appends to one stream, read newest first, filtered, bounded by limit', async () => {
      const sa = new StoreActivity(a, () => 32 * 1024 * 1024, log);
      const sb = new StoreActivity(b, () => 32 * 1024 * 1024, log);
      for (let i = 0; i < 6; i++) (i % 2 ? sa : sb).append(record(i, { time: new Date(Date.now() + i).toISOString() }));
      const all = await until(
        async () => {
          const r = await sb.read({}, 100, 0);
          return r.length === 6 ? r : undefined;
        },
        { what: 'all six' },
      );
      assert.deepEqual(
        all.map((r) => r.target),
        ['tool-5', 'tool-4', 'tool-3', 'tool-2', 'tool-1', 'tool-0'],
      );
      const mine = await sa.read({ client: 'agent-a' }, 2, 0);
      assert.deepEqual(
        mine.map((r) => r.target),
        ['tool-5', 'tool-3'],
      );
      assert.deepEqual(await sa.read({}, 100, Date.now() + 60_000), [], 'none older than oldest');
    });
  });
}
