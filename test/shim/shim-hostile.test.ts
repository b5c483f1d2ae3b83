// The stdio shim against a hostile client: every line `--standalone` refuses, the shim refuses with the
// same code and id (garbage, shapes JSON-RPC does not allow, ids JSON cannot carry, nesting, a line over
// transport.maxLineBytes, batches where the revision has none or holding initialize, a method no header
// can carry), and none of it costs the client its session; an id already in flight is refused; a
// cancellation ends one request, never the session; two shims naming one identity never answer or
// cancel each other's work. Every frame the clients receive is validated for their revision.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cliJs } from '../harness/gateway';
import { type Daemon, startDaemon } from '../harness/paths';
import type { Revision } from '../harness/schema';
import { type Json, StdioClient } from '../harness/wire';
import { stays, until } from '../harness/wait';

const MAX_LINE = 65_536;
const textOf = (r: unknown) =>
  (((r as Json | undefined)?.content as Json[] | undefined) ?? []).map((b) => String(b.text ?? '')).join('');
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

let daemon: Daemon;
let record: string;
const clients: StdioClient[] = [];
before(async () => {
  daemon = await startDaemon({
    record: (record = join(process.env.TMPDIR ?? '/tmp', `mcpx-hostile-${process.pid}.jsonl`)),
  });
});
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await daemon?.stop();
  rmSync(record, { force: true });
});

function shim(rev: Revision, capabilities: Json = {}): StdioClient {
  const args = [cliJs(), 'serve', '--transport', 'stdio', '--connect', daemon.endpoint];
  const env = { ...daemon.env, MCPX_TRANSPORT_MAX_LINE_BYTES: String(MAX_LINE) };
  const c = new StdioClient(process.execPath, args, rev, capabilities, env);
  clients.push(c);
  return c;
}
function standalone(rev: Revision): StdioClient {
  const args = [cliJs(), 'serve', '--transport', 'stdio', '--standalone', '--config', daemon.config];
  const env = { ...daemon.env, MCPX_TRANSPORT_MAX_LINE_BYTES: String(MAX_LINE) };
  const c = new StdioClient(process.execPath, args, rev, {}, env);
  clients.push(c);
  return c;
}

/** Responses received with `id` (in order), once `count` of them came. */
async function framesWith(c: StdioClient, id: unknown, count: number): Promise<Json[]> {
  return until(
    () => {
      const got = c.frames.filter((f) => f.id === id && !('method' in f));
      return got.length >= count ? got : undefined;
    },
    { what: `${count} responses with id ${String(id)}` },
  );
}

/** Responses received with `id` once what was in flight had its chance to be answered: a ping's round
 *  trip through the shim, then a window in which no further one comes. */
async function settledFrames(c: StdioClient, id: unknown): Promise<Json[]> {
  await c.request('ping');
  const withId = () => c.frames.filter((f) => f.id === id && !('method' in f));
  const n = withId().length;
  await stays(() => withId().length === n, { for: 300, what: `no further response with id ${String(id)}` });
  return withId();
}

/** Upstream `up` received frames (what the gateway sent it). */
const received = (): Json[] =>
  (existsSync(record) ? readFileSync(record, 'utf8') : '')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { dir: string; frame: Json })
    .filter((l) => l.dir === 'in')
    .map((l) => l.frame);
/** The upstream's id for the slow call of `ms` (each test sleeps its own), if it arrived. */
const callOf = (ms: number): unknown =>
  received().find((f) => f.method === 'tools/call' && ((f.params as Json).arguments as Json | undefined)?.ms === ms)
    ?.id;
/** The same, once it arrived. */
async function upstreamCall(ms: number): Promise<unknown> {
  await until(() => callOf(ms) !== undefined, { what: `the slow call of ${ms} ms upstream` });
  return callOf(ms);
}
const cancelledUpstream = (id: unknown) =>
  received().some((f) => f.method === 'notifications/cancelled' && (f.params as Json).requestId === id);
/** Until the upstream received the cancellation of its call `id` (10 s at most). */
async function cancelled(id: unknown): Promise<boolean> {
  await until(() => cancelledUpstream(id), { what: `the cancellation of ${String(id)} upstream`, timeout: 10_000 });
  return cancelledUpstream(id);
}
const slow = (ms: number) => ({ name: 'slow', arguments: { ms, steps: 2 } });
const WHOAMI = { name: 'mcpx_call', arguments: { server: 'mine', tool: 'whoami' } };

