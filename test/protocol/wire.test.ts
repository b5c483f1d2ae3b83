// The wire pieces (src/wire/): the correlator, header value encoding, Mcp-Param headers in both
// directions, the lazy SSE stream, and the JSON answer.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, test } from 'node:test';
import type { JsonObject, Request, Response } from '../../src/protocol/jsonrpc';
import type { CallContext, Provider } from '../../src/server/provider';
import { toolsOf } from '../fixtures/provider';
import { Correlator, TransportClosed } from '../../src/wire/correlator';
import { decodeHeaderValue, encodeHeaderValue } from '../../src/wire/headers';
import { argumentAt, headerParams, paramHeaders } from '../../src/wire/paramHeaders';
import { memoryServer } from '../harness/memory';
import { turn } from '../harness/wait';

const ok = (id: number | string, result: JsonObject = {}): Response => ({ jsonrpc: '2.0', id, result });
const pending = Symbol('pending');
/** The promise's outcome if it has settled by the next turn of the event loop, else `pending`. */
const settledBy = async <T>(p: Promise<T>): Promise<T | Error | typeof pending> => {
  let out: T | Error | typeof pending = pending;
  p.then(
    (v) => (out = v),
    (e: Error) => (out = e),
  );
  await turn();
  return out;
};

describe('Correlator', () => {
  test('a response settles the wait for its id, and only that one', async () => {
    const c = new Correlator();
    const one = c.wait(1);
    const two = c.wait('two');
    assert.equal(c.size, 2);
    assert.equal(c.settle(ok('two', { n: 2 })), true);
    assert.deepEqual(await two, ok('two', { n: 2 }));
    assert.equal(await settledBy(one), pending, 'the other wait is untouched');
    assert.equal(c.size, 1);
    assert.equal(c.settle(ok('two')), false, 'a second response for a settled id is not routed');
  });

  test('a response for an unknown id, or without an id, is ignored', async () => {
    const c = new Correlator();
    const w = c.wait(1);
    assert.equal(c.settle(ok(2)), false);
    assert.equal(c.settle(ok('1')), false, 'the string "1" is not the number 1');
    assert.equal(c.settle({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } }), false);
    assert.equal(c.size, 1);
    assert.equal(await settledBy(w), pending);
    c.settle(ok(1));
    assert.deepEqual(await w, ok(1));
  });

  test('close() rejects every pending wait with its cause, and every later wait at once', async () => {
    const c = new Correlator();
    const a = c.wait(1);
    const b = c.wait(2);
    c.close();
    await assert.rejects(a, (e: Error) => e instanceof TransportClosed);
    await assert.rejects(b, (e: Error) => e instanceof TransportClosed);
    assert.equal(c.size, 0);
    await assert.rejects(c.wait(3), (e: Error) => e instanceof TransportClosed);
    assert.equal(c.size, 0, 'a wait after close registers nothing');
    assert.equal(c.settle(ok(1)), false);
  });

  test('close(cause) rejects with that cause; a second close changes nothing', async () => {
    const c = new Correlator();
    const w = c.wait(1);
    const cause = new Error('the process exited');
    c.close(cause);
    c.close(new Error('again'));
    await assert.rejects(w, (e) => e === cause);
    await assert.rejects(c.wait(2), (e) => e === cause);
  });

  test('an aborted signal rejects the wait with its reason and removes the entry', async () => {
    const c = new Correlator();
    const ctl = new AbortController();
    const w = c.wait(1, ctl.signal);
    const other = c.wait(2);
    const reason = new Error('caller gave up');
    ctl.abort(reason);
    await assert.rejects(w, (e) => e === reason);
    assert.equal(c.size, 1);
    assert.equal(c.settle(ok(1)), false, 'a late response finds nothing waiting');
    assert.equal(await settledBy(other), pending);
  });

  test('an abort reason that is not an Error still rejects with an Error', async () => {
    const c = new Correlator();
    const ctl = new AbortController();
    const w = c.wait(1, ctl.signal);
    ctl.abort('just a string');
    await assert.rejects(w, (e) => e instanceof Error);
    assert.equal(c.size, 0);
  });

  test('a signal already aborted rejects at once and registers nothing', async () => {
    const c = new Correlator();
    const reason = new Error('too late');
    await assert.rejects(c.wait(1, AbortSignal.abort(reason)), (e) => e === reason);
    assert.equal(c.size, 0);
  });

  test('the abort listener is removed when the wait settles, is closed, or is forgotten', async () => {
    const c = new Correlator();
    const ctl = new AbortController();
    const count = () => getEventListeners(ctl.signal, 'abort').length;
    const a = c.wait(1, ctl.signal);
    const b = c.wait(2, ctl.signal);
    void c.wait(3, ctl.signal);
    assert.equal(count(), 3);
    c.settle(ok(1));
    await a;
    assert.equal(count(), 2);
    c.forget(3);
    assert.equal(count(), 1);
    assert.equal(c.size, 1);
    c.close();
    await assert.rejects(b);
    assert.equal(count(), 0);
  });

  test('forget() drops the entry: a response for it is no longer routed', () => {
    const c = new Correlator();
    void c.wait(1);
    c.forget(1);
    assert.equal(c.size, 0);
    assert.equal(c.settle(ok(1)), false);
    c.forget(99); // nothing to forget: harmless
    assert.equal(c.size, 0);
  });
});

