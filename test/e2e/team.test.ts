// A team's gateway (docs/team.md): two real `mcpx daemon` replicas on one real Redis (Debian's
// redis-server, started here on a loopback port with a temporary directory), behind a round-robin
// balancer that sends each request to the next replica in turn (test/harness/balancer.ts). One HTTP
// upstream (the fixture, shared by both) and the same config file. What is proved, each across the two
// replicas: a 2026-07-28 task started on one collected through the other; an input_required round
// started on one continued on the other; an approval asked on one answered through the other; a pin
// accepted on one holding on the other; one's calls in the other's activity log; a legacy session made
// on one used through the other; Redis restarted and both replicas back; one replica SIGKILLed with a
// task running and the other reporting it failed, naming why, and its sessions gone (404). Every frame a
// client receives is validated against its revision's schema (test/harness/wire.ts).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { type Balancer, startBalancer } from '../harness/balancer';
import { cliJs } from '../harness/gateway';
import { type RedisServer, startRedis } from '../harness/redis';
import { startHttpFixture } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';

const EXT = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const KEY = 'team-test-key-0123456789abcdefghijklmnop';
const root = mkdtempSync(join(tmpdir(), 'mcpx-team-'));
const config = join(root, 'mcp.json');

interface Replica {
  name: string;
  child: ChildProcess;
  /** Its own endpoint, secret included. */
  endpoint: string;
  base: string;
  id: string;
  stderr: string[];
}

let redis: RedisServer;
let upstream: { child: ChildProcess; url: string };
let A: Replica;
let B: Replica;
let lb: Balancer;
let secret: string;

