// SEP-2243 x-mcp-header: which annotations are valid, and the headers they make.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { headerParams, paramHeaders } from '../src/upstream/paramHeaders';

const obj = (properties: Record<string, unknown>) => ({ type: 'object', properties });

test('valid annotations give their headers; values encoded; absent ones omitted', () => {
  const r = headerParams(obj({ region: { type: 'string', 'x-mcp-header': 'Region' }, n: { type: 'integer', 'x-mcp-header': 'N' }, deep: obj({ on: { type: 'boolean', 'x-mcp-header': 'On' } }) }));
  assert.ok('params' in r);
  assert.deepEqual(paramHeaders(r.params, { region: 'us-west1', n: 42, deep: { on: false } }), { 'Mcp-Param-Region': 'us-west1', 'Mcp-Param-N': '42', 'Mcp-Param-On': 'false' });
  assert.deepEqual(paramHeaders(r.params, { region: ' café ', n: null }), { 'Mcp-Param-Region': `=?base64?${Buffer.from(' café ').toString('base64')}?=` });
});

test('invalid annotations reject the tool, each with its reason', () => {
  const cases: Array<[unknown, RegExp]> = [
    [obj({ a: { type: 'string', 'x-mcp-header': '' } }), /empty/],
    [obj({ a: { type: 'string', 'x-mcp-header': 'Bad Name' } }), /not an HTTP field-name token/],
    [obj({ a: { type: 'number', 'x-mcp-header': 'A' } }), /not string, integer or boolean/],
    [obj({ a: { type: 'string', 'x-mcp-header': 'X' }, b: { type: 'string', 'x-mcp-header': 'x' } }), /used twice/],
    [obj({ a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'I' } } }), /not statically reachable/],
    [{ type: 'object', oneOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }, /not statically reachable/],
  ];
  for (const [schema, why] of cases) {
    const r = headerParams(schema);
    assert.ok('reason' in r, String(why));
    assert.match(r.reason, why);
  }
});
