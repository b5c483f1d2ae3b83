// Resource subscriptions end to end for every pair of {legacy stdio, legacy HTTP session, modern HTTP}
// client x {legacy stdio, 2026-07-28 stdio, 2026-07-28 HTTP} upstream (docs/protocol.md "Resource subscriptions"): subscribe, the
// update delivered in the client's own form, two watchers and one leaves, the upstream restarting (or its
// stream ending) while wanted, the last watcher leaving, and an upstream that declares no
// resources.subscribe. Upstream side: what mcpx sent is read from the fixture's own record, validated
// against the upstream's revision. Client side: every frame is validated against the client's revision.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { HttpPeer } from '../fixtures/upstream/client';
import { repoRoot } from '../harness/gateway';
import type { Revision } from '../harness/schema';
import { checkRecorded, fixtureCommand, gatewayFor, killAll, startHttpFixture } from '../harness/upstreams';
import { HttpClient, type Json, StdioClient } from '../harness/wire';
import { stays, until } from '../harness/wait';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-submatrix-'));
after(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

const SID = 'io.modelcontextprotocol/subscriptionId';
const DOC = 'mcpx://up/fixture://doc';
const NOSUB = 'mcpx://nosub/fixture://doc';

// ---- the upstream side, read from the fixture's record ----------------------------------------

interface UpstreamKind {
  name: string;
  rev: Revision;
  /** How the gateway reaches it; HTTP fixtures are started here. */
  server(record: string, extra?: string[]): Promise<Json>;
  /** What ends the upstream's subscriptions while they are wanted: a crash (mcpx restarts a stdio
   *  server) or, over HTTP, the server ending its listen streams (mcpx opens them again). */
  interrupt: 'crash' | 'hangup';
}

const UPSTREAMS: UpstreamKind[] = [
  {
    name: 'legacy stdio (2025-11-25)',
    rev: '2025-11-25',
    server: async (r, x = []) => fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--record', r, ...x]),
    interrupt: 'crash',
  },
  {
    name: '2026-07-28 stdio',
    rev: '2026-07-28',
    server: async (r, x = []) => fixtureCommand(['--rev', '2026-07-28', '--name', 'up', '--record', r, ...x]),
    interrupt: 'crash',
  },
  {
    name: '2026-07-28 HTTP',
    rev: '2026-07-28',
    server: async (r, x = []) => ({
      type: 'http',
      url: (await startHttpFixture(['--rev', '2026-07-28', '--transport', 'http', '--name', 'up', '--record', r, ...x]))
        .url,
    }),
    interrupt: 'hangup',
  },
];

/** The URIs the upstream has been asked to send updates for, and how many times a subscription was
 *  (re)established: legacy subscribe/unsubscribe replayed; 2026-07-28, the filter of the newest listen
 *  stream (mcpx opens the new one before it ends the old). */
function upstreamView(record: string, rev: Revision): { wants: string[]; established: number } {
  let frames: Json[];
  try {
    frames = checkRecorded(record, rev) as Json[];
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { wants: [], established: 0 };
    throw e;
  }
  if (rev !== '2026-07-28') {
    const wants = new Set<string>();
    let established = 0;
    for (const f of frames) {
      const uri = String((f.params as Json | undefined)?.uri);
      if (f.method === 'resources/subscribe') wants.add(uri), established++;
      if (f.method === 'resources/unsubscribe') wants.delete(uri);
      if (f.method === 'initialize') wants.clear(); // a new process holds nothing
    }
    return { wants: [...wants], established };
  }
  const listens = frames
    .filter((f) => f.method === 'subscriptions/listen')
    .map((f) => ((f.params as Json).notifications as Json).resourceSubscriptions as string[] | undefined);
  return { wants: listens.at(-1) ?? [], established: listens.filter((l) => l?.length).length };
}

// ---- the client side ---------------------------------------------------------------------------

interface Watcher {
  /** URIs of the updates this watcher received. */
  updates(): string[];
  /** What the subscription said it would deliver (the listen acknowledgement; legacy: the URI). */
  acked: string[];
  leave(): Promise<void>;
}

interface Client {
  rev: Revision;
  watch(uri: string): Promise<Watcher>;
  /** A tool of an upstream, through the gateway's mcpx_call. */
  call(server: string, tool: string, args?: Json): Promise<void>;
  problems(): string[];
  close(): Promise<void>;
}

interface ClientKind {
  name: string;
  start(servers: Record<string, Json>): Promise<Client>;
}

const mcpxCall = (server: string, tool: string, args: Json = {}) => ({
  name: 'mcpx_call',
  arguments: { server, tool, arguments: args },
});

/** A legacy stdio client of `mcpx serve`: watcher one with resources/subscribe, the next ones as
 *  subscriptions/listen streams on the same pipe (accepted from legacy clients, ended by cancelling). */
const legacyStdio: ClientKind = {
  name: 'legacy stdio client',
  async start(servers) {
    const config = join(dir, `serve-${Date.now()}-${Math.random()}.json`);
    writeFileSync(config, JSON.stringify({ servers }));
    const c = new StdioClient(
      process.execPath,
      [join(repoRoot(), 'dist', 'cli.js'), 'serve', '--transport', 'stdio', '--standalone', '--config', config],
      '2025-11-25',
    );
    await c.initialize();
    let subscribed = false;
    let nextListen = 9000;
    return {
      rev: c.rev,
      async watch(uri) {
        if (!subscribed) {
          subscribed = true;
          assert.deepEqual((await c.request('resources/subscribe', { uri })).result, {});
          const untagged = () =>
            c.frames.filter(
              (f) =>
                f.method === 'notifications/resources/updated' &&
                !((f.params as Json)._meta as Json | undefined)?.[SID],
            );
          return {
            acked: [uri],
            updates: () => untagged().map((f) => String((f.params as Json).uri)),
            leave: async () => void (await c.request('resources/unsubscribe', { uri })),
          };
        }
        const id = nextListen++;
        void c.request('subscriptions/listen', { notifications: { resourceSubscriptions: [uri] } }, {}, id);
        const tagged = () =>
          c.frames.filter(
            (f) =>
              f.method === 'notifications/resources/updated' &&
              ((f.params as Json)._meta as Json | undefined)?.[SID] === id,
          );
        // A legacy client gets no acknowledgement notification; the stream is in place once the gateway
        // has it — a ping answered after it says the request was read.
        await c.request('ping');
        await new Promise((r) => setTimeout(r, 100));
        return {
          acked: [uri],
          updates: () => tagged().map((f) => String((f.params as Json).uri)),
          // stdio is read in order: a ping answered after the cancellation says the stream has ended.
          leave: async () => {
            c.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
            await c.request('ping');
          },
        };
      },
      async call(server, tool, args) {
        await c.request('tools/call', mcpxCall(server, tool, args));
      },
      problems: () => c.errors,
      close: async () => void (await c.close()),
    };
  },
};

/** Legacy HTTP sessions (2025-11-25), each watcher its own session with its GET stream. */
const legacyHttp: ClientKind = {
  name: 'legacy HTTP session',
  async start(servers) {
    const gw = await gatewayFor(servers);
    const peers: HttpPeer[] = [];
    const caller = new HttpClient(gw.url, '2026-07-28');
    return {
      rev: '2025-11-25',
      async watch(uri) {
        const p = new HttpPeer('2025-11-25', gw.url);
        peers.push(p);
        await p.initialize({});
        const stream = await p.listen();
        assert.deepEqual((await p.request('resources/subscribe', { uri })).result, {});
        return {
          acked: [uri],
          updates: () =>
            p.frames
              .filter((f) => f.method === 'notifications/resources/updated')
              .map((f) => String((f.params as Json).uri)),
          leave: async () => {
            await p.request('resources/unsubscribe', { uri });
            stream.close();
          },
        };
      },
      async call(server, tool, args) {
        await caller.request('tools/call', mcpxCall(server, tool, args));
      },
      problems: () => peers.flatMap((p) => p.problems),
      close: () => gw.close(),
    };
  },
};

/** 2026-07-28 clients over HTTP: each watcher a subscriptions/listen stream, ended by closing it. */
const modernHttp: ClientKind = {
  name: 'modern HTTP client',
  async start(servers) {
    const gw = await gatewayFor(servers);
    const peer = new HttpPeer('2026-07-28', gw.url);
    const caller = new HttpClient(gw.url, '2026-07-28');
    let nextId = 7000;
    return {
      rev: '2026-07-28',
      async watch(uri) {
        const id = nextId++;
        void peer.raw('subscriptions/listen', peer.params({ notifications: { resourceSubscriptions: [uri] } }), id);
        const mine = () =>
          peer.frames.filter((f) => ((f.params as Json | undefined)?._meta as Json | undefined)?.[SID] === id);
        await until(() => mine().some((f) => f.method === 'notifications/subscriptions/acknowledged'), {
          what: 'the acknowledgement',
        });
        const ack = mine()[0]!;
        assert.equal(ack.method, 'notifications/subscriptions/acknowledged', 'the acknowledgement comes first');
        return {
          acked: ((ack.params as Json).notifications as Json).resourceSubscriptions as string[],
          updates: () =>
            mine()
              .filter((f) => f.method === 'notifications/resources/updated')
              .map((f) => String((f.params as Json).uri)),
          // Left once the gateway counts one watcher fewer.
          leave: async () => {
            const watching = () => gw.g.watches().reduce((n, w) => n + w.watchers, 0);
            const before = watching();
            peer.abort(id);
            await until(() => watching() < before, { what: 'the closed stream no longer watching' });
          },
        };
      },
      async call(server, tool, args) {
        await caller.request('tools/call', mcpxCall(server, tool, args));
      },
      problems: () => peer.problems,
      close: () => gw.close(),
    };
  },
};

for (const kind of [legacyStdio, legacyHttp, modernHttp]) {
  for (const up of UPSTREAMS) {
    describe(`${kind.name} x ${up.name} upstream`, () => {
      test('subscribe, update, two watchers, interruption, one leaves, the last leaves; an upstream without resources.subscribe', async () => {
        const tag = `${kind.name}-${up.name}`.replace(/\W+/g, '-');
        const record = join(dir, `${tag}.jsonl`);
        const nosubRecord = join(dir, `${tag}-nosub.jsonl`);
        const client = await kind.start({
          up: await up.server(record),
          nosub: await up.server(nosubRecord, ['--no-subscribe']),
        });
        const view = () => upstreamView(record, up.rev);
        try {
          // The first watcher subscribes upstream, in the upstream's era mechanism.
          const a = await client.watch(DOC);
          assert.deepEqual(a.acked, [DOC]);
          await until(() => view().wants.includes('fixture://doc'), { what: 'the upstream subscription' });
          const established = view().established;
          // A second watcher of the same URI: counted, nothing more upstream.
          const b = await client.watch(DOC);
          assert.deepEqual(b.acked, [DOC]);
          await client.call('up', 'touch', { uri: 'fixture://doc' });
          await until(() => a.updates().length === 1 && b.updates().length === 1, {
            what: 'the update at both watchers',
          });
          assert.deepEqual([...a.updates(), ...b.updates()], [DOC, DOC], "in the client's own form");
          assert.equal(view().established, established, 'counted per URI: one upstream subscription for two watchers');

          // The upstream's side ends while the subscription is wanted: subscribed again at once.
          await client.call('up', up.interrupt).catch(() => undefined);
          await until(() => view().established > established && view().wants.includes('fixture://doc'), {
            what: 'the subscription re-established',
          });
          await client.call('up', 'touch', { uri: 'fixture://doc' });
          await until(() => a.updates().length === 2 && b.updates().length === 2, {
            what: 'the update after the interruption',
          });

          // One watcher leaves: the other still gets updates, the upstream keeps the subscription.
          await b.leave();
          await client.call('up', 'touch', { uri: 'fixture://doc' });
          await until(() => a.updates().length === 3, { what: 'the remaining watcher updated' });
          assert.equal(b.updates().length, 2, 'nothing after leaving');
          assert.ok(view().wants.includes('fixture://doc'));

          // The last one leaves: unsubscribed upstream.
          await a.leave();
          await until(() => !view().wants.includes('fixture://doc'), { what: 'the upstream subscription released' });

          // An upstream that declares no resources.subscribe is never subscribed; a listen says so in its
          // acknowledgement, a legacy subscribe succeeds and delivers nothing.
          const n = await client.watch(NOSUB);
          if (client.rev === '2026-07-28')
            assert.deepEqual(n.acked, [], 'the acknowledgement lists only URIs whose updates will arrive');
          await client.call('nosub', 'touch', { uri: 'fixture://doc' });
          await stays(() => n.updates().length === 0, { for: 150, what: 'no update where not subscribed' });
          assert.deepEqual(n.updates(), []);
          assert.deepEqual(upstreamView(nosubRecord, up.rev).wants, [], 'never subscribed where not declared');
          assert.deepEqual(client.problems(), []);
        } finally {
          await client.close();
        }
      });
    });
  }
}
