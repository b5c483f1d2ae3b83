import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VERSION } from '../../src/config/version';
import {
  REVISIONS,
  assertClientFrame,
  assertServerFrame,
  clientFrameErrors,
  defErrors,
  resultDefinitionFor,
  serverFrameErrors,
  type Revision,
} from './schema';

const LEGACY: readonly Revision[] = ['2024-11-05', '2025-03-26', '2025-06-18'];

const callToolResultFrame = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id: 7,
  result: { content: [{ type: 'text', text: 'hello' }], isError: false, ...extra },
});

const serverInfoMeta = { 'io.modelcontextprotocol/serverInfo': { name: 'mcpx', version: VERSION } };

function assertFails(errors: string[], pattern: RegExp): void {
  assert.ok(errors.length > 0, 'expected validation errors, got none');
  assert.ok(
    errors.some((e) => pattern.test(e)),
    `expected an error matching ${pattern}, got:\n  ${errors.join('\n  ')}`,
  );
}

test('a valid 2025-06-18 CallToolResult frame passes', () => {
  assert.deepEqual(serverFrameErrors('2025-06-18', callToolResultFrame(), 'tools/call'), []);
  assertServerFrame('2025-06-18', callToolResultFrame(), 'tools/call');
});

test('resultType fails for 2025-06-18 but passes for 2026-07-28', () => {
  const frame = callToolResultFrame({ resultType: 'complete', _meta: serverInfoMeta });
  assertFails(
    serverFrameErrors('2025-06-18', frame, 'tools/call'),
    /^\/result must NOT have additional property "resultType" \(#\/definitions\/CallToolResult\/additionalProperties\)$/,
  );
  assert.deepEqual(serverFrameErrors('2026-07-28', frame, 'tools/call'), []);
});

test('2026-07-28 requires resultType; _meta serverInfo is only a SHOULD', () => {
  assertFails(serverFrameErrors('2026-07-28', callToolResultFrame(), 'tools/call'), /required property 'resultType'/);
  assert.deepEqual(serverFrameErrors('2026-07-28', callToolResultFrame({ resultType: 'complete' }), 'tools/call'), []);
  // serverInfo, when present, is typed: Implementation needs name and version.
  const badMeta = callToolResultFrame({
    resultType: 'complete',
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'x' } },
  });
  assertFails(
    serverFrameErrors('2026-07-28', badMeta, 'tools/call'),
    /serverInfo must have required property 'version'/,
  );
  // ...while other _meta keys remain allowed.
  const extraMeta = callToolResultFrame({
    resultType: 'complete',
    _meta: { ...serverInfoMeta, 'com.example/trace': 'abc' },
  });
  assert.deepEqual(serverFrameErrors('2026-07-28', extraMeta, 'tools/call'), []);
});

test('structuredContent on a 2025-03-26 CallToolResult fails (it arrived in 2025-06-18)', () => {
  const frame = callToolResultFrame({ structuredContent: { temperature: 21 } });
  assertFails(serverFrameErrors('2025-03-26', frame, 'tools/call'), /additional property "structuredContent"/);
  assert.deepEqual(serverFrameErrors('2025-06-18', frame, 'tools/call'), []);
});

test('a Tool with title fails for 2025-03-26 and passes for 2025-06-18', () => {
  const tool = {
    name: 'echo',
    title: 'Echo',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  };
  assertFails(
    defErrors('2025-03-26', 'Tool', tool),
    /^\/ must NOT have additional property "title" \(#\/definitions\/Tool\/additionalProperties\)$/,
  );
  assert.deepEqual(defErrors('2025-06-18', 'Tool', tool), []);
  const frame = { jsonrpc: '2.0', id: 'a', result: { tools: [tool] } };
  assertFails(
    serverFrameErrors('2025-03-26', frame, 'tools/list'),
    /^\/result\/tools\/0 must NOT have additional property "title"/,
  );
  assert.deepEqual(serverFrameErrors('2025-06-18', frame, 'tools/list'), []);
});

test('inputSchema stays open (it is a JSON Schema document)', () => {
  const tool = {
    name: 'echo',
    inputSchema: {
      type: 'object',
      $schema: 'http://json-schema.org/draft-07/schema#',
      additionalProperties: false,
      properties: {},
    },
  };
  for (const rev of REVISIONS) assert.deepEqual(defErrors(rev, 'Tool', tool), [], rev);
});

test('a parse error without id passes in every revision', () => {
  const frame = { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } };
  for (const rev of REVISIONS) assert.deepEqual(serverFrameErrors(rev, frame), [], rev);
  // Only the parse error is exempt in the revisions whose schema requires the id.
  const other = { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' } };
  for (const rev of LEGACY) assertFails(serverFrameErrors(rev, other), /required property 'id'/);
  // The error object itself is closed.
  const extra = { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'nope', detail: 1 } };
  for (const rev of REVISIONS)
    assertFails(serverFrameErrors(rev, extra), /\/error must NOT have additional property "detail"/);
});

