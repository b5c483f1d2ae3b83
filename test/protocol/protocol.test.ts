// The protocol core on its own: the table, the edge (copy, never edit), the envelope, the error table.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { downgradeCapabilities, downgradeResult } from '../../src/protocol/downgrade';
import { envelope } from '../../src/protocol/envelope';
import { CODE_TABLE, mayEmit, resourceNotFound, toWireError, ProtocolError } from '../../src/protocol/errors';
import { classify } from '../../src/protocol/jsonrpc';
import { UnsayableQuestion, spellQuestion } from '../../src/protocol/questions';
import { METHODS, methodAnswered, methodOf, questionOf } from '../../src/protocol/methods';
import { REVISIONS } from '../../src/protocol/revisions';
import { makePolicy } from '../../src/config/policy';
import { defErrors } from '../harness/schema';

describe('revision table', () => {
  test('removed methods are not answered to 2026-07-28; listen is accepted from legacy', () => {
    for (const m of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']) {
      assert.equal(methodAnswered(m, '2026-07-28'), false, m);
      assert.equal(methodAnswered(m, '2025-11-25'), true, m);
    }
    assert.equal(methodAnswered('server/discover', '2025-11-25'), false);
    assert.equal(methodAnswered('subscriptions/listen', '2024-11-05'), true);
    assert.equal(methodAnswered('tasks/list', '2026-07-28'), false);
    // A question a server puts to a client is no method a client may send; nor is a prototype member.
    assert.equal(methodAnswered('roots/list', '2025-11-25'), false);
    assert.equal(methodAnswered('__proto__', '2025-11-25'), false);
    assert.equal(methodOf('toString'), undefined);
    assert.equal(questionOf('tools/call'), undefined);
    assert.deepEqual(questionOf('elicitation/create')?.span, { since: '2025-06-18' });
  });

  test('one descriptor per method says what the old tables said: Mcp-Name, input_required, idempotence', () => {
    const with_ = (k: 'inputRequired' | 'idempotent') =>
      Object.entries(METHODS)
        .filter(([, d]) => (d as Record<string, unknown>)[k] === true)
        .map(([m]) => m)
        .sort();
    assert.deepEqual(with_('inputRequired'), ['prompts/get', 'resources/read', 'tools/call']);
    assert.deepEqual(with_('idempotent'), [
      'completion/complete',
      'prompts/get',
      'prompts/list',
      'resources/list',
      'resources/read',
      'resources/templates/list',
      'server/discover',
      'skills/get',
      'skills/list',
      'tools/list',
    ]);
    assert.deepEqual(methodOf('tools/call')?.mcpName, { field: 'name' });
    assert.deepEqual(methodOf('tasks/cancel')?.mcpName, { field: 'taskId', optional: true });
    assert.equal(methodOf('tools/list')?.mcpName, undefined);
  });
});

describe('downgrade edge', () => {
  const stored = {
    content: [{ type: 'audio', data: 'AA==', mimeType: 'audio/wav' }],
    structuredContent: { a: 1 },
    resultType: 'complete',
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'x', version: '1' }, 'dev.x/k': 1 },
  };

  test('always a copy: the stored result is unchanged after every revision reads it', () => {
    const before = JSON.stringify(stored);
    for (const rev of REVISIONS) downgradeResult('tools/call', stored, rev);
    assert.equal(JSON.stringify(stored), before);
  });

  test('legacy loses resultType and serverInfo-in-_meta but keeps other _meta keys', () => {
    const r = downgradeResult('tools/call', stored, '2025-06-18');
    assert.equal('resultType' in r, false);
    assert.deepEqual(r._meta, { 'dev.x/k': 1 });
    assert.deepEqual(defErrors('2025-06-18', 'CallToolResult', r), []);
  });

  test('capabilities: completions from 2025-03-26, tasks only 2025-11-25, extensions only 2026-07-28', () => {
    const caps = { tools: {}, completions: {}, tasks: { list: {} }, extensions: { 'io.x/y': {} } };
    assert.deepEqual(Object.keys(downgradeCapabilities(caps, '2024-11-05')), ['tools']);
    assert.deepEqual(Object.keys(downgradeCapabilities(caps, '2025-03-26')), ['tools', 'completions']);
    assert.deepEqual(Object.keys(downgradeCapabilities(caps, '2025-11-25')), ['tools', 'completions', 'tasks']);
    assert.deepEqual(Object.keys(downgradeCapabilities(caps, '2026-07-28')), ['tools', 'completions', 'extensions']);
  });

  test('an input_required result gets no cache hints; a complete list does', () => {
    const opts = { serverInfo: { name: 'mcpx', version: '1' }, listMaxAgeMs: 5, readMaxAgeMs: 0 };
    const interim = envelope('resources/read', { resultType: 'input_required', inputRequests: {} }, opts);
    assert.equal('ttlMs' in interim, false);
    assert.equal('cacheScope' in interim, false);
    const list = envelope('tools/list', { tools: [], _meta: { 'dev.x/k': 1 } }, opts);
    assert.deepEqual(list._meta, {
      'dev.x/k': 1,
      'io.modelcontextprotocol/serverInfo': { name: 'mcpx', version: '1' },
    });
    assert.equal(list.ttlMs, 5);
  });
});

