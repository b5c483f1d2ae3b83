// The era codecs on their own (src/protocol/eras/): what each era answers for every question the layers ask
// of it — how a request travels, what it is spelled as, lists, tasks, what mcpx as a client sends.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ProtocolError } from '../../src/protocol/errors';
import { PROBE_ORDER, codecFor, followsByListen, initializeRevision, isEra, revisionOf } from '../../src/protocol/eras';
import { MODERN as MODERN_REV, REVISIONS } from '../../src/protocol/revisions';

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
    assert.equal(modern.cancelsByNotice('http'), false, 'closing the stream is the cancellation');
    assert.equal(modern.cancelsByNotice('stdio'), true);
    assert.equal(legacy.cancelsByNotice('http'), true);
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
    assert.equal(legacy.client.listsTools({}), true);
    assert.equal(modern.client.listsTools({}), false);
    assert.equal(modern.client.listsTools({ tools: {} }), true);
    // The upstream's own requests: a legacy peer may send them, a 2026-07-28 one sends none (unanswered
    // while that revision is held strictly).
    assert.equal(legacy.client.ignoresRequests(true), false);
    assert.equal(modern.client.ignoresRequests(true), true);
    assert.equal(modern.client.ignoresRequests(false), false);
    // The log level: logging/setLevel to a legacy upstream that logs, per request to 2026-07-28.
    assert.equal(legacy.client.setsLevel({ logging: {} }), true);
    assert.equal(legacy.client.setsLevel({}), false);
    assert.equal(modern.client.setsLevel({ logging: {} }), false);
    assert.equal(
      legacy.client.meta({ capabilities: {}, clientInfo: {}, logLevel: 'debug' })['io.modelcontextprotocol/logLevel'],
      undefined,
    );
    // x-mcp-header annotations (2026-07-28 HTTP only), and a legacy session's GET stream opened after the
    // first answer.
    assert.equal(legacy.client.paramHeaders('http'), false);
    assert.equal(modern.client.paramHeaders('http'), true);
    assert.equal(modern.client.paramHeaders('stdio'), false);
    const opened: string[] = [];
    legacy.client.answered(() => opened.push('legacy'));
    modern.client.answered(() => opened.push('modern'));
    assert.deepEqual(opened, ['legacy']);
    // A driven task: where its result is collected, which field paces the polling, how it is declared.
    assert.equal(legacy.tasks.collect('working'), undefined);
    assert.equal(legacy.tasks.collect('input_required'), 'tasks/result');
    assert.equal(legacy.tasks.collect('completed'), 'tasks/result');
    assert.equal(modern.tasks.collect('completed'), undefined, 'the extension reads tasks/get');
    const task = { taskId: 't', pollInterval: 100, pollIntervalMs: 200 };
    assert.equal(legacy.tasks.pollOf(task), 100);
    assert.equal(modern.tasks.pollOf(task), 200);
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
    assert.equal(followsByListen(modern), true);
    assert.equal(followsByListen(legacy), false);
    const told: string[] = [];
    legacy.client.rootsChanged(() => told.push('legacy'));
    modern.client.rootsChanged(() => told.push('modern'));
    assert.deepEqual(told, ['legacy']);
    // A legacy client's call to a task-only tool is driven by mcpx; a 2026-07-28 client is handed the task
    // only where it would take one.
    assert.equal(legacy.tasks.mayDrive(false), true);
    assert.equal(modern.tasks.mayDrive(false), false);
    assert.equal(modern.tasks.mayDrive(true), true);
  });

  test("what the server asks of a request's codec: identity, questions, strategy, sessions, tasks", () => {
    const fresh = () => 'fresh';
    assert.equal(legacy.identity('conn', fresh), 'conn');
    assert.equal(modern.identity('conn', fresh), 'fresh');
    assert.equal(legacy.questionChannel('channel'), 'channel');
    assert.equal(modern.questionChannel('channel'), undefined, 'questions are input_required results');
    assert.equal(
      legacy.strategy(true, () => true),
      'task',
    );
    assert.equal(
      legacy.strategy(true, () => false),
      'direct',
    );
    assert.equal(
      modern.strategy(true, () => true),
      'background',
    );
    assert.equal(
      modern.strategy(false, () => true),
      'direct',
    );
    assert.equal(legacy.opensSession('initialize'), true);
    assert.equal(legacy.opensSession('tools/list'), false);
    assert.equal(modern.opensSession('initialize'), false);
    const acked: string[] = [];
    legacy.acknowledge(() => acked.push('legacy'));
    modern.acknowledge(() => acked.push('modern'));
    assert.deepEqual(acked, ['modern']);
    // A task as each era spells it; a 2025-11-25 tool error fails it, the extension's completes it.
    const view = {
      taskId: 't',
      status: 'completed',
      createdAt: 'c',
      lastUpdatedAt: 'u',
      ttlMs: 10,
      pollMs: 5,
      result: { content: [] },
    };
    assert.deepEqual(legacy.tasks.shape(view), {
      taskId: 't',
      status: 'completed',
      createdAt: 'c',
      lastUpdatedAt: 'u',
      ttl: 10,
      pollInterval: 5,
    });
    assert.equal(modern.tasks.shape(view).ttlMs, 10);
    assert.deepEqual(
      legacy.tasks.get(view, '2025-11-25', () => true),
      legacy.tasks.shape(view),
    );
    assert.deepEqual(
      modern.tasks.get(view, MODERN_REV, () => true).result,
      { content: [] },
      'the DetailedTask inlines it',
    );
    assert.deepEqual(modern.tasks.cancel(view, false), {}, 'an acknowledgement, ended or not');
    assert.throws(() => legacy.tasks.cancel(view, false), /already ended \(completed\)/);
    assert.equal(legacy.tasks.fails({ content: [], isError: true }), true);
    assert.equal(modern.tasks.fails({ content: [], isError: true }), false);
    assert.deepEqual(modern.tasks.followed(['a']), ['a']);
    assert.equal(legacy.tasks.followed(['a']), undefined, 'core tasks are followed by notifications/tasks/status');
  });
});