test('2026-07-28 specific error types are enforced by code', () => {
  const missingData = { jsonrpc: '2.0', id: 1, error: { code: -32022, message: 'Unsupported protocol version' } };
  assertFails(
    serverFrameErrors('2026-07-28', missingData),
    /required property 'data'.*UnsupportedProtocolVersionError/,
  );
  const ok = {
    ...missingData,
    error: { ...missingData.error, data: { requested: '1999-01-01', supported: ['2026-07-28'] } },
  };
  assert.deepEqual(serverFrameErrors('2026-07-28', ok), []);
});

test('ServerCapabilities with extensions fails for 2025-11-25 and passes for 2026-07-28', () => {
  const caps = { tools: { listChanged: true }, extensions: { 'io.modelcontextprotocol/tasks': {} } };
  assertFails(defErrors('2025-11-25', 'ServerCapabilities', caps), /additional property "extensions"/);
  assert.deepEqual(defErrors('2026-07-28', 'ServerCapabilities', caps), []);
});

test('a notification with an unknown method fails', () => {
  const frame = { jsonrpc: '2.0', method: 'notifications/bogus', params: {} };
  for (const rev of REVISIONS) {
    assertFails(serverFrameErrors(rev, frame), new RegExp(`method "notifications/bogus" does not exist in ${rev}`));
    assertFails(clientFrameErrors(rev, frame), /does not exist in/);
  }
  // A client-only notification sent by the server is also rejected.
  assertFails(
    serverFrameErrors('2025-06-18', { jsonrpc: '2.0', method: 'notifications/initialized' }),
    /does not exist in 2025-06-18/,
  );
  assert.deepEqual(clientFrameErrors('2025-06-18', { jsonrpc: '2.0', method: 'notifications/initialized' }), []);
});

test('an array frame fails for 2025-06-18; a batch is only valid in 2025-03-26', () => {
  const batch = [callToolResultFrame(), { jsonrpc: '2.0', id: 8, result: {} }];
  assertFails(
    serverFrameErrors('2025-06-18', batch, 'tools/call'),
    /batch \(array\) frames are not allowed in 2025-06-18/,
  );
  assert.deepEqual(serverFrameErrors('2025-03-26', batch, { 7: 'tools/call', 8: 'ping' }), []);
  assertFails(serverFrameErrors('2025-03-26', []), /empty batch/);
});

test('results need the request method, and the method must exist in the revision', () => {
  assertFails(serverFrameErrors('2025-06-18', callToolResultFrame()), /pass requestMethod/);
  assertFails(
    serverFrameErrors('2026-07-28', { jsonrpc: '2.0', id: 1, result: { resultType: 'complete' } }, 'ping'),
    /method "ping" does not exist in 2026-07-28/,
  );
  assertFails(
    serverFrameErrors('2024-11-05', { jsonrpc: '2.0', id: 1, result: {} }, 'elicitation/create'),
    /does not exist in 2024-11-05/,
  );
  assert.equal(resultDefinitionFor('2025-06-18', 'server', 'ping'), 'EmptyResult');
  assert.equal(resultDefinitionFor('2026-07-28', 'server', 'server/discover'), 'DiscoverResult');
  assert.equal(resultDefinitionFor('2026-07-28', 'server', 'subscriptions/listen'), 'SubscriptionsListenResult');
  assert.equal(resultDefinitionFor('2025-11-25', 'server', 'tasks/result'), 'GetTaskPayloadResult');
  assert.equal(resultDefinitionFor('2025-06-18', 'client', 'elicitation/create'), 'ElicitResult');
  assert.equal(resultDefinitionFor('2026-07-28', 'client', 'sampling/createMessage'), undefined);
});