const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
/** Each line and what answers it: [code, id] of one error, or nothing. */
const HOSTILE: Array<[string, [number, unknown] | undefined]> = [
  ['not json', [-32700, undefined]],
  ['{', [-32700, undefined]],
  ['42', [-32600, undefined]],
  ['null', [-32600, undefined]],
  ['[]', [-32600, undefined]],
  ['[{"jsonrpc":"2.0","id":"b1","method":"ping"}]', [-32600, undefined]],
  ['{"jsonrpc":"2.0","id":1}', [-32600, 1]],
  ['{"jsonrpc":"1.0","id":2,"method":"ping"}', [-32600, 2]],
  ['{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}', [-32600, undefined]],
  ['{"jsonrpc":"2.0","id":null,"method":"ping"}', [-32600, undefined]],
  ['{"jsonrpc":"2.0","id":3,"method":"ping","params":[]}', [-32600, 3]],
  [`{"jsonrpc":"2.0","id":4,"method":"ping","params":{"a":${nested(100)}}}`, [-32602, 4]],
  ['{"jsonrpc":"2.0","id":5,"method":"tools/list\\n"}', [-32601, 5]],
  ['{"jsonrpc":"2.0","id":6,"method":"ping","extra":1}', [-32600, 6]],
  [JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/li\nst', params: { _meta: MODERN_META } }), [-32601, 7]],
  [JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tööls/list', params: { _meta: MODERN_META } }), [-32601, 8]],
  ['{"jsonrpc":"2.0","method":"notifications/nothing"}', undefined],
  ['{"jsonrpc":"2.0","id":77,"result":{}}', undefined],
  ['{"jsonrpc":"2.0","id":78,"error":{"code":1,"message":"no question asked"}}', undefined],
  [`{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"${'x'.repeat(MAX_LINE)}"}}`, [-32600, undefined]],
];

/** Sends each hostile line followed by a ping, and returns what answered the line: [code, id] or nothing. */
async function answers(c: StdioClient): Promise<Array<[number, unknown] | undefined>> {
  const out: Array<[number, unknown] | undefined> = [];
  for (const [n, [line, expected]] of HOSTILE.entries()) {
    const from = c.frames.length;
    c.send(line);
    await c.request('ping', {}, {}, `sync-${n}`);
    // An answer the gateway gives (a relayed request) may come after the ping's.
    if (expected?.[1] !== undefined) await framesWith(c, expected[1], 1);
    const got = c.frames.slice(from).filter((f) => f.id !== `sync-${n}`);
    assert.ok(got.length <= 1, `${line.slice(0, 80)}: ${JSON.stringify(got)}`);
    const e = got[0]?.error as Json | undefined;
    out.push(got[0] ? [Number(e?.code), got[0].id] : undefined);
  }
  return out;
}

describe('the stdio shim and a hostile client', { concurrency: 2 }, () => {
  test('every line --standalone refuses, the shim refuses alike; none of it costs the session', async () => {
    const [s, alone] = [shim('2025-11-25'), standalone('2025-11-25')];
    await Promise.all([s.initialize(), alone.initialize()]);
    const before = textOf((await s.request('tools/call', WHOAMI)).result);
    const [fromShim, fromStandalone] = await Promise.all([answers(s), answers(alone)]);
    assert.deepEqual(
      fromStandalone,
      HOSTILE.map(([, e]) => e),
      '--standalone',
    );
    assert.deepEqual(fromShim, fromStandalone, 'the shim answers as --standalone does');
    assert.equal(textOf((await s.request('tools/call', WHOAMI)).result), before, 'the same session');
    assert.doesNotMatch(s.stderr, /lost the gateway/);
  });

  test('a batch before initialize is 2025-03-26: initialize inside it is refused, and opens no session', async () => {
    const [s, alone] = [shim('2025-03-26'), standalone('2025-03-26')];
    const batch = (c: StdioClient) =>
      c.batch([
        c.frame(
          'initialize',
          { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
          {},
          'i',
        ),
        c.frame('ping', {}, {}, 'p'),
      ]);
    const [fromShim, fromStandalone] = await Promise.all([batch(s), batch(alone)]);
    const shape = (rs: Json[]) => rs.map((r) => [r.id, (r.error as Json | undefined)?.code ?? 'result']).sort();
    assert.deepEqual(shape(fromStandalone), [
      ['i', -32600],
      ['p', 'result'],
    ]);
    assert.deepEqual(shape(fromShim), shape(fromStandalone));
    // No session: each whoami is a request of its own (another instance each time), as outside a session.
    const who = async () => textOf((await s.request('tools/call', WHOAMI)).result);
    assert.notEqual(await who(), await who());
  });

  test('a second initialize goes in the session the first opened, and the calls after it too', async () => {
    const c = shim('2025-06-18');
    const [, who, again, after] = await c.pipeline([
      ...c.handshake(),
      c.frame('tools/call', WHOAMI),
      c.handshake()[0]!,
      c.frame('tools/call', WHOAMI),
    ]);
    assert.equal((again!.result as Json | undefined)?.protocolVersion, '2025-06-18', JSON.stringify(again));
    assert.equal(textOf(after!.result), textOf(who!.result), 'one session, one identity');
    assert.match(textOf(who!.result), /^mine:/);
  });

  for (const [rev, long, short] of [
    ['2025-11-25', 20_101, 2101],
    ['2026-07-28', 20_102, 2102],
  ] as Array<[Revision, number, number]>)
    test(`${rev}: an id in flight is refused (-32600) while the first request with it runs on, and a cancellation by it reaches that one`, async () => {
      const c = shim(rev);
      if (rev !== '2026-07-28') await c.initialize();
      c.send(c.frame('tools/call', slow(long), {}, 'dup'));
      const first = await upstreamCall(long);
      c.send(c.frame('tools/call', slow(short), {}, 'dup'));
      const [refused] = await framesWith(c, 'dup', 1);
      assert.equal((refused?.error as Json | undefined)?.code, -32600, JSON.stringify(refused));
      assert.match(String((refused!.error as Json).message), /"dup" is already in use/);
      c.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'dup', reason: 'test' } });
      assert.ok(await cancelled(first), 'the first call was cancelled upstream');
      assert.equal(callOf(short), undefined, 'the refused request never reached the upstream');
      assert.deepEqual(await settledFrames(c, 'dup'), [refused], 'the cancelled request is not answered');
    });

  test('a legacy cancellation ends that request only: no reconnect, the session and its other calls go on', async () => {
    const c = shim('2025-11-25');
    await c.initialize();
    const who = textOf((await c.request('tools/call', WHOAMI)).result);
    const other = c.request('tools/call', slow(2203));
    c.send(c.frame('tools/call', slow(20_204), {}, 'gone'));
    const upstreamId = await upstreamCall(20_204);
    c.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'gone', reason: 'test' } });
    assert.equal(textOf((await other).result), 'slept 2203ms', JSON.stringify(await other));
    assert.ok(await cancelled(upstreamId));
    assert.equal(textOf((await c.request('tools/call', WHOAMI)).result), who, 'the same session');
    assert.deepEqual(await settledFrames(c, 'gone'), [], 'the cancelled request is not answered');
    assert.doesNotMatch(c.stderr, /lost the gateway/);
  });

  test('two shims naming one identity: one never answers the other’s question nor cancels its call', async () => {
    const shared = { 'dev.mcpx/session': `hostile-${crypto.randomUUID()}` };
    const a = shim('2025-11-25', { elicitation: {} });
    const b = shim('2025-11-25');
    await Promise.all([a.initialize(), b.initialize()]);
    a.answer = async (q) => {
      // B answers A's question first, by its id: it must not reach A's call.
      b.send({ jsonrpc: '2.0', id: q.id, result: { action: 'accept', content: { answer: 'from B' } } });
      await b.request('ping');
      await stays(() => !a.frames.some((f) => JSON.stringify(f).includes('from B')), {
        for: 200,
        what: "B's answer reaches nothing of A's",
      });
      return { action: 'accept', content: { answer: 'from A' } };
    };
    // On the identity's own instance, so no other test's call on a shared upstream makes the question's
    // call ambiguous (docs/questions.md "Who answers").
    const elicit = { name: 'mcpx_call', arguments: { server: 'mine', tool: 'elicit', arguments: { text: 'Whose?' } } };
    const answer = textOf((await a.request('tools/call', elicit, shared)).result);
    assert.match(answer, /from A/);
    assert.doesNotMatch(answer, /from B/);
    // Both run a call under the same id; B cancels its own, A's runs on.
    const mine = a.request('tools/call', slow(2305), shared, 'same');
    b.send(b.frame('tools/call', slow(20_306), shared, 'same'));
    const bCall = await upstreamCall(20_306);
    b.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'same', reason: 'B' } });
    assert.ok(await cancelled(bCall), "B's own call was cancelled");
    assert.equal(textOf((await mine).result), 'slept 2305ms', "A's call with the same id ran on");
  });

  test('2026-07-28: two shims naming one identity, the same id in flight; one’s cancellation ends its own only', async () => {
    const shared = { 'dev.mcpx/session': `hostile-${crypto.randomUUID()}` };
    const a = shim('2026-07-28');
    const b = shim('2026-07-28');
    const mine = a.request('tools/call', slow(2407), shared, 'same');
    b.send(b.frame('tools/call', slow(20_408), shared, 'same'));
    const bCall = await upstreamCall(20_408);
    for (const params of [{ requestId: 'same' }, { requestId: 'same', _meta: MODERN_META }])
      b.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params });
    assert.ok(await cancelled(bCall), "B's own call was cancelled");
    assert.equal(textOf((await mine).result), 'slept 2407ms', "A's call with the same id ran on");
    assert.deepEqual(await settledFrames(b, 'same'), [], "B's cancelled request is not answered");
  });
});