describe('error table', () => {
  test('nothing in -32000..-32019 and nothing legacy-only is emittable to 2026-07-28', () => {
    for (const code of Object.keys(CODE_TABLE).map(Number)) {
      if (code <= -32000 && code >= -32019) assert.equal(mayEmit(code, '2026-07-28'), false, String(code));
    }
    assert.equal(mayEmit(-32042, '2026-07-28'), false);
    assert.equal(mayEmit(-32042, '2025-06-18'), false);
    for (const c of [-32020, -32021, -32022]) assert.equal(mayEmit(c, '2025-11-25'), false);
  });

  test('a code the revision may not receive becomes -32603 at the edge', () => {
    const modern = toWireError(new ProtocolError(-32002, 'gone', { uri: 'x' }), '2026-07-28');
    assert.equal(modern.code, -32603);
    assert.equal(toWireError(new Error('x'), '2025-03-26').code, -32603);
    // One error raised without a revision; its code is the peer's era's, at the edge, with data.uri.
    assert.deepEqual(toWireError(resourceNotFound('a://b'), '2026-07-28'), {
      code: -32602,
      message: 'Resource not found: a://b',
      data: { uri: 'a://b' },
    });
    assert.equal(toWireError(resourceNotFound('a://b'), '2024-11-05').code, -32002);
  });

  test('classify names what is wrong', () => {
    const c = classify({ jsonrpc: '2.0', id: 1, method: 'x', params: 'no' });
    assert.equal(c.kind, 'invalid');
    assert.match(c.kind === 'invalid' ? c.error.message : '', /params/);
  });
});

describe('policy', () => {
  test('a partial precedence is completed newest first; first moves one to the front', () => {
    const p = makePolicy(['2025-03-26'], [], '2024-11-05');
    assert.deepEqual(p.precedence, ['2024-11-05', '2025-03-26', '2026-07-28', '2025-11-25', '2025-06-18']);
    assert.equal(p.governs('2024-11-05'), true);
    assert.equal(makePolicy([], ['2024-11-05'], '2024-11-05').governs('2024-11-05'), false, 'lenient is not strict');
  });
});

describe('questions spelled per revision', () => {
  test('fields a revision lacks are left out, a url elicitation gets an id, an unsayable one is refused as such', () => {
    const url = { mode: 'url', message: 'm', url: 'https://example.com' };
    assert.deepEqual(
      spellQuestion('elicitation/create', url, '2025-06-18', () => 'x'),
      { message: 'm', url: 'https://example.com' },
    );
    assert.deepEqual(
      spellQuestion('elicitation/create', url, '2025-11-25', () => 'x'),
      { ...url, elicitationId: 'mcpx-x' },
    );
    assert.equal(
      'elicitationId' in spellQuestion('elicitation/create', { ...url, elicitationId: 'e' }, '2026-07-28', () => 'x'),
      false,
    );
    const tools = {
      messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }] }],
      maxTokens: 5,
      tools: [],
      toolChoice: { mode: 'auto' },
    };
    assert.deepEqual(
      spellQuestion('sampling/createMessage', tools, '2025-06-18', () => 'x'),
      { messages: [{ role: 'user', content: { type: 'text', text: 'a' } }], maxTokens: 5 },
    );
    const two = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
      ],
      maxTokens: 5,
    };
    assert.deepEqual(
      spellQuestion('sampling/createMessage', two, '2025-11-25', () => 'x'),
      two,
      'several blocks are sayable from 2025-11-25',
    );
    assert.throws(
      () => spellQuestion('sampling/createMessage', two, '2025-06-18', () => 'x'),
      (e: unknown) =>
        e instanceof UnsayableQuestion &&
        e.code === -32603 &&
        e.message === 'sampling/createMessage cannot be put to a 2025-06-18 client as asked',
    );
  });
});