describe('header values (2026-07-28 streamable-http "Value Encoding")', () => {
  const b64 = (s: string) => `=?base64?${Buffer.from(s, 'utf8').toString('base64')}?=`;

  test('plain visible ASCII travels as it is', () => {
    for (const v of ['us-west1', 'a b c', 'x=1;y="2"', '', '~!@#$%^&*()']) {
      assert.equal(encodeHeaderValue(v), v);
      assert.equal(decodeHeaderValue(v), v);
    }
  });

  test('non-ASCII, control characters, tabs and surrounding whitespace are sent as the base64 sentinel', () => {
    for (const v of ['café', '日本', 'line\nbreak', 'tab\there', ' lead', 'trail ', '\u0000', '😀']) {
      const enc = encodeHeaderValue(v);
      assert.equal(enc, b64(v), JSON.stringify(v));
      assert.match(enc, /^[\x20-\x7e]*$/, 'the encoded value is plain ASCII');
      assert.equal(decodeHeaderValue(enc), v, 'and decodes back');
    }
  });

  test('decoding refuses what a header may not carry plainly', () => {
    for (const raw of ['café', 'a\u0001b', 'a\nb', '\u007f'])
      assert.equal(decodeHeaderValue(raw), undefined, JSON.stringify(raw));
    assert.equal(decodeHeaderValue('a\tb'), 'a\tb', 'an inner tab is a valid field value');
  });

  test('something framed like the sentinel is base64 or refused, never plain text', () => {
    assert.equal(decodeHeaderValue('=?base64?SGVsbG8=?='), 'Hello');
    assert.equal(decodeHeaderValue('=?base64??='), '');
    for (const raw of [
      '=?base64?SGVsbG8?=',
      '=?base64?SGVs*G8=?=',
      '=?base64?SGVsbG8=\n?=',
      '=?base64?SGVsbG9=?=',
      '=?base64?QR==?=',
    ]) {
      assert.equal(
        decodeHeaderValue(raw),
        undefined,
        `${JSON.stringify(raw)}: unpadded, outside the alphabet, or not canonical`,
      );
    }
    // Not framed (one marker only, or the wrong case): an ordinary plain value.
    assert.equal(decodeHeaderValue('=?base64?SGVsbG8='), '=?base64?SGVsbG8=');
    assert.equal(decodeHeaderValue('=?BASE64?SGVsbG8=?='), '=?BASE64?SGVsbG8=?=');
  });

  test("the specification's own example decodes to the literal it stands for", () => {
    assert.equal(decodeHeaderValue('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='), '=?base64?literal?=');
  });

  test('a plain value framed like the sentinel is itself encoded, so it survives the round trip', () => {
    for (const v of ['=?base64?SGk=?=', '=?base64?literal?=']) {
      assert.notEqual(encodeHeaderValue(v), v, 'sent as it is, it would be read as base64');
      assert.equal(decodeHeaderValue(encodeHeaderValue(v)), v, JSON.stringify(v));
    }
  });

  test('decode(encode(v)) is v for every value in a mixed set', () => {
    const values = [
      '',
      'x',
      ' ',
      '  two  ',
      'ümlaut',
      'a\tb',
      'multi\nline',
      'quote"s',
      '\\back',
      '=?',
      '?=',
      '=?base64?',
      'x'.repeat(300),
    ];
    for (const v of values) assert.equal(decodeHeaderValue(encodeHeaderValue(v)), v, JSON.stringify(v));
  });
});

