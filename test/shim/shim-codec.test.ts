// What the shim asks the era codecs (src/protocol/eras/): how a stdio client's request travels through it
// (`shimTravel`: in the session, or alone with its headers), and the Mcp-Name source of each method the
// codecs spell headers from (eras/names.ts, zod-free for the shim's bundle) — the same rows as the method
// descriptors' `mcpName`.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { codecFor } from '../../src/protocol/eras';
import { mcpNameOf } from '../../src/protocol/eras/names';
import { METHODS, methodOf } from '../../src/protocol/methods';
import { REVISIONS } from '../../src/protocol/revisions';
import { ModernHttp, isModern } from '../../src/shim/modern';

describe('the codec member shimTravel and the shim', () => {
  test('every legacy revision travels in the session; 2026-07-28 alone', () => {
    const travel = Object.fromEntries(REVISIONS.map((r) => [r, codecFor(r).shimTravel]));
    assert.deepEqual(travel, {
      '2024-11-05': 'session',
      '2025-03-26': 'session',
      '2025-06-18': 'session',
      '2025-11-25': 'session',
      '2026-07-28': 'alone',
    });
  });

  test('a request goes alone only when its _meta names a revision that travels alone; others (none, a legacy one, an unknown one) go in the session', () => {
    const meta = (v: unknown) => ({ _meta: { 'io.modelcontextprotocol/protocolVersion': v } });
    assert.equal(isModern(meta('2026-07-28')), true);
    for (const p of [meta('2025-11-25'), meta('2099-01-01'), meta(20260728), {}, undefined, { _meta: 'x' }])
      assert.equal(isModern(p), false, JSON.stringify(p));
  });

  test('a request that goes alone carries the codec headers (version, method, Mcp-Name encoded) and, for a tools/call of a listed tool, its Mcp-Param-* headers', () => {
    const m = new ModernHttp('shim-x');
    m.learn([
      {
        name: 'héllo',
        inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
      },
    ]);
    const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
    const call = {
      jsonrpc: '2.0' as const,
      id: 1,
      method: 'tools/call',
      params: { name: 'héllo', arguments: { region: 'eu' }, _meta },
    };
    const h = m.headers(call);
    assert.equal(h['MCP-Protocol-Version'], '2026-07-28');
    assert.equal(h['Mcp-Method'], 'tools/call');
    assert.match(h['Mcp-Name'] ?? '', /^=\?base64\?/);
    assert.equal(h['Mcp-Param-Region'], 'eu');
    const read = m.headers({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'mcpx://a/b', _meta } });
    assert.deepEqual(read, {
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'resources/read',
      'Mcp-Name': 'mcpx://a/b',
    });
    assert.deepEqual(m.headers({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'héllo' } }), {});
  });
});

describe('eras/names.ts: the Mcp-Name sources the codecs read', () => {
  test('the same rows as the method descriptors (protocol/methods.ts), no more, no fewer', () => {
    for (const name of Object.keys(METHODS)) assert.deepEqual(mcpNameOf(name), methodOf(name)?.mcpName, name);
    for (const name of ['tools/call', 'resources/read', 'tasks/get']) assert.ok(mcpNameOf(name), name);
    assert.equal(mcpNameOf('__proto__'), undefined);
    assert.equal(mcpNameOf('nope/none'), undefined);
  });
});
