// The fixture upstream servers (test/fixtures/upstream) are strictly valid: every frame they send, on
// every legal revision × transport, validates against the official schema of their revision; and each
// --fail mode fails as specified.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { HttpPeer, MODERN, SsePeer, StdioPeer, killAll, startHttpFixture, type Obj } from '../fixtures/upstream/client';
import type { Revision } from '../harness/schema';
import { stays, until } from '../harness/wait';

const LEGACY: Revision[] = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
const tmp = mkdtempSync(join(tmpdir(), 'fixtures-upstream-'));
after(() => {
  killAll();
  rmSync(tmp, { recursive: true, force: true });
});

const result = (f: Obj): Obj => {
  assert.ok('result' in f, `expected a result, got ${JSON.stringify(f).slice(0, 300)}`);
  return f.result as Obj;
};
const error = (f: Obj): { code: number; message: string; data?: unknown } => {
  assert.ok('error' in f, `expected an error, got ${JSON.stringify(f).slice(0, 300)}`);
  return f.error as { code: number; message: string; data?: unknown };
};
const firstText = (f: Obj): string => ((result(f).content as Obj[])[0] as { text: string }).text;
const noProblems = (p: { problems: string[] }): void => assert.deepEqual(p.problems, []);
const CAPS = { roots: {}, sampling: {}, elicitation: {} };

