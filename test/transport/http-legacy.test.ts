// Streamable HTTP, legacy revisions: handshake, lists, calls, spelling per revision, errors with their
// codes and statuses. Every frame is validated against the client's revision (harness/wire.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Listening } from '../../src/app/app';
import { startTestServer } from '../harness/gateway';
import { type Revision, serverFrameErrors } from '../harness/schema';
import { HttpClient, type Json } from '../harness/wire';

const LEGACY: Revision[] = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
const atLeast = (rev: Revision, floor: Revision) => rev >= floor; // ISO dates order as strings

let gw: Listening;
before(async () => {
  gw = await startTestServer({ 'mcp.pageSize': 4, 'transport.sseKeepAlive': '40ms' });
});
after(() => gw.close());

async function session(rev: Revision, capabilities: Json = {}): Promise<HttpClient> {
  const c = new HttpClient(gw.url, rev, { capabilities });
  const init = await c.initialize();
  assert.equal(init.reply.status, 200);
  assert.equal((init.result as Json).protocolVersion, rev);
  assert.ok(c.sessionId, 'initialize mints Mcp-Session-Id');
  return c;
}

async function listAll(c: HttpClient, method: string, key: string): Promise<Json[]> {
  const items: Json[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const ex = await c.request(method, cursor === undefined ? {} : { cursor });
    assert.ok(ex.result, JSON.stringify(ex.error));
    items.push(...(ex.result[key] as Json[]));
    cursor = ex.result.nextCursor as string | undefined;
    pages++;
  } while (cursor !== undefined);
  return Object.assign(items, { pages });
}

