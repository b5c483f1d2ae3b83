// Sweeps both eras with every kind of bad request and checks the codes that come back: only codes the
// revision defines, nothing in -32000..-32019 to 2026-07-28, and the HTTP status the table gives.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Listening } from '../../src/app/app';
import { httpStatus } from '../../src/protocol/errors';
import { startTestServer } from '../harness/gateway';
import type { Revision } from '../harness/schema';
import { HttpClient, type Json } from '../harness/wire';

let gw: Listening;
before(async () => {
  gw = await startTestServer();
});
after(() => gw.close());

const BAD: Array<[string, Json]> = [
  ['nope/nope', {}],
  ['tools/call', { name: 'nope' }],
  ['tools/call', { name: 5 }],
  ['tools/call', { name: 'echo', arguments: 'x' }],
  ['resources/read', { uri: 'test://missing' }],
  ['resources/read', { uri: 'test://doc/boom' }],
  ['tools/list', { cursor: 'zzz' }],
  ['prompts/get', { name: 'greet' }],
  ['completion/complete', { ref: {} }],
  ['logging/setLevel', { level: 'loud' }],
  ['initialize', { protocolVersion: 'x' }],
  ['ping', {}],
  ['server/discover', {}],
];
const LEGACY_OK = new Set([-32700, -32600, -32601, -32602, -32603, -32002]);
const MODERN_OK = new Set([-32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022]);

test('every error code sent is one the revision defines, with the HTTP status of the table', async () => {
  const seen = new Map<Revision, Set<number>>();
  for (const rev of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as Revision[]) {
    const c = new HttpClient(gw.url, rev);
    if (rev !== '2026-07-28') await c.initialize();
    const codes = new Set<number>();
    for (const [method, params] of BAD) {
      const ex = await c.request(method, params);
      const frame = ex.reply.frames.find((f) => 'error' in f);
      if (!frame) continue;
      const code = (frame.error as Json).code as number;
      codes.add(code);
      assert.equal(ex.reply.status, httpStatus(code, rev), `${rev} ${method} ${code}`);
    }
    // Header-level refusals of the modern path.
    if (rev === '2026-07-28') {
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: c.params() };
      const r = await c.post(body, { ...c.headers(body), 'Mcp-Method': 'x' });
      codes.add((r.frames[0]!.error as Json).code as number);
    }
    seen.set(rev, codes);
    for (const code of codes) {
      const ok = rev === '2026-07-28' ? MODERN_OK : LEGACY_OK;
      assert.ok(ok.has(code), `${rev} received ${code}`);
      if (rev === '2026-07-28') assert.ok(!(code <= -32000 && code >= -32019), `${rev} received ${code}`);
    }
  }
  assert.ok(seen.get('2026-07-28')!.has(-32020));
  assert.ok(seen.get('2026-07-28')!.has(-32601));
  assert.ok(seen.get('2025-11-25')!.has(-32002));
  assert.ok(!seen.get('2026-07-28')!.has(-32002));
});