/** Drives the whole surface of one fixture (already past initialize / for 2026-07-28 no handshake). */
async function sweep(p: StdioPeer | HttpPeer, rev: Revision): Promise<void> {
  const modern = rev === MODERN;
  const call = (name: string, args: Obj = {}, meta: Obj = {}, extra: Obj = {}): Promise<Obj> =>
    p.request('tools/call', { name, arguments: args, ...extra }, meta, modern ? CAPS : {});
  const tools = (result(await p.request('tools/list')).tools as Obj[]).map((t) => t.name);
  for (const n of [
    'echo',
    'add',
    'slow',
    'crash',
    'whoami',
    'count',
    'roots',
    'meta',
    'big',
    'error',
    'fail',
    'rich',
    'touch',
    'mutate',
  ])
    assert.ok(tools.includes(n), n);
  assert.equal(firstText(await call('echo', { text: 'hi' })), 'hi');
  const add = result(await call('add', { a: 2, b: 3 }));
  assert.equal((add.content as Obj[])[0]!.text, '{"sum":5}');
  assert.deepEqual(add.structuredContent, rev >= '2025-06-18' ? { sum: 5 } : undefined);
  const rich = (result(await call('rich')).content as Obj[]).map((c) => c.type);
  assert.ok(rich.includes('image') && rich.includes('resource') && rich.includes('audio') === rev >= '2025-03-26');
  assert.equal(result(await call('fail')).isError, true);
  assert.deepEqual(error(await call('error')), { code: -32602, message: 'bad thing' });
  assert.equal(error(await call('nope')).code, -32602);
  const meta = JSON.parse(firstText(await call('meta', {}, { 'dev.test/trace': 't1' }))) as Obj;
  assert.equal(meta['dev.test/trace'], 't1');
  assert.equal(Number(firstText(await call('count'))) + 1, Number(firstText(await call('count'))));
  assert.match(firstText(await call('whoami')), new RegExp(`^fixture-${rev}:\\d+:[0-9a-f]{12}$`));
  assert.equal(firstText(await call('big')).length, 1_000_000);
  // progress + logging
  if (!modern) result(await p.request('logging/setLevel', { level: 'info' }));
  const before = p.frames.length;
  assert.equal(
    firstText(
      await call(
        'slow',
        { ms: 60, steps: 3 },
        { progressToken: 'tok', ...(modern ? { 'io.modelcontextprotocol/logLevel': 'info' } : {}) },
      ),
    ),
    'slept 60ms',
  );
  const notes = p.frames.slice(before).filter((f) => !('id' in f));
  assert.deepEqual(
    notes.filter((f) => f.method === 'notifications/progress').map((f) => (f.params as Obj).progress),
    [1, 2, 3],
  );
  assert.equal(notes.filter((f) => f.method === 'notifications/message').length, 3);
  // prompts, resources, completions
  assert.equal((result(await p.request('prompts/list')).prompts as Obj[])[0]!.name, 'greet');
  const msg = (
    result(await p.request('prompts/get', { name: 'greet', arguments: { who: 'ann' } })).messages as Obj[]
  )[0]!;
  assert.deepEqual(msg.content, { type: 'text', text: 'Hello, ann!' });
  assert.equal(error(await p.request('prompts/get', { name: 'greet', arguments: {} })).code, -32602);
  assert.equal((result(await p.request('resources/list')).resources as Obj[]).length, 2);
  assert.equal((result(await p.request('resources/templates/list')).resourceTemplates as Obj[]).length, 1);
  for (const [uri, text] of [
    ['fixture://doc', 'doc body'],
    ['file:///abs/path.txt', 'abs'],
    ['fixture://items/42', 'item 42'],
  ]) {
    assert.equal(((result(await p.request('resources/read', { uri })).contents as Obj[])[0] as Obj).text, text);
  }
  const missing = error(await p.request('resources/read', { uri: 'fixture://nope' }));
  assert.deepEqual([missing.code, missing.data], [modern ? -32602 : -32002, { uri: 'fixture://nope' }]);
  const completion = result(
    await p.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'who', value: 'a' },
    }),
  );
  assert.deepEqual((completion.completion as Obj).values, ['alice']);
  // server→client questions
  p.answer = (req) =>
    req.method === 'roots/list'
      ? { roots: [{ uri: 'file:///r', name: 'r' }] }
      : req.method === 'sampling/createMessage'
        ? { role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' }
        : { action: 'accept', content: { answer: 'yes' } };
  if (modern) {
    assert.equal(firstText(await call('roots')), 'no roots in 2026-07-28');
    const ask = result(await call('elicit'));
    assert.equal(ask.resultType, 'input_required');
    const again = await call(
      'elicit',
      {},
      {},
      { inputResponses: { elicit: { action: 'accept', content: { answer: 'yes' } } }, requestState: ask.requestState },
    );
    assert.equal(JSON.parse(firstText(again)).action, 'accept');
  } else {
    assert.deepEqual(JSON.parse(firstText(await call('roots'))), { roots: [{ uri: 'file:///r', name: 'r' }] });
    assert.equal(JSON.parse(firstText(await call('sample'))).model, 'm');
    if (rev >= '2025-06-18') assert.equal(JSON.parse(firstText(await call('elicit'))).action, 'accept');
    // subscriptions and list changes
    result(await p.request('resources/subscribe', { uri: 'fixture://doc' }));
    const mark = p.frames.length;
    await call('touch', { uri: 'fixture://doc' });
    await call('mutate');
    const changes = p.frames
      .slice(mark)
      .map((f) => f.method)
      .filter(Boolean);
    assert.deepEqual(changes, ['notifications/resources/updated', 'notifications/tools/list_changed']);
    assert.ok((result(await p.request('tools/list')).tools as Obj[]).some((t) => t.name === 'added_1'));
  }
}

