// Results passed on as the bytes that arrived (src/wire/raw.ts, src/wire/spans.ts): where a member lies
// in its bytes, when a response is spliced and when it is serialized again, the downgrade that returns
// what it has nothing to remove as it is, and, end to end, a large pass-through result reaching a client
// of every revision as the very bytes the upstream wrote (each frame validated for its revision).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { downgradeResult } from '../../src/protocol/downgrade';
import type { JsonObject, Response } from '../../src/protocol/jsonrpc';
import { encodeResponse, jsonArray, keepBytes } from '../../src/wire/raw';
import { memberSpans } from '../../src/wire/spans';
import { hostile, httpHostile, killHostiles } from '../harness/hostile';
import { REVISIONS } from '../harness/schema';
import { gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient } from '../harness/wire';

process.env.MCPX_CHECK_SPLICE = '1';
after(() => {
  killAll();
  killHostiles();
});

const bytes = (s: string) => Buffer.from(s, 'utf8');
const text = (j: string | Uint8Array) => (typeof j === 'string' ? j : Buffer.from(j).toString('utf8'));
const big = 'x'.repeat(20_000);

/** A response line as an upstream might write it, parsed, with its bytes kept. */
function received(line: string): { message: JsonObject; result: JsonObject } {
  const message = JSON.parse(line) as JsonObject;
  keepBytes(message, bytes(line));
  return { message, result: message.result as JsonObject };
}
const respond = (result: JsonObject, id: number | string = 7): Response => ({ jsonrpc: '2.0', id, result }) as Response;

describe('member spans', () => {
  test('each span holds exactly the JSON of its member, however the text is written', () => {
    const docs = [
      { a: 1, b: 'two', c: [1, { d: '}' }], e: null, f: true, g: -1.5e3 },
      { 'q"uote': 'a \\" b', 'back\\slash': '\\\\', nested: { deep: [[[{}]]], s: '[{' }, last: false },
      { uni: 'é 漢 😀', empty: {}, arr: [], str: '', esc: '\u0000\u001f\n' },
    ];
    for (const doc of docs)
      for (const written of [JSON.stringify(doc), JSON.stringify(doc, null, 2), JSON.stringify(doc, null, '\t')]) {
        const b = bytes(written);
        const spans = memberSpans(b, 0)!;
        assert.deepEqual([...spans.keys()], Object.keys(doc));
        for (const [k, s] of spans)
          assert.deepEqual(JSON.parse(text(b.subarray(s.start, s.end))), (doc as JsonObject)[k], `${k} in ${written}`);
      }
  });

  test('a key written twice keeps its last value, as JSON.parse does; what is not an object has no members', () => {
    const b = bytes('{"k":1,"k":{"x":2}}');
    const s = memberSpans(b, 0)!.get('k')!;
    assert.equal(text(b.subarray(s.start, s.end)), '{"x":2}');
    assert.equal(memberSpans(bytes('[1,2]'), 0), undefined);
    assert.equal(memberSpans(bytes('{"a":"unterminated'), 0), undefined);
  });
});