for (const rev of LEGACY) {
  describe(`HTTP ${rev}`, () => {
    test('initialize negotiates the revision and declares only what it delivers', async () => {
      const c = new HttpClient(gw.url, rev);
      const init = await c.initialize();
      const r = init.result as Json;
      const caps = r.capabilities as Json;
      assert.deepEqual(
        Object.keys(caps).sort(),
        atLeast(rev, '2025-03-26')
          ? ['completions', 'logging', 'prompts', 'resources', 'tools']
          : ['logging', 'prompts', 'resources', 'tools'],
      );
      assert.equal((r.serverInfo as Json).name, 'mcpx');
      assert.equal('title' in (r.serverInfo as Json), atLeast(rev, '2025-06-18'));
      assert.equal(r.instructions, 'A test provider.');
      assert.equal(init.reply.headers.get('content-type'), 'application/json');
    });

    test('tools/list paginates and spells each tool for the revision', async () => {
      const c = await session(rev);
      const tools = await listAll(c, 'tools/list', 'tools');
      assert.equal((tools as unknown as { pages: number }).pages, 2);
      assert.deepEqual(
        tools.map((t) => t.name),
        ['echo', 'add', 'scalar', 'rich', 'slow', 'fail', 'ask'],
      );
      const add = tools.find((t) => t.name === 'add')!;
      assert.equal('annotations' in add, atLeast(rev, '2025-03-26'));
      assert.equal('title' in add, atLeast(rev, '2025-06-18'));
      assert.equal('outputSchema' in add, atLeast(rev, '2025-06-18'));
      assert.equal('_meta' in add, atLeast(rev, '2025-06-18'));
      assert.equal('icons' in add, atLeast(rev, '2025-11-25'));
      assert.equal('execution' in add, rev === '2025-11-25');
      // A non-object outputSchema cannot be declared before 2026-07-28 (docs/protocol.md "Non-object structuredContent to 2025-06-18..2025-11-25").
      assert.equal('outputSchema' in tools.find((t) => t.name === 'scalar')!, false);
    });

    test('tools/call returns structuredContent only where the revision has it', async () => {
      const c = await session(rev);
      const add = await c.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } });
      assert.equal('structuredContent' in add.result!, atLeast(rev, '2025-06-18'));
      assert.equal('resultType' in add.result!, false);
      const scalar = await c.request('tools/call', { name: 'scalar', arguments: {} });
      assert.equal('structuredContent' in scalar.result!, false);
      const texts = (scalar.result!.content as Json[]).map((b) => b.text);
      assert.deepEqual(texts, atLeast(rev, '2025-06-18') ? ['forty-two', '42'] : ['forty-two']);
    });

    test('content block types the revision lacks are rewritten, never dropped', async () => {
      const c = await session(rev);
      const rich = await c.request('tools/call', { name: 'rich', arguments: {} });
      const blocks = rich.result!.content as Json[];
      assert.equal(blocks.length, 5);
      assert.deepEqual(
        blocks.map((b) => b.type),
        [
          'text',
          'image',
          atLeast(rev, '2025-03-26') ? 'audio' : 'resource',
          atLeast(rev, '2025-06-18') ? 'resource_link' : 'text',
          'resource',
        ],
      );
      if (!atLeast(rev, '2025-03-26')) assert.equal((blocks[2]!.resource as Json).blob, 'UklGRg==');
      if (!atLeast(rev, '2025-06-18'))
        assert.match(String(blocks[3]!.text), /Read me <test:\/\/doc\/readme> \(text\/plain\)/);
    });

    test('unknown tool is -32602 naming it, never an isError result', async () => {
      const c = await session(rev);
      const ex = await c.request('tools/call', { name: 'nope', arguments: {} });
      assert.equal(ex.error?.code, -32602);
      assert.match(ex.error!.message, /no tool named "nope"/);
      assert.equal(ex.reply.status, 200);
      const fail = await c.request('tools/call', { name: 'fail', arguments: {} });
      assert.equal(fail.result?.isError, true);
    });

    test('resources: list, templates, read; not found is -32002 with data.uri; a failure is -32603', async () => {
      const c = await session(rev);
      const res = await c.request('resources/list');
      assert.equal((res.result!.resources as Json[]).length, 2);
      const tpl = await c.request('resources/templates/list');
      assert.equal((tpl.result!.resourceTemplates as Json[])[0]!.uriTemplate, 'test://doc/{name}');
      const read = await c.request('resources/read', { uri: 'test://doc/readme' });
      assert.equal(((read.result!.contents as Json[])[0] as Json).text, 'read me');
      const missing = await c.request('resources/read', { uri: 'test://doc/missing' });
      assert.equal(missing.error?.code, -32002);
      assert.deepEqual(missing.error?.data, { uri: 'test://doc/missing' });
      const boom = await c.request('resources/read', { uri: 'test://doc/boom' });
      assert.equal(boom.error?.code, -32603);
    });

    test('prompts and completion', async () => {
      const c = await session(rev);
      const list = await c.request('prompts/list');
      assert.equal((list.result!.prompts as Json[])[0]!.name, 'greet');
      const got = await c.request('prompts/get', { name: 'greet', arguments: { who: 'Ada' } });
      const msgs = got.result!.messages as Json[];
      assert.equal((msgs[0]!.content as Json).text, 'Hello, Ada!');
      assert.equal((msgs[1]!.content as Json).type, atLeast(rev, '2025-06-18') ? 'resource_link' : 'text');
      const done = await c.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'greet' },
        argument: { name: 'who', value: 'a' },
      });
      assert.deepEqual((done.result!.completion as Json).values, ['alice']);
    });

    test('ping, logging/setLevel, an unknown level, a bad cursor, an unknown method', async () => {
      const c = await session(rev);
      assert.deepEqual((await c.request('ping')).result, {});
      assert.deepEqual((await c.request('logging/setLevel', { level: 'info' })).result, {});
      assert.equal((await c.request('logging/setLevel', { level: 'loud' })).error?.code, -32602);
      const bad = await c.request('tools/list', { cursor: 'bm90LW91cnM' });
      assert.equal(bad.error?.code, -32602);
      assert.match(bad.error!.message, /cursor/);
      const unknown = await c.request('nope/nope');
      assert.equal(unknown.error?.code, -32601);
      assert.equal(unknown.reply.status, 200);
      const wrongType = await c.request('tools/call', { name: 7 });
      assert.equal(wrongType.error?.code, -32602);
      assert.match(wrongType.error!.message, /params\.name/);
    });

    test("progress and logs ride the call's own stream: increasing, at or above the level set", async () => {
      const c = await session(rev);
      await c.request('logging/setLevel', { level: 'info' });
      // 2024-11-05 has no progress message; the default policy sends it (docs/protocol.md
      // "Progress `message` to 2024-11-05"). Its frames are checked below: the message is the only thing the schema objects to.
      c.opts.noValidate = rev === '2024-11-05';
      const ex = await c.request(
        'tools/call',
        { name: 'slow', arguments: { ms: 60, steps: 3 } },
        { meta: { progressToken: 'p1' } },
      );
      for (const f of ex.reply.frames) {
        for (const e of serverFrameErrors(rev, f, 'tools/call')) assert.match(e, /additional property "message"/);
      }
      assert.equal(ex.reply.contentType, 'text/event-stream');
      const progress = ex.notifications
        .filter((n) => n.method === 'notifications/progress')
        .map((n) => (n.params as Json).progress);
      assert.deepEqual(progress, [1, 2, 3]);
      const logs = ex.notifications
        .filter((n) => n.method === 'notifications/message')
        .map((n) => (n.params as Json).level);
      assert.deepEqual(logs, ['info', 'info', 'info']);
      assert.equal(ex.result?.content instanceof Array, true);
    });
  });
}

