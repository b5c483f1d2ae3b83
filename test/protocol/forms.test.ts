// The flat form of an elicitation schema (what the editor asks field by field) and its validation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flatFields, parseText, showValue } from '../../src/forms/flat';

const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2 },
    age: { type: 'integer', minimum: 0, default: 30 },
    ok: { type: 'boolean' },
    color: {
      type: 'string',
      oneOf: [
        { const: 'r', title: 'Red' },
        { const: 'g', title: 'Green' },
      ],
    },
    size: { type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] },
    tags: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'a', title: 'A' },
          { const: 'b', title: 'B' },
        ],
      },
    },
  },
  required: ['name'],
};

test('a flat schema becomes fields in order, with kinds, titles, options and defaults', () => {
  const f = flatFields(SCHEMA)!;
  assert.deepEqual(
    f.map((x) => [x.key, x.kind, x.required]),
    [
      ['name', 'string', true],
      ['age', 'integer', false],
      ['ok', 'boolean', false],
      ['color', 'enum', false],
      ['size', 'enum', false],
      ['tags', 'multi', false],
    ],
  );
  assert.equal(f[1]!.default, 30);
  assert.deepEqual(f[3]!.options, [
    { value: 'r', label: 'Red' },
    { value: 'g', label: 'Green' },
  ]);
  assert.deepEqual(f[4]!.options, [
    { value: 's', label: 'Small' },
    { value: 'm', label: 'Medium' },
  ]);
  assert.equal(showValue(f[5]!, ['a', 'b']), 'A, B');
});

test('anything richer is not flat (it goes to the webview form or the broker)', () => {
  assert.equal(flatFields({ type: 'object', properties: { o: { type: 'object', properties: {} } } }), undefined);
  assert.equal(
    flatFields({ type: 'object', properties: { a: { type: 'array', items: { type: 'string' } } } }),
    undefined,
  );
  assert.equal(flatFields({ type: 'string' }), undefined);
});

test('typed text is validated against the field', () => {
  const [name, age] = flatFields(SCHEMA)!;
  assert.deepEqual(parseText(name!, ''), { error: 'Name is required' });
  assert.deepEqual(parseText(name!, 'x'), { error: 'at least 2 characters' });
  assert.deepEqual(parseText(name!, 'Ada'), { value: 'Ada' });
  assert.deepEqual(parseText(age!, '1.5'), { error: 'not a whole number' });
  assert.deepEqual(parseText(age!, '-1'), { error: 'at least 0' });
  assert.deepEqual(parseText(age!, '42'), { value: 42 });
  assert.deepEqual(parseText(age!, ''), {});
});