describe('Mcp-Param headers (x-mcp-header), both directions', () => {
  const SCHEMA: JsonObject = {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      count: { type: 'integer', 'x-mcp-header': 'Count' },
      opts: { type: 'object', properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } } },
      free: { type: 'string' },
    },
  };

  test('the annotated parameters are found with their paths; unannotated ones are not', () => {
    const r = headerParams(SCHEMA);
    assert.ok('params' in r);
    assert.deepEqual(r.params, [
      { name: 'Region', path: ['region'] },
      { name: 'Count', path: ['count'] },
      { name: 'Dry-Run', path: ['opts', 'dry'] },
    ]);
    assert.deepEqual(
      headerParams({ type: 'object', 'x-mcp-header': 'Root' }),
      { params: [] },
      'an annotation on the root names no argument',
    );
  });

  test('argumentAt follows the path and is undefined where it leads nowhere', () => {
    const args = { opts: { dry: false }, region: 'eu' };
    assert.equal(argumentAt(args, ['opts', 'dry']), false);
    assert.equal(argumentAt(args, ['region', 'x']), undefined);
    assert.equal(argumentAt(args, ['missing', 'dry']), undefined);
    assert.equal(argumentAt(args, []), args);
  });

  test('client side: headers for the arguments present, each value encoded; null and absent give none', () => {
    const r = headerParams(SCHEMA);
    assert.ok('params' in r);
    assert.deepEqual(paramHeaders(r.params, { region: 'Zürich', count: 0, opts: { dry: true }, free: 'x' }), {
      'Mcp-Param-Region': `=?base64?${Buffer.from('Zürich').toString('base64')}?=`,
      'Mcp-Param-Count': '0',
      'Mcp-Param-Dry-Run': 'true',
    });
    assert.deepEqual(paramHeaders(r.params, { region: null, opts: {} }), {});
  });

  // The server side: the headers a client made, as the HTTP adapter hands them over (lower-case names
  // without the prefix), checked by the server against the tool's annotations on tools/call.
  function serverFor(schema: JsonObject) {
    const called: JsonObject[] = [];
    const provider: Provider = {
      capabilities: () => ({ tools: true }),
      listTools: async () => [{ name: 't', inputSchema: schema }],
      resolveTool: toolsOf(
        () => [{ name: 't', inputSchema: schema }],
        async (_name: string, args: JsonObject, _ctx: CallContext) => {
          called.push(args);
          return { content: [{ type: 'text', text: 'ok' }] };
        },
      ),
    };
    return { mem: memoryServer(provider), called };
  }
  const call = (args: JsonObject): Request => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 't',
      arguments: args,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const received = (headers: Record<string, string>) =>
    Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase().replace(/^mcp-param-/, ''), v]));
  const codeOf = (r: Response | undefined) => (r && 'error' in r ? r.error.code : 'result');

  test('server side: the headers paramHeaders() makes are accepted, for plain and encoded values', async () => {
    const { mem, called } = serverFor(SCHEMA);
    const r = headerParams(SCHEMA);
    assert.ok('params' in r);
    for (const args of [
      { region: 'eu-west', count: 3, opts: { dry: false } },
      { region: ' spaced ', count: -1 },
      { region: '東京' },
      {},
    ]) {
      const { runner, channel } = mem.runner();
      const out = await runner.request(call(args), '2026-07-28', {
        ...channel,
        paramHeaders: received(paramHeaders(r.params, args)),
      });
      assert.equal(codeOf(out.response), 'result', JSON.stringify(args));
    }
    assert.equal(called.length, 4);
  });

  test('server side: a missing, extra, different or badly encoded header is -32020 and the tool does not run', async () => {
    const { mem, called } = serverFor(SCHEMA);
    const cases: Array<[string, JsonObject, Record<string, string>]> = [
      ['missing', { region: 'eu' }, {}],
      ['present without the argument', {}, { region: 'eu' }],
      ['different value', { region: 'eu' }, { region: 'us' }],
      ['different number', { count: 10 }, { count: '1' }],
      ['invalid sentinel', { region: 'eu' }, { region: '=?base64?ZXU?=' }],
      ['non-ASCII raw', { region: 'café' }, { region: 'café' }],
      ['nested boolean differs', { opts: { dry: true } }, { 'dry-run': 'false' }],
    ];
    for (const [what, args, headers] of cases) {
      const { runner, channel } = mem.runner();
      const out = await runner.request(call(args), '2026-07-28', { ...channel, paramHeaders: headers });
      assert.equal(codeOf(out.response), -32020, what);
    }
    assert.equal(called.length, 0);
  });

  test('server side: without Mcp-Param headers handed over (stdio) nothing is checked', async () => {
    const { mem, called } = serverFor(SCHEMA);
    const { runner, channel } = mem.runner();
    const out = await runner.request(call({ region: 'eu' }), '2026-07-28', channel);
    assert.equal(codeOf(out.response), 'result');
    assert.equal(called.length, 1);
  });
});