describe('every frame is valid: stdio', { concurrency: true }, () => {
  for (const rev of LEGACY) {
    test(`${rev} stdio: legacy-only server`, async () => {
      const p = new StdioPeer(rev);
      assert.deepEqual(error(await p.request('tools/list')), { code: -32600, message: 'not initialized' });
      assert.equal(
        error(await p.raw('server/discover', { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } })).code,
        -32601,
      );
      result(await p.raw('ping', undefined));
      const init = result(await p.initialize(CAPS, '2099-01-01'));
      assert.equal(init.protocolVersion, rev); // counter-offer
      assert.equal('completions' in (init.capabilities as Obj), rev >= '2025-03-26');
      assert.equal(error(await p.initialize(CAPS)).code, -32600);
      await sweep(p, rev);
      // cancellation: no answer for a cancelled request
      // (A call long enough that the cancellation arrives first on a loaded machine.)
      const late = p.request('tools/call', { name: 'slow', arguments: { ms: 800 } });
      const lateId = p['nextId'] - 1;
      // stdio is read in order: a ping answered after the call says the call is running.
      result(await p.raw('ping', undefined));
      await p.notify('notifications/cancelled', { requestId: lateId, reason: 'test' });
      let answered = false;
      void late.then(
        () => (answered = true),
        () => (answered = true),
      );
      await stays(() => !answered, { for: 900, what: 'no answer to the cancelled request' });
      assert.equal(await p.close(), 0);
      noProblems(p);
    });
  }
  test('2026-07-28 stdio: modern-only server', async () => {
    const p = new StdioPeer(MODERN);
    assert.equal(error(await p.initialize()).code, -32601);
    assert.equal(error(await p.raw('ping', undefined)).code, -32601);
    const bad = error(
      await p.raw('tools/list', {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2025-11-25',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      }),
    );
    assert.deepEqual([bad.code, bad.data], [-32022, { supported: [MODERN], requested: '2025-11-25' }]);
    assert.equal(
      error(await p.raw('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } })).code,
      -32602,
    );
    const d = result(await p.request('server/discover'));
    assert.deepEqual(
      [d.supportedVersions, d.resultType, d.cacheScope, typeof d.ttlMs],
      [[MODERN], 'complete', 'public', 'number'],
    );
    assert.equal(((d._meta as Obj)['io.modelcontextprotocol/serverInfo'] as Obj).name, `fixture-${MODERN}`);
    await sweep(p, MODERN);
    assert.equal(await p.close(), 0);
    noProblems(p);
  });
  test('2025-03-26 stdio: batches', async () => {
    const p = new StdioPeer('2025-03-26');
    result(await p.initialize());
    const seen = p.frames.length;
    p['sent'].set('"b1"', 'tools/list');
    p['sent'].set('"b2"', 'ping');
    await p['write']([
      { jsonrpc: '2.0', id: 'b1', method: 'tools/list' },
      { jsonrpc: '2.0', id: 'b2', method: 'ping' },
    ] as unknown as Obj);
    await until(() => p.frames.length >= seen + 2, { what: 'both answers of the batch', every: 5 });
    assert.deepEqual(
      p.frames
        .slice(seen)
        .map((f) => f.id)
        .sort(),
      ['b1', 'b2'],
    );
    assert.equal(await p.close(), 0);
    noProblems(p);
  });
});

describe('every frame is valid: HTTP', { concurrency: true }, () => {
  for (const rev of LEGACY.slice(1)) {
    test(`${rev} Streamable HTTP: sessions, SSE, GET stream`, async () => {
      const { child, url } = await startHttpFixture(['--rev', rev, '--transport', 'http']);
      const p = new HttpPeer(rev, url);
      const init = await p.initialize(CAPS);
      assert.equal(result(init).protocolVersion, rev);
      assert.match(p.sessionId ?? '', /^[\x21-\x7e]+$/);
      assert.equal(
        firstText(await p.request('tools/call', { name: 'echo', arguments: { text: 'over http' } })),
        'over http',
      );
      assert.equal(p.exchanges.get(p['nextId'] - 1)!.contentType, 'application/json');
      const sid = p.sessionId!;
      p.sessionId = 'unknown';
      const r404 = await fetch(url, {
        method: 'POST',
        headers: p.headers({}),
        body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }),
      });
      assert.equal(r404.status, 404);
      p.sessionId = undefined;
      const r400 = await fetch(url, {
        method: 'POST',
        headers: p.headers({}),
        body: JSON.stringify({ jsonrpc: '2.0', id: 98, method: 'ping' }),
      });
      assert.equal(r400.status, 400);
      p.sessionId = sid;
      if (rev >= '2025-06-18') {
        const h = p.headers({});
        delete h['MCP-Protocol-Version'];
        assert.equal(
          (
            await fetch(url, {
              method: 'POST',
              headers: h,
              body: JSON.stringify({ jsonrpc: '2.0', id: 97, method: 'ping' }),
            })
          ).status,
          400,
        );
      }
      // progress on the POST's SSE stream, a server→client request answered by a separate POST
      p.answer = () => ({ roots: [] });
      await sweep(p, rev);
      const id = p['nextId'];
      await p.request('tools/call', { name: 'slow', arguments: { ms: 20 } }, { progressToken: 7 });
      assert.equal(p.exchanges.get(id)!.contentType, 'text/event-stream');
      // unsolicited messages go on the GET stream when one is open
      const stream = await p.listen();
      assert.equal(stream.status, 200);
      const mark = p.frames.length;
      const mutateId = p['nextId'];
      await p.request('tools/call', { name: 'mutate' });
      await until(() => p.frames.slice(mark).some((f) => f.method === 'notifications/tools/list_changed'), {
        what: 'the list change on the GET stream',
        every: 5,
      });
      assert.equal(p.exchanges.get(mutateId)!.contentType, 'application/json');
      stream.close();
      assert.equal((await fetch(url, { method: 'DELETE', headers: p.headers({}) })).status, 200);
      assert.equal(
        (
          await fetch(url, {
            method: 'POST',
            headers: p.headers({}),
            body: JSON.stringify({ jsonrpc: '2.0', id: 96, method: 'ping' }),
          })
        ).status,
        404,
      );
      child.kill();
      noProblems(p);
    });
  }

  test('2026-07-28 Streamable HTTP: headers, status codes, stream-close cancellation', async () => {
    const rec = join(tmp, 'modern-http.jsonl');
    const { child, url } = await startHttpFixture(['--rev', MODERN, '--transport', 'http', '--record', rec]);
    const p = new HttpPeer(MODERN, url);
    assert.equal(result(await p.request('server/discover')).resultType, 'complete');
    await sweep(p, MODERN);
    const bad = await fetch(url, {
      method: 'POST',
      headers: { ...p.headers({ method: 'tools/list' }), 'Mcp-Method': 'prompts/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1000, method: 'tools/list', params: p.params() }),
    });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { code: number } }).error.code, -32020);
    const initId = p['nextId'];
    assert.equal(error(await p.request('initialize')).code, -32601);
    assert.equal(p.exchanges.get(initId)!.status, 404);
    const verId = p['nextId'];
    const h = p.headers({ method: 'tools/list' });
    p.extraHeaders = { 'MCP-Protocol-Version': '2025-11-25' };
    assert.equal(
      error(
        await p.raw('tools/list', {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2025-11-25',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        }),
      ).code,
      -32022,
    );
    assert.equal(p.exchanges.get(verId)!.status, 400);
    p.extraHeaders = {};
    assert.equal((await fetch(url, { headers: { Accept: 'text/event-stream', ...h } })).status, 405);
    // closing the response stream cancels: the server never answers that request
    const slowId = p['nextId'];
    void p
      .request('tools/call', { name: 'slow', arguments: { ms: 400, steps: 4 } }, { progressToken: 'c' })
      .catch(() => undefined);
    await until(() => p.frames.some((f) => (f.params as Obj | undefined)?.progressToken === 'c'), {
      what: 'the first progress',
      every: 5,
    });
    p.abort(slowId);
    const recorded = () =>
      readFileSync(rec, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { dir: string; frame: Obj });
    await stays(() => !recorded().some((l) => l.dir === 'out' && l.frame.id === slowId), {
      for: 300,
      what: 'no answer to the request whose stream closed',
    });
    const out = recorded();
    assert.ok(out.some((l) => l.dir === 'in' && l.frame.id === slowId));
    assert.ok(!out.some((l) => l.dir === 'out' && l.frame.id === slowId));
    assert.equal(
      out.filter((l) => l.dir === 'out' && (l.frame.params as Obj | undefined)?.progressToken === 'c').length,
      1,
    );
    child.kill();
    noProblems(p);
  });

  test('2024-11-05 HTTP+SSE: endpoint event, 202 POSTs, answers on the stream', async () => {
    const { child, url } = await startHttpFixture(['--rev', '2024-11-05', '--transport', 'sse']);
    assert.ok(url.endsWith('/sse'));
    const p = new SsePeer(url);
    await p.connect();
    assert.match(p.endpoint!, /\/messages\?sessionId=[^&]+$/);
    assert.equal(result(await p.initialize({ roots: {} })).protocolVersion, '2024-11-05');
    assert.equal((result(await p.request('tools/list')).tools as Obj[])[0]!.name, 'echo');
    assert.equal(firstText(await p.request('tools/call', { name: 'echo', arguments: { text: 'sse' } })), 'sse');
    p.answer = () => ({ roots: [] });
    assert.equal(firstText(await p.request('tools/call', { name: 'roots' })), '{"roots":[]}');
    assert.ok(p.posts.every((s) => s === 202));
    p.close();
    child.kill();
    noProblems(p);
  });
});
