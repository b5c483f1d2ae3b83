// A 1 MB tool result reaches the client without mcpx decoding it to a string (src/wire/lazy.ts,
// src/wire/raw.ts): the stdio upstream's line is read as bytes, its long string left undecoded, and the
// response spliced from those bytes. A spy on every UTF-8 decoder of this process (Buffer's toString and
// utf8Slice, TextDecoder, StringDecoder) records each decode while the call is in flight; none may take
// the result whole. The gateway runs in this process; the client reads raw bytes and decodes them only
// after the spy is off, then validates the frame for its revision.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { StringDecoder } from 'node:string_decoder';
import { downgradeResult } from '../../src/protocol/downgrade';
import { parseJson } from '../../src/protocol/jsonrpc';
import { isLazy, lazyText } from '../../src/wire/lazy';
import { encodeResponse, keepBytes } from '../../src/wire/raw';
import { assertServerFrame } from '../harness/schema';
import { type TestGateway, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';

const BIG = 1_000_000;
/** A decode of at least this many bytes is the result decoded whole (or most of it). */
const WHOLE = BIG / 2;

/** Sizes of the decodes of at least WHOLE bytes while on, with where each came from. */
function decodeSpy(): { seen: Array<{ bytes: number; stack: string }>; off(): void } {
  const seen: Array<{ bytes: number; stack: string }> = [];
  const note = (n: number) => {
    if (n >= WHOLE) seen.push({ bytes: n, stack: new Error().stack ?? '' });
  };
  const proto = Buffer.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const saved = { toString: proto.toString!, utf8Slice: proto.utf8Slice! };
  proto.toString = function (this: Buffer, ...a: unknown[]) {
    note(((a[2] as number | undefined) ?? this.length) - ((a[1] as number | undefined) ?? 0));
    return saved.toString.apply(this, a as []);
  };
  proto.utf8Slice = function (this: Buffer, ...a: unknown[]) {
    note(((a[1] as number | undefined) ?? this.length) - ((a[0] as number | undefined) ?? 0));
    return saved.utf8Slice.apply(this, a);
  };
  const decoder = TextDecoder.prototype as unknown as { decode(input?: ArrayBufferView, o?: object): string };
  const decode = decoder.decode;
  decoder.decode = function (this: unknown, input?: ArrayBufferView, o?: object) {
    note(input ? input.byteLength : 0);
    return decode.call(this, input, o);
  };
  const write = StringDecoder.prototype.write;
  StringDecoder.prototype.write = function (this: StringDecoder, b: Buffer) {
    note(b.length);
    return write.call(this, b);
  };
  return {
    seen,
    off() {
      proto.toString = saved.toString;
      proto.utf8Slice = saved.utf8Slice;
      decoder.decode = decode;
      StringDecoder.prototype.write = write;
    },
  };
}

/** POST `body`; the answer's bytes, read whole before `done` runs. */
function post(url: string, headers: Record<string, string>, body: string, done: () => void): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        done();
        resolve(Buffer.concat(parts));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('a 1 MB result, passed through', () => {
  let gw: TestGateway;
  const saved = process.env.MCPX_CHECK_SPLICE;
  before(async () => {
    // npm test re-serializes every splice to check it (wire/raw.ts): that check decodes by design.
    process.env.MCPX_CHECK_SPLICE = '0';
    gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up']) },
      { 'mcp.passthrough': ['up'] },
    );
  });
  after(async () => {
    process.env.MCPX_CHECK_SPLICE = saved;
    await gw.close();
    killAll();
  });

  for (const rev of ['2025-03-26', '2026-07-28'] as const) {
    test(`reaches a ${rev} HTTP client as the upstream's bytes, never decoded whole by mcpx`, async () => {
      const c = new HttpClient(gw.url, rev);
      const call = (id: number) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: c.params({ name: 'big', arguments: {} }),
      });
      const headers = (body: Json) => ({ ...c.headers(body), Accept: 'application/json' });
      // A first call starts the upstream and fetches its list: what is measured is a call like any other.
      const warm = call(1);
      await post(gw.url, headers(warm), JSON.stringify(warm), () => undefined);
      const body = call(2);
      const spy = decodeSpy();
      const bytes = await post(gw.url, headers(body), JSON.stringify(body), () => spy.off());
      assert.deepEqual(
        spy.seen.map((s) => s.bytes),
        [],
        `decoded whole by mcpx:\n${spy.seen.map((s) => s.stack).join('\n\n')}`,
      );
      const frame = JSON.parse(bytes.toString('utf8')) as Json;
      assertServerFrame(rev, frame, 'tools/call');
      const result = frame.result as { content: Array<{ type: string; text: string }> };
      assert.equal(result.content[0]!.text, 'x'.repeat(BIG));
      assert.ok(bytes.length > BIG);
    });
  }
});

describe('a message read with its long strings undecoded', () => {
  const read = (text: string) => {
    const bytes = Buffer.from(text);
    const lazy = lazyText(bytes);
    const message = parseJson(lazy.text, { maxDepth: 64, exactIds: false }) as Json;
    lazy.finish(message);
    keepBytes(message, bytes);
    return message;
  };
  // As JSON text: escaped backslash, quote, newline and a \u escape among multi-byte characters.
  const long = `é漢😀 \\\\ \\" \\n \\u0041 ${'y'.repeat(5000)}`;

  test('reads as JSON.parse reads it, escapes and every script included; a key is never left undecoded', () => {
    const text = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"${long}"}],"${'k'.repeat(5000)}":"${long}","list":["${long}"]}}`;
    const message = read(text);
    const block = ((message.result as Json).content as Json[])[0]!;
    assert.ok(isLazy(block, 'text'), 'the long text is undecoded until read');
    assert.deepEqual(JSON.parse(JSON.stringify(message)), JSON.parse(text));
    assert.ok(!isLazy(block, 'text'), 'read once, it is an ordinary property');
  });

  test('what JSON.parse refuses is refused as it is: a raw control character, a broken escape', () => {
    const z = 'z'.repeat(5000);
    for (const bad of [`${z}\u0001`, `${z}\\q`, `${z}\\u00G1`, `${z}\\`]) {
      const text = `{"jsonrpc":"2.0","id":1,"result":{"v":"${bad}"}}`;
      assert.throws(() => JSON.parse(text));
      assert.throws(() => read(text), /Parse error/);
    }
  });

  test('spelled for an older revision, a copied block keeps its long text undecoded, and serializes whole', () => {
    const text = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"${long}","annotations":{"audience":["user"],"lastModified":"2025-01-01T00:00:00Z"}}]}}`;
    const result = read(text).result as Json;
    // 2025-03-26 lacks annotations.lastModified: the block is copied without it, its text still undecoded.
    const old = downgradeResult('tools/call', result, '2025-03-26');
    const copied = (old.content as Json[])[0]!;
    assert.notEqual(copied, (result.content as Json[])[0]);
    assert.ok(isLazy(copied, 'text'));
    const out = encodeResponse({ jsonrpc: '2.0', id: 9, result: old } as never);
    const again = JSON.parse(typeof out === 'string' ? out : Buffer.from(out).toString()) as { result: Json };
    assert.deepEqual(again.result, {
      content: [{ type: 'text', text: JSON.parse(`"${long}"`), annotations: { audience: ['user'] } }],
    });
  });
});