test('2026-07-28 input_required results validate as InputRequiredResult, only where allowed', () => {
  const frame = {
    jsonrpc: '2.0',
    id: 3,
    result: {
      resultType: 'input_required',
      inputRequests: { roots: { method: 'roots/list' } },
      requestState: 'opaque',
    },
  };
  assert.deepEqual(serverFrameErrors('2026-07-28', frame, 'tools/call'), []);
  assertFails(serverFrameErrors('2026-07-28', frame, 'tools/list'), /"input_required" is not allowed for tools\/list/);
  const bad = { ...frame, result: { ...frame.result, content: [] } };
  assertFails(
    serverFrameErrors('2026-07-28', bad, 'tools/call'),
    /additional property "content" \(#\/\$defs\/InputRequiredResult\/additionalProperties\)/,
  );
});

test('2025-11-25 tasks: CreateTaskResult for task-augmented calls; Result & Task compositions are closed as a whole', () => {
  const task = {
    taskId: 't1',
    status: 'working',
    createdAt: '2025-11-25T00:00:00Z',
    lastUpdatedAt: '2025-11-25T00:00:00Z',
    ttl: null,
  };
  assert.deepEqual(serverFrameErrors('2025-11-25', { jsonrpc: '2.0', id: 1, result: { task } }, 'tools/call'), []);
  assert.deepEqual(
    serverFrameErrors('2025-11-25', { jsonrpc: '2.0', id: 2, result: { ...task, _meta: {} } }, 'tasks/get'),
    [],
  );
  assertFails(
    serverFrameErrors('2025-11-25', { jsonrpc: '2.0', id: 2, result: { ...task, bogus: 1 } }, 'tasks/get'),
    /additional property "bogus"/,
  );
  const status = { jsonrpc: '2.0', method: 'notifications/tasks/status', params: { ...task, _meta: {} } };
  assert.deepEqual(serverFrameErrors('2025-11-25', status), []);
});

test('client frames: requests keep _meta open, everything else closed', () => {
  const call = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'echo', arguments: { a: 1 }, _meta: { progressToken: 'p1' } },
  };
  for (const rev of LEGACY) assert.deepEqual(clientFrameErrors(rev, call), [], rev);
  assertFails(
    clientFrameErrors('2024-11-05', { ...call, params: { ...call.params, task: { ttl: 1 } } }),
    /params must NOT have additional property "task"/,
  );
  assertFails(
    clientFrameErrors('2024-11-05', { ...call, extra: true }),
    /^\/ must NOT have additional property "extra" \(#\/definitions\/JSONRPCRequest\/additionalProperties\)$/,
  );
  // 2026-07-28 requests carry the required per-request _meta.
  assertFails(clientFrameErrors('2026-07-28', call), /required property 'io.modelcontextprotocol\/protocolVersion'/);
  const call2026 = {
    ...call,
    params: {
      name: 'echo',
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
  assertClientFrame('2026-07-28', call2026);
  // responses to server requests
  assertClientFrame(
    '2025-06-18',
    { jsonrpc: '2.0', id: 9, result: { action: 'accept', content: { ok: true } } },
    'elicitation/create',
  );
  assertFails(
    clientFrameErrors('2025-03-26', { jsonrpc: '2.0', id: 9, result: { action: 'accept' } }, 'elicitation/create'),
    /does not exist in 2025-03-26/,
  );
});

test('assertServerFrame throws with the errors and the frame JSON', () => {
  assert.throws(
    () => assertServerFrame('2025-03-26', callToolResultFrame({ structuredContent: {} }), 'tools/call'),
    (err: unknown) => {
      assert.ok(err instanceof Error);
      assert.match(err.message, /server frame is not valid 2025-03-26/);
      assert.match(err.message, /additional property "structuredContent"/);
      assert.match(err.message, /"jsonrpc": "2.0"/);
      return true;
    },
  );
});

test('non-objects and unclassifiable frames fail', () => {
  for (const frame of [null, 42, 'x', { jsonrpc: '2.0', id: 1 }]) {
    assert.ok(serverFrameErrors('2025-06-18', frame).length > 0, JSON.stringify(frame));
  }
  assertFails(defErrors('2025-06-18', 'NoSuchThing', {}), /does not exist in 2025-06-18/);
});

test('errors are readable: instance path, message naming the property, location in schema.json', () => {
  const frame = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', txt: 'x' }] } };
  // Only the alternative selected by `type` is reported, not every ContentBlock alternative.
  assert.deepEqual(serverFrameErrors('2025-06-18', frame, 'tools/call'), [
    "/result/content/0 must have required property 'text' (#/definitions/TextContent/required)",
    '/result/content/0 must NOT have additional property "txt" (#/definitions/TextContent/additionalProperties)',
  ]);
});
