// The checks written once for what every call reads (src/protocol/fastShapes.ts) never pass what the zod
// schema refuses: over many shapes, valid and broken, a value the quick check calls valid is one the schema
// accepts, and the common ones are settled by the quick check alone. What the schema refuses is still
// worded by it (resultProblem, readParams).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callToolParamsOk, callToolResultOk } from '../../src/protocol/fastShapes';
import { METHODS, readParams, resultProblem } from '../../src/protocol/methods';
import { RESULT } from '../../src/protocol/shapes';

const blocks: unknown[] = [
  { type: 'text', text: 'hi' },
  { type: 'text', text: 'hi', annotations: { audience: ['user'], priority: 0.5 } },
  { type: 'text', text: 'hi', annotations: { audience: ['robot'] } },
  { type: 'text', text: 'hi', annotations: { priority: 2 } },
  { type: 'text', text: 'hi', annotations: null },
  { type: 'text', text: 3 },
  { type: 'text' },
  { type: 'image', data: 'AA==', mimeType: 'image/png' },
  { type: 'image', data: 'AA==' },
  { type: 'audio', data: 'AA==', mimeType: 'audio/wav' },
  { type: 'resource_link', uri: 'file:///a', name: 'a' },
  { type: 'resource_link', uri: 'file:///a' },
  { type: 'resource', resource: { uri: 'file:///a', text: 'x' } },
  { type: 'resource', resource: { uri: 'file:///a' } },
  { type: 'video', url: 'x' },
  null,
  'text',
  [],
];
const results: unknown[] = [
  ...blocks.map((b) => ({ content: [b] })),
  ...blocks.map((b) => ({ content: [{ type: 'text', text: 'ok' }, b], isError: true })),
  { content: [] },
  { content: [], structuredContent: { a: 1 } },
  { content: [], structuredContent: [1] },
  { content: [], structuredContent: null },
  { content: [], isError: 'yes' },
  { content: {} },
  {},
  null,
  [],
  { content: [{ type: 'text', text: 'x' }], _meta: { a: 1 }, extra: [1, 2] },
];

test('a tools/call result the quick check passes is one the schema accepts; the common ones it settles', () => {
  for (const r of results) if (callToolResultOk(r)) assert.ok(RESULT.callTool.safeParse(r).success, JSON.stringify(r));
  assert.ok(callToolResultOk({ content: [{ type: 'text', text: 'hello' }] }));
  assert.ok(callToolResultOk({ content: [{ type: 'text', text: 'a' }], structuredContent: { n: 1 }, isError: false }));
  // Refused ones are still worded by the schema.
  assert.equal(resultProblem('tools/call', { content: {} }), 'content must be an array');
  assert.equal(resultProblem('tools/call', { content: [{ type: 'text' }] }), 'content.0.text is required');
  assert.equal(resultProblem('tools/call', { content: [{ type: 'text', text: 'x' }] }), undefined);
});

test('tools/call params the quick check passes are ones the schema accepts, and are used as they are', () => {
  const schema = METHODS['tools/call'].params;
  const params: unknown[] = [
    { name: 'echo' },
    { name: 'echo', arguments: { a: 1 } },
    { name: 'echo', arguments: [1] },
    { name: 'echo', arguments: null },
    { name: 3 },
    {},
    null,
    { name: 'echo', _meta: { progressToken: 1 } },
  ];
  for (const p of params) if (callToolParamsOk(p)) assert.ok(schema.safeParse(p).success, JSON.stringify(p));
  const p = { name: 'echo', arguments: { a: 1 } };
  assert.equal(readParams(schema, p), p);
  assert.throws(
    () => readParams(schema, { name: 3 }),
    /Invalid params: params\.name: Expected string, received number/,
  );
});