describe('a response spliced from the bytes it arrived as', () => {
  const line = `{ "jsonrpc": "2.0", "id": 3, "result": { "content": [ { "type": "text", "text": "\\u0041${big}" } ] } }`;

  test('a result passed on unchanged is its own bytes, spaces and escapes included', () => {
    const { result } = received(line);
    const out = text(encodeResponse(respond(result, 'client-9')));
    assert.ok(
      out.startsWith('{"jsonrpc":"2.0","id":"client-9","result":{ "content": [ { "type": "text", "text": "\\u0041'),
    );
    assert.deepEqual(JSON.parse(out), { jsonrpc: '2.0', id: 'client-9', result });
  });

  test('a copy with members added keeps the bytes of the members it shares', () => {
    const { result } = received(line);
    const copy = { ...result, resultType: 'complete', _meta: { m: 1 } };
    const out = text(encodeResponse(respond(copy)));
    assert.match(out, /^\{"jsonrpc":"2\.0","id":7,"result":\{"content":\[ \{ "type": "text", "text": "\\u0041x/);
    assert.deepEqual(JSON.parse(out).result, copy);
  });

  test('serialized again: a small result, invalid UTF-8, a line break inside, a result rebuilt', () => {
    const small = received('{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"\\u0041"}]}}');
    assert.equal(encodeResponse(respond(small.result)), JSON.stringify(respond(small.result)));
    const at = line.indexOf('xxx');
    const bad = Buffer.concat([bytes(line.slice(0, at)), Buffer.from([0xff]), bytes(line.slice(at))]);
    const m = JSON.parse(bad.toString('utf8')) as JsonObject;
    keepBytes(m, bad);
    assert.equal(encodeResponse(respond(m.result as JsonObject)), JSON.stringify(respond(m.result as JsonObject)));
    const crlf = received(line.replace('"content":', '"content":\r'));
    assert.equal(typeof encodeResponse(respond(crlf.result)), 'string');
    const rebuilt = { content: [{ type: 'text', text: 'other' }] };
    assert.equal(encodeResponse(respond(rebuilt)), JSON.stringify(respond(rebuilt)));
  });

  test('a value read from an upstream and then edited in place is caught, not sent stale', () => {
    const { result } = received(line);
    (result.content as JsonObject[]).push({ type: 'text', text: 'added' });
    assert.throws(() => encodeResponse(respond(result)), /edited in place/);
  });

  test('a batch joins spliced and serialized responses into one array', () => {
    const { result } = received(line);
    const out = JSON.parse(text(jsonArray([encodeResponse(respond(result, 1)), JSON.stringify(respond({}, 2))])));
    assert.deepEqual(
      out.map((r: JsonObject) => r.id),
      [1, 2],
    );
    assert.deepEqual(out[0].result, result);
  });
});

describe('the downgrade returns what it has nothing to remove as it is', () => {
  test('nothing to remove: the same object; something to remove: a copy, the original untouched', () => {
    const result = { content: [{ type: 'text', text: 'hi' }], structuredContent: { a: 1 } };
    assert.equal(downgradeResult('tools/call', result, '2025-06-18'), result);
    const before = JSON.stringify(result);
    const old = downgradeResult('tools/call', result, '2024-11-05');
    assert.notEqual(old, result);
    assert.equal('structuredContent' in old, false);
    assert.equal(old.content, result.content, 'the members it keeps are shared, not copied');
    assert.equal(JSON.stringify(result), before);
  });

  test('a content block rewritten for an older revision copies its array; the other blocks are shared', () => {
    const keep = { type: 'text', text: 'kept' };
    const result = { content: [keep, { type: 'resource_link', uri: 'file:///a', name: 'a' }] };
    const out = downgradeResult('tools/call', result, '2025-03-26');
    assert.notEqual(out.content, result.content);
    assert.equal((out.content as JsonObject[])[0], keep);
    assert.equal((out.content as JsonObject[])[1]!.type, 'text');
    assert.equal(result.content[1]!.type, 'resource_link');
  });

  test('non-object structuredContent to 2025-06-18: carried as text in a copy', () => {
    const result = { content: [], structuredContent: [1, 2] };
    const out = downgradeResult('tools/call', result, '2025-06-18');
    assert.deepEqual(out, { content: [{ type: 'text', text: '[1,2]' }] });
    assert.deepEqual(result.structuredContent, [1, 2]);
  });
});

describe('end to end: a large pass-through result reaches every revision as the bytes the upstream wrote', () => {
  test('HTTP, each revision, each frame validated for it', async () => {
    const gw = await gatewayFor({ up: hostile() }, { 'mcp.passthrough': ['up'] });
    try {
      for (const rev of REVISIONS) {
        const c = new HttpClient(gw.url, rev);
        if (rev !== '2026-07-28') await c.initialize();
        const r = await c.request('tools/call', { name: 'huge', arguments: { kb: 64, spaced: true } });
        const block = (r.result?.content as JsonObject[] | undefined)?.[0];
        assert.equal(block?.text, `A${'x'.repeat(64 * 1024)}`, rev);
        assert.match(
          r.reply.text,
          /"content":\s?\[ \{ "type": "text", "text": "\\u0041x/,
          `${rev}: the upstream's own bytes`,
        );
        // Below the threshold the result is serialized as usual (and still right).
        const s = await c.request('tools/call', { name: 'huge', arguments: { kb: 1, spaced: true } });
        assert.match(s.reply.text, /"text":"Ax/, rev);
      }
    } finally {
      await gw.close();
    }
  });

  test('through the gateway tool mcpx_call (gateway mode, URIs rewritten where there are any): its content too', async () => {
    const gw = await gatewayFor({ up: hostile() });
    try {
      for (const rev of ['2025-11-25', '2026-07-28'] as const) {
        const c = new HttpClient(gw.url, rev);
        if (rev !== '2026-07-28') await c.initialize();
        const r = await c.request('tools/call', {
          name: 'mcpx_call',
          arguments: { server: 'up', tool: 'huge', arguments: { kb: 64, spaced: true } },
        });
        assert.equal((r.result?.content as JsonObject[] | undefined)?.[0]?.text, `A${'x'.repeat(64 * 1024)}`, rev);
        assert.match(r.reply.text, /"content":\[ \{ "type": "text", "text": "\\u0041x/, rev);
      }
    } finally {
      await gw.close();
    }
  });

  test('an upstream over Streamable HTTP answering with a JSON body: its bytes too', async () => {
    const h = await httpHostile();
    const gw = await gatewayFor({ up: { type: 'http', url: h.url } }, { 'mcp.passthrough': ['up'] });
    try {
      for (const rev of ['2025-06-18', '2026-07-28'] as const) {
        const c = new HttpClient(gw.url, rev);
        if (rev !== '2026-07-28') await c.initialize();
        const r = await c.request('tools/call', { name: 'huge', arguments: { kb: 64, spaced: true, as: 'json' } });
        assert.equal((r.result?.content as JsonObject[] | undefined)?.[0]?.text, `A${'x'.repeat(64 * 1024)}`, rev);
        assert.match(r.reply.text, /"content":\s?\[ \{ "type": "text", "text": "\\u0041x/, rev);
      }
    } finally {
      await gw.close();
    }
  });
});
