// A 1 MB tool result reaches the client without mcpx decoding it to a string (src/wire/lazy.ts,
// src/wire/raw.ts): the stdio upstream's line is read as bytes, its long string left undecoded, and the
// response spliced from those bytes. A spy on every UTF-8 decoder of this process (Buffer's toString and
// utf8Slice, TextDecoder, StringDecoder) records each decode while the call is in flight; none may take
// the result whole. The gateway runs in this process; the client reads raw bytes and decodes them only
// after the spy is off, then validates the frame for its revision.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { downgradeResult } from '../../src/protocol/downgrade';
import { parseJson } from '../../src/protocol/jsonrpc';
import { isLazy, lazyText } from '../../src/wire/lazy';
import { encodeResponse, keepBytes } from '../../src/wire/raw';
import { decodeSpy } from '../fixtures/decode-spy';
import { cliJs } from '../harness/gateway';
import { assertServerFrame } from '../harness/schema';
import { type TestGateway, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json, StdioClient } from '../harness/wire';

const BIG = 1_000_000;
/** A decode of at least this many bytes is the result decoded whole (or most of it). */
const WHOLE = BIG / 2;

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
      const spy = decodeSpy(WHOLE);
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

  test('reaches a stdio client through the shim as bytes: neither mcpx nor the shim decodes it whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-nodecode-'));
    const out = join(dir, 'decoded.json');
    const spy = decodeSpy(WHOLE); // the gateway, in this process
    const shim = new StdioClient(
      process.execPath,
      [
        '--require',
        join(__dirname, '..', 'fixtures', 'decode-spy.js'),
        cliJs(),
        'serve',
        '--transport',
        'stdio',
        '--connect',
        gw.url,
      ],
      '2025-11-25',
      {},
      {
        ...process.env,
        XDG_CONFIG_HOME: dir,
        XDG_STATE_HOME: dir,
        MCPX_PORT: '',
        DECODE_SPY_OUT: out,
        MCPX_CHECK_SPLICE: '0',
      },
    );
    try {
      const init = await shim.request('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      });
      assert.ok(init.result);
      shim.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const r = await shim.request('tools/call', { name: 'big', arguments: {} }); // validated by the client
      const content = (r.result as { content: Array<{ text: string }> }).content;
      assert.equal(content[0]!.text, 'x'.repeat(BIG));
    } finally {
      spy.off();
      shim.child.stdin.end();
      await shim.exited;
    }
    const inShim = JSON.parse(readFileSync(out, 'utf8')) as Array<{ bytes: number; stack: string }>;
    rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(
      spy.seen.map((s) => s.bytes),
      [],
      `decoded whole by the gateway:\n${spy.seen.map((s) => s.stack).join('\n\n')}`,
    );
    assert.deepEqual(
      inShim.map((s) => s.bytes),
      [],
      `decoded whole by the shim:\n${inShim.map((s) => s.stack).join('\n\n')}`,
    );
  });
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
    // A control character at every alignment of a word, at the start, in the middle and at the end.
    const controls = [0, 1, 2, 3, 4, 5, 2500, 4997, 4998, 4999].map((at) => `${z.slice(0, at)}\u001f${z.slice(at)}`);
    for (const bad of [...controls, `${z}\u0001`, `${z}\\q`, `${z}\\u00G1`, `${z}\\`]) {
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
