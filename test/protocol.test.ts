// The protocol core on its own: the table, the edge (copy, never edit), the envelope, the error table.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { downgradeCapabilities, downgradeResult } from '../src/protocol/downgrade';
import { envelope } from '../src/protocol/envelope';
import { CODE_TABLE, mayEmit, resourceNotFound, toWireError, ProtocolError } from '../src/protocol/errors';
import { classify } from '../src/protocol/jsonrpc';
import { UnsayableQuestion, spellQuestion } from '../src/protocol/questions';
import { PROBE_ORDER, codecFor, initializeRevision, isEra, revisionOf } from '../src/protocol/eras';
import { METHODS, methodAnswered, methodOf, questionOf } from '../src/protocol/methods';
import { REVISIONS } from '../src/protocol/revisions';
import { makePolicy } from '../src/config/policy';
import { defErrors } from './harness/schema';

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
      'tools/list',
    ]);
    assert.deepEqual(methodOf('tools/call')?.mcpName, { field: 'name' });
    assert.deepEqual(methodOf('tasks/cancel')?.mcpName, { field: 'taskId', optional: true });
    assert.equal(methodOf('tools/list')?.mcpName, undefined);
  });
});

describe('era codecs', () => {
  const legacy = codecFor('2025-11-25');
  const modern = codecFor('2026-07-28');

  test("the revision a request states: 2026-07-28 in _meta; a legacy one there is the transport's; unknown is -32022", () => {
    const pv = (v: unknown) => ({ 'io.modelcontextprotocol/protocolVersion': v });
    assert.equal(revisionOf(undefined, '2024-11-05'), '2024-11-05');
    assert.equal(revisionOf(pv('2026-07-28'), '2025-03-26'), '2026-07-28');
    assert.equal(revisionOf(pv('2025-06-18'), '2025-03-26'), '2025-03-26');
    assert.throws(
      () => revisionOf(pv('2099-01-01'), '2025-03-26'),
      (e: ProtocolError) => e.code === -32022 && (e.data as { requested: string }).requested === '2099-01-01',
    );
    // initialize counter-offers the newest legacy revision, never 2026-07-28.
    assert.equal(initializeRevision('2025-06-18'), '2025-06-18');
    assert.equal(initializeRevision('2026-07-28'), '2025-11-25');
    assert.equal(initializeRevision('1999-01-01'), '2025-11-25');
  });

  test("the caller: per request and checked (2026-07-28), or the connection's", () => {
    const conn = { clientCapabilities: { roots: {} }, clientInfo: { name: 'c' }, logLevel: 'info' as const };
    assert.deepEqual(legacy.caller({ anything: 1 }, conn), {
      capabilities: { roots: {} },
      clientInfo: { name: 'c' },
      logLevel: 'info',
    });
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { sampling: {} },
      'io.modelcontextprotocol/clientInfo': { name: 'm' },
    };
    assert.deepEqual(modern.caller(meta, conn), {
      capabilities: { sampling: {} },
      clientInfo: { name: 'm' },
      logLevel: undefined,
    });
    assert.throws(() => modern.caller(undefined, conn), /params\._meta is required in 2026-07-28/);
    const { 'io.modelcontextprotocol/clientCapabilities': _, ...noCaps } = meta;
    assert.throws(() => modern.caller(noCaps, conn), /clientCapabilities"\] is required \(an object\)/);
    assert.throws(
      () => modern.caller({ ...meta, 'io.modelcontextprotocol/logLevel': 'loud' }, conn),
      /unknown log level "loud"/,
    );
  });

  test('lists, tasks and headers, per era, on both sides', () => {
    assert.equal(legacy.cursor(''), undefined);
    assert.equal(modern.cursor(''), '');
    assert.equal(legacy.listEnds(''), true);
    assert.equal(modern.listEnds(''), false);
    const task = { taskId: 't', status: 'working' };
    assert.deepEqual(legacy.tasks.createdOf(legacy.tasks.created(task)), task);
    assert.deepEqual(modern.tasks.createdOf(modern.tasks.created(task)), { resultType: 'task', ...task });
    assert.equal(modern.tasks.createdOf({ content: [] }), undefined);
    assert.deepEqual(legacy.tasks.augment({ name: 'x' }), { name: 'x', task: {} });
    const ext = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
    assert.equal(modern.tasks.declared({}), false);
    assert.equal(modern.tasks.declared(ext), true);
    assert.equal(legacy.tasks.declared({}), true);
    assert.equal(legacy.tasks.augmentFirst({ tasks: { requests: {} } }, 'optional', false), false);
    assert.equal(legacy.tasks.augmentFirst({ tasks: { requests: {} } }, 'required', false), true);
    assert.equal(modern.tasks.augmentFirst(ext, undefined, true), true);
    const upper = (v: string) => v.toUpperCase();
    assert.equal(legacy.client.headers('tools/call', { name: 'n' }, upper), undefined);
    assert.deepEqual(modern.client.headers('tools/call', { name: 'n' }, upper), {
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'N',
    });
    assert.deepEqual(legacy.client.meta({ capabilities: {}, clientInfo: {} }), {});
    assert.equal(
      modern.client.meta({ capabilities: {}, clientInfo: {}, logLevel: 'debug' })['io.modelcontextprotocol/logLevel'],
      'debug',
    );
    assert.equal(modern.cancellation('http'), 'close-stream');
    assert.equal(modern.cancellation('stdio'), 'notification');
    assert.equal(legacy.cancellation('http'), 'notification');
  });

  test('a result spelled by each codec: the envelope only where the era has one', () => {
    const opts = () => ({ serverInfo: { name: 's', version: '1' }, listMaxAgeMs: 5, readMaxAgeMs: 0 });
    const result = { tools: [] };
    assert.deepEqual(legacy.spell('tools/list', result, '2025-11-25', opts), { tools: [] });
    const m = modern.spell('tools/list', result, '2026-07-28', opts);
    assert.equal(m.resultType, 'complete');
    assert.equal(m.ttlMs, 5);
    assert.deepEqual(result, { tools: [] }, 'a copy, never an edit');
  });

  test('mcpx as a client, per era: what the upstream client (src/upstream/) asks of the codec', () => {
    // tools/list of a server that declared no tools capability: asked of legacy only.
    assert.equal(legacy.listsUndeclaredTools, true);
    assert.equal(modern.listsUndeclaredTools, false);
    // The upstream's own requests: a legacy peer may send them, a 2026-07-28 one sends none.
    assert.equal(legacy.client.peerRequests, true);
    assert.equal(modern.client.peerRequests, false);
    // The log level: logging/setLevel to legacy, per request to 2026-07-28.
    assert.equal(legacy.client.logLevel, 'set-level');
    assert.equal(modern.client.logLevel, 'per-request');
    assert.equal(
      legacy.client.meta({ capabilities: {}, clientInfo: {}, logLevel: 'debug' })['io.modelcontextprotocol/logLevel'],
      undefined,
    );
    // x-mcp-header annotations, and a legacy session's GET stream opened after the first answer.
    assert.equal(legacy.client.paramHeaders, false);
    assert.equal(modern.client.paramHeaders, true);
    assert.equal(legacy.http.pushStream, true);
    assert.equal(modern.http.pushStream, false);
    // A driven task: where its result is collected, which field paces the polling, how it is declared.
    assert.equal(legacy.tasks.collect, 'tasks/result');
    assert.equal(modern.tasks.collect, 'tasks/get');
    const task = { taskId: 't', pollInterval: 100, pollIntervalMs: 200 };
    assert.equal(task[legacy.tasks.fields.poll], 100);
    assert.equal(task[modern.tasks.fields.poll], 200);
    const caps = { roots: {} };
    assert.equal(legacy.tasks.declare(caps), caps, 'legacy declares tasks at initialize: the request as it is');
    assert.deepEqual(modern.tasks.declare(caps), { roots: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } });
    assert.deepEqual(modern.tasks.augment({ name: 'x' }), { name: 'x' }, 'the extension has no task field');
    assert.equal(legacy.tasks.createdOf({ content: [] }), undefined);
    // The probe: newest first, each era by its own handshake; an era name read from a file is checked.
    assert.deepEqual(
      PROBE_ORDER.map((c) => c.handshake),
      ['discover', 'initialize'],
    );
    assert.equal(isEra('legacy'), true);
    assert.equal(isEra('modern'), true);
    assert.equal(isEra('toString'), false);
    assert.equal(isEra(undefined), false);
  });

  test("each era's newest revision, as the Tasks view names it: the last of the revisions whose codec it is", () => {
    for (const rev of REVISIONS) {
      const newest = codecFor(rev).newest;
      assert.equal(codecFor(newest), codecFor(rev), `${rev}'s codec names a revision of its own era`);
      const later = REVISIONS.slice(REVISIONS.indexOf(newest) + 1);
      assert.ok(
        later.every((r) => codecFor(r) !== codecFor(rev)),
        `no ${codecFor(rev).era} revision after ${newest}`,
      );
    }
    assert.equal(legacy.newest, '2025-11-25');
    assert.equal(modern.newest, '2026-07-28');
  });

  test("what the gateway asks of an upstream's codec: listen streams, roots announcements, who drives a task", () => {
    // 2026-07-28 upstreams are followed on a listen stream and told nothing of roots (no notification exists).
    assert.equal(modern.client.subscriptions, 'listen');
    assert.equal(modern.client.rootsListChanged, false);
    assert.equal(legacy.client.subscriptions, 'subscribe');
    assert.equal(legacy.client.rootsListChanged, true);
    // A legacy client's call to a task-only tool is driven by mcpx; a 2026-07-28 client is handed the task.
    assert.equal(legacy.tasks.directedBy, 'client');
    assert.equal(modern.tasks.directedBy, 'server');
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
    assert.equal(resourceNotFound('2026-07-28', 'a://b').code, -32602);
    assert.equal(resourceNotFound('2024-11-05', 'a://b').code, -32002);
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