describe('HTTP legacy handshake edge cases', () => {
  test('an unknown or modern version in initialize gets the latest legacy one (counter-offer, never -32022)', async () => {
    for (const asked of ['2099-01-01', '2026-07-28', 'garbage']) {
      const c = new HttpClient(gw.url, '2025-11-25');
      const ex = await c.initialize(asked);
      assert.equal((ex.result as Json).protocolVersion, '2025-11-25', asked);
    }
  });

  test('a headerless request without a session is served as 2025-03-26, without a session', async () => {
    const c = new HttpClient(gw.url, '2025-03-26');
    const ex = await c.request('tools/call', { name: 'add', arguments: { a: 1, b: 1 } });
    assert.equal(ex.reply.headers.get('mcp-session-id'), null);
    assert.equal('structuredContent' in ex.result!, false);
  });

  test('with --mcp-spec 2024-11-05 (first and strict) the progress message is removed, and frames are valid', async () => {
    const strict = await startTestServer({ 'spec.first': '2024-11-05' });
    try {
      const c = new HttpClient(strict.url, '2024-11-05');
      await c.initialize();
      const ex = await c.request(
        'tools/call',
        { name: 'slow', arguments: { ms: 20, steps: 2 } },
        { meta: { progressToken: 'q' } },
      );
      assert.deepEqual(
        ex.notifications.map((n) => 'message' in (n.params as Json)),
        [false, false],
      );
    } finally {
      await strict.close();
    }
  });

  test('progress keeps its message for 2024-11-05 by default (precedence-governed)', async () => {
    const c = await session('2024-11-05');
    c.opts.noValidate = true; // 2024-11-05's schema has no progress message: the default policy sends it anyway
    const ex = await c.request(
      'tools/call',
      { name: 'slow', arguments: { ms: 20, steps: 1 } },
      { meta: { progressToken: 7 } },
    );
    assert.equal((ex.notifications[0]!.params as Json).message, 'step 1');
  });

  test('in a session, a second request whose id is in flight is refused, and cancelling that id cancels the first', async () => {
    const c = await session('2025-11-25');
    const call = (ms: number) => ({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'slow', arguments: { ms, steps: 1 } },
    });
    const first = c.post(call(5_000));
    // A ping with the same id answers until the first is in flight, then is refused.
    let refused: Json | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const probe = await c.post({ jsonrpc: '2.0', id: 7, method: 'ping' });
      if (probe.status === 400) refused = probe.frames[0]!.error as Json;
      else assert.deepEqual(probe.frames[0]!.result, {});
    }
    assert.equal(refused?.code, -32600);
    assert.match(String(refused?.message), /id 7 is already in use/);
    const second = await c.post(call(10));
    assert.equal(second.status, 400);
    assert.equal((second.frames[0]!.error as Json).code, -32600);
    // notifications/cancelled for 7 reaches the one request that holds the id: the first, which then
    // ends without a result (it would have answered after 5 s).
    await c.notify('notifications/cancelled', { requestId: 7, reason: 'test' });
    const r1 = await first;
    assert.equal(r1.frames.filter((f) => 'result' in f).length, 0, 'a cancelled request gets no result');
  });
});