async function startReplica(name: string): Promise<Replica> {
  const home = join(root, name);
  const env = {
    ...process.env,
    XDG_CONFIG_HOME: home,
    XDG_STATE_HOME: home,
    MCPX_PORT: '',
    MCPX_STORE_KEY: KEY,
  };
  const child = spawn(
    process.execPath,
    [cliJs(), 'daemon', '--port', '0', '--config', config, '--store', redis.url, '--passthrough', 'up'],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (l) => stderr.push(l));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}): ${stderr.join('\n')}`)));
  });
  const endpoint = /mcpx listening on (\S+)$/.exec(line)?.[1] ?? '';
  assert.ok(endpoint, line);
  const id = /team: replica ([a-z0-9]{10}) /.exec(stderr.join('\n'))?.[1] ?? '';
  assert.ok(id, stderr.join('\n'));
  return { name, child, endpoint, base: new URL(endpoint).origin, id, stderr };
}

async function stop(r: Replica | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!r || r.child.exitCode !== null || r.child.signalCode !== null) return;
  const gone = new Promise((res) => r.child.once('exit', res));
  r.child.kill(signal);
  await gone;
}

const auth = () => ({ Authorization: `Bearer ${secret}` });
const v1 = async (base: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: Json }> => {
  const res = await fetch(`${base}${path}`, { ...init, headers: { ...auth(), ...init.headers } });
  return { status: res.status, body: (await res.json()) as Json };
};
const text = (r: Json | undefined) =>
  ((r?.content as Json[] | undefined) ?? []).map((b) => String(b.text ?? '')).join('');
const lbMcp = () => `${lb.url}/mcp/${secret}`;
const modern = (caps: Json) => new HttpClient(lbMcp(), '2026-07-28', { capabilities: caps });
/** Which replica served the n-th request to the balancer from now. */
const mark = () => lb.served.length;
const servedSince = (from: number, rpc?: string) =>
  lb.served.slice(from).filter((s) => rpc === undefined || s.rpc === rpc);

before(
  async () => {
    redis = await startRedis();
    upstream = await startHttpFixture([
      '--rev',
      '2025-11-25',
      '--transport',
      'http',
      '--name',
      'up',
      '--rug',
      'description',
    ]);
    writeFileSync(
      config,
      JSON.stringify({
        servers: { up: { type: 'http', url: upstream.url } },
        settings: {
          'store.replicaTtl': '1500ms',
          'proto.taskPollInterval': '100ms',
          'protoMessages.taskAfter': '300ms',
        },
        permissions: { askTimeout: '30s', rules: [{ server: 'up', tool: 'add', action: 'ask' }] },
      }),
    );
    A = await startReplica('A');
    B = await startReplica('B');
    secret = A.endpoint.split('/mcp/')[1]!;
    assert.equal(B.endpoint.split('/mcp/')[1], secret, 'the endpoint secret is the team’s, made once in the store');
    lb = await startBalancer([
      { name: 'A', url: () => A.base },
      { name: 'B', url: () => B.base },
    ]);
  },
  { timeout: 60_000 },
);

after(async () => {
  await lb?.close();
  await stop(A);
  await stop(B);
  upstream?.child.kill();
  await redis?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('two replicas on one Redis, behind a round-robin balancer', { timeout: 120_000 }, () => {
  test('a 2026-07-28 task started on one replica is collected through the other', async () => {
    const c = modern(EXT);
    const alice = { 'dev.mcpx/session': 'alice-team' };
    const from = mark();
    const created = (await c.request('tools/call', { name: 'slow', arguments: { ms: 1500 } }, { meta: alice })).result!;
    assert.equal(created.resultType, 'task', JSON.stringify(created));
    const starter = servedSince(from, 'tools/call')[0]!.backend;
    const get = async () =>
      (
        await c.request(
          'tasks/get',
          { taskId: created.taskId },
          { meta: alice, headers: { 'Mcp-Name': String(created.taskId) } },
        )
      ).result!;
    const done = await until(
      async () => {
        const t = await get();
        return t.status === 'completed' ? t : undefined;
      },
      { what: 'completed' },
    );
    assert.equal(text(done.result as Json), 'slept 1500ms');
    // Collected through both: the one that did not start it relayed it, the same answer on each.
    const again = [await get(), await get()];
    for (const t of again) assert.equal(text(t.result as Json), 'slept 1500ms');
    const getters = new Set(servedSince(from, 'tasks/get').map((s) => s.backend));
    assert.deepEqual([...getters].sort(), ['A', 'B']);
    assert.ok(getters.has(starter === 'A' ? 'B' : 'A'));
    // Listed by the other replica's /v1/tasks too (mcpx tasks), without its identity.
    const other = starter === 'A' ? B : A;
    const listed = await v1(other.base, '/v1/tasks', { headers: { 'Mcpx-Identity': 'alice-team' } });
    const row = (listed.body.tasks as Json[]).find((t) => t.id === created.taskId);
    assert.equal(row?.status, 'completed', JSON.stringify(listed.body));
    assert.equal(JSON.stringify(listed.body).includes('client:alice-team'), false);
  });

  test('an input_required round started on one replica is continued on the other', async () => {
    const c = modern({ elicitation: {} });
    const from = mark();
    const asked = (await c.request('tools/call', { name: 'elicit', arguments: { text: 'sure?' } })).result!;
    assert.equal(asked.resultType, 'input_required', JSON.stringify(asked));
    const key = Object.keys(asked.inputRequests as Json)[0]!;
    const done = (
      await c.request('tools/call', {
        name: 'elicit',
        arguments: { text: 'sure?' },
        inputResponses: { [key]: { action: 'accept', content: { answer: 'yes from the other replica' } } },
        requestState: asked.requestState,
      })
    ).result!;
    assert.match(JSON.stringify(done), /yes from the other replica/);
    const [first, second] = servedSince(from, 'tools/call');
    assert.notEqual(first!.backend, second!.backend, 'the retry reached the other replica');
  });

  test('an approval asked on one replica is answered through the other; the call on the first goes on', async () => {
    const c = modern({});
    const from = mark();
    const pending = c.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } });
    const asker = await until(async () => servedSince(from, 'tools/call')[0]?.backend, {
      what: 'the call reached a replica',
    });
    const other = asker === 'A' ? B : A;
    // The other replica lists it (from the store) and takes the answer, relaying it to the asker.
    const q = await until(
      async () => {
        const list = (await v1(other.base, '/v1/questions')).body.questions as Json[];
        return list.find((x) => x.method === 'mcpx/approval');
      },
      { what: 'the approval is listed by the other replica' },
    );
    const answered = await v1(other.base, `/v1/questions/${String(q.id)}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ action: 'always' }),
    });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    const r = (await pending).result!;
    assert.equal(text(r), JSON.stringify({ sum: 5 }));
    // Settled: gone from every replica's list.
    await until(
      async () => (((await v1(other.base, '/v1/questions')).body.questions as Json[]).length === 0 ? true : undefined),
      { what: 'gone from the store' },
    );
    // "always" is a grant in force on both replicas: neither asks again.
    for (const r of [A, B]) {
      const direct = new HttpClient(r.endpoint, '2026-07-28', { capabilities: {} });
      const sum = (await direct.request('tools/call', { name: 'add', arguments: { a: 1, b: 1 } })).result!;
      assert.equal(text(sum), JSON.stringify({ sum: 2 }), `${r.name} let it through by the grant`);
      const grants = (await v1(r.base, '/v1/permissions')).body.grants as Json[];
      assert.equal(grants.length, 1);
    }
  });

  test('a pin accepted on one replica holds on the other', async () => {
    const onA = new HttpClient(A.endpoint, '2026-07-28', { capabilities: {} });
    const onB = new HttpClient(B.endpoint, '2026-07-28', { capabilities: {} });
    // First sight pins rug as it is (the upstream is shared); then its description changes.
    assert.equal(text((await onA.request('tools/call', { name: 'rug', arguments: { text: 'x' } })).result), 'x');
    assert.equal(text((await onB.request('tools/call', { name: 'rug', arguments: { text: 'x' } })).result), 'x');
    assert.equal(text((await onA.request('tools/call', { name: 'pull', arguments: {} })).result), 'pulled');
    const heldOn = async (c: HttpClient) =>
      until(
        async () => {
          const r = (await c.request('tools/call', { name: 'rug', arguments: { text: 'y' } })).result!;
          return r.isError === true && /mcpx holds the tool "rug"/.test(text(r)) ? r : undefined;
        },
        { what: 'held' },
      );
    await heldOn(onA);
    await heldOn(onB);
    const accepted = await v1(A.base, '/v1/pins/up/accept', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    // Accepted once, in force on B: its call goes through.
    const through = await until(
      async () => {
        const r = (await onB.request('tools/call', { name: 'rug', arguments: { text: 'z' } })).result!;
        return r.isError ? undefined : r;
      },
      { what: 'B lets rug through' },
    );
    assert.equal(text(through), 'z');
    const views = (await v1(B.base, '/v1/pins/up')).body;
    assert.equal(JSON.stringify(views).includes('"held":[]'), true, JSON.stringify(views));
  });

  test("one replica's calls are in the other's activity log", async () => {
    const onA = new HttpClient(A.endpoint, '2026-07-28', { capabilities: {} });
    const zoe = { 'dev.mcpx/session': 'zoe-activity' };
    await onA.request('tools/call', { name: 'echo', arguments: { text: 'on A' } }, { meta: zoe });
    const rec = await until(
      async () => {
        const r = (await v1(B.base, '/v1/activity?client=client:zoe-activity')).body.records as Json[];
        return r.find((x) => x.target === 'echo');
      },
      { what: 'in B’s activity' },
    );
    assert.equal(rec.server, 'up');
    assert.equal((rec.outcome as Json).status, 'ok');
  });

  test('a legacy session made on one replica is used through the other, as the same session', async () => {
    const c = new HttpClient(lbMcp(), '2025-11-25');
    const from = mark();
    await c.initialize();
    const maker = servedSince(from, 'initialize')[0]!.backend;
    const owner = maker === 'A' ? A : B;
    assert.ok(c.sessionId?.startsWith(`${owner.id}.`), `${c.sessionId} names ${owner.id}`);
    for (let i = 0; i < 4; i++) {
      const r = (await c.request('tools/call', { name: 'echo', arguments: { text: `n${i}` } })).result!;
      assert.equal(text(r), `n${i}`);
    }
    assert.deepEqual(new Set(servedSince(from, 'tools/call').map((s) => s.backend)).size, 2);
    // Held by its maker alone: the other replica holds no session.
    const other = owner === A ? B : A;
    const health = async (r: Replica) => ((await (await fetch(`${r.base}/health`)).json()) as Json).sessions;
    assert.equal(await health(other), 0);
    assert.ok(Number(await health(owner)) >= 1);
  });

  test('Redis restarted: each replica is not ready while it is away, then both serve again', async () => {
    await redis.stop();
    await until(async () => ((await fetch(`${B.base}/ready`)).status === 503 ? true : undefined), {
      what: 'B not ready',
    });
    await redis.restart();
    for (const r of [A, B])
      await until(async () => ((await fetch(`${r.base}/ready`)).status === 200 ? true : undefined), {
        what: `${r.name} ready`,
      });
    // Subscriptions and announcements are back: a round across the two replicas works again.
    const c = modern({ elicitation: {} });
    const asked = (await c.request('tools/call', { name: 'elicit', arguments: { text: 'again?' } })).result!;
    assert.equal(asked.resultType, 'input_required');
    const key = Object.keys(asked.inputRequests as Json)[0]!;
    const done = (
      await c.request('tools/call', {
        name: 'elicit',
        arguments: { text: 'again?' },
        inputResponses: { [key]: { action: 'accept', content: { answer: 'after the restart' } } },
        requestState: asked.requestState,
      })
    ).result!;
    assert.match(JSON.stringify(done), /after the restart/);
  });

  test('a replica killed with a task running: the other reports the task failed, naming why; its sessions are gone', async () => {
    const onA = new HttpClient(A.endpoint, '2026-07-28', { capabilities: EXT });
    const bob = { 'dev.mcpx/session': 'bob-team' };
    const created = (await onA.request('tools/call', { name: 'slow', arguments: { ms: 60_000 } }, { meta: bob }))
      .result!;
    assert.equal(created.resultType, 'task');
    const legacy = new HttpClient(A.endpoint, '2025-11-25');
    await legacy.initialize();
    await stop(A, 'SIGKILL');
    // Through the balancer (now B alone): 503 while A may still be alive to the store, then failed.
    const viaB = new HttpClient(B.endpoint, '2026-07-28', { capabilities: EXT });
    const failed = await until(
      async () => {
        const ex = await viaB.request(
          'tasks/get',
          { taskId: created.taskId },
          { meta: bob, headers: { 'Mcp-Name': String(created.taskId) } },
        );
        return ex.result?.status === 'failed' ? ex.result : undefined;
      },
      { what: 'failed' },
    );
    assert.match(String(failed.statusMessage), new RegExp(`replica ${A.id} that ran this call stopped`));
    // A's legacy session, through B: 404, initialize again.
    const stale = new HttpClient(B.endpoint, '2025-11-25');
    stale.sessionId = legacy.sessionId;
    const ex = await stale.request('tools/list', {});
    assert.equal(ex.reply.status, 404);
    assert.match(ex.reply.text, /replica that held this session has stopped/);
  });
});
