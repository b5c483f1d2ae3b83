// The fuzz tests' frames (fuzz.test.ts over HTTP and stdio, fuzz-stdio.test.ts): the seeds, the bounds, the
// state directory of the gateway under test, fast-check's arbitraries of hostile JSON-RPC frames, what an
// error in reply to one must be, and a failing frame kept.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { CODE_TABLE, httpStatus, mayEmit } from '../../src/protocol/errors';
import { HEADERLESS, MODERN, OLDEST, REVISIONS, type Revision } from '../../src/protocol/revisions';
import { cliJs, repoRoot } from '../harness/gateway';

export const FIXED_SEED = 20261201;
export const RANDOM_SEED = Number(process.env.MCPX_FUZZ_SEED ?? Date.now() % 2 ** 31);
/** Frames per transport and seed: 3 transports x 2 seeds x 3,500 = 21,000 per run. */
export const PER_RUN = Number(process.env.MCPX_FUZZ_FRAMES ?? 3500);
export const ANSWER_WITHIN_MS = 10_000;
export const CASES = join(repoRoot(), 'test', 'fuzz-cases');

export const cli = cliJs();
export const dir = mkdtempSync(join(tmpdir(), 'mcpx-fuzz-'));
export const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, MCPX_PORT: '' };

// ---- what a frame is --------------------------------------------------------------------------

/** One generated frame: the body as sent (text), and the headers of an HTTP POST. */
export interface Frame {
  body: string;
  headers: Record<string, string>;
}

export const METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
  'logging/setLevel',
  'server/discover',
  'subscriptions/listen',
  'tasks/get',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'sampling/createMessage',
];
export const TOOLS = ['mcpx_servers', 'mcpx_tools', 'mcpx_call', 'echo', 'nope', ''];

export const id = fc.oneof(
  fc.integer({ min: -5, max: 2 ** 31 }),
  fc.constantFrom(0, -1, 2 ** 53 - 1, 1.5),
  fc.string({ maxLength: 12 }),
  fc.constant(null),
  fc.constant({}),
  fc.constant([1]),
  fc.boolean(),
);
export const meta = fc.oneof(
  fc.constant(undefined),
  fc.record(
    {
      'io.modelcontextprotocol/protocolVersion': fc.constantFrom(MODERN, '2025-11-25', '2099-01-01', '', 7),
      'io.modelcontextprotocol/clientCapabilities': fc.oneof(fc.constant({}), fc.jsonValue({ maxDepth: 2 })),
      'io.modelcontextprotocol/logLevel': fc.constantFrom('debug', 'info', 'nope'),
      progressToken: fc.oneof(fc.string({ maxLength: 6 }), fc.integer()),
      'dev.mcpx/session': fc.string({ maxLength: 8 }),
    },
    { requiredKeys: [] },
  ),
);
export const params = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 3 }),
  fc.record(
    {
      name: fc.constantFrom(...TOOLS),
      uri: fc.constantFrom('mcpx://a/b', 'x', 'mcpx://nope/x'),
      arguments: fc.jsonValue({ maxDepth: 3 }),
      cursor: fc.string({ maxLength: 8 }),
      protocolVersion: fc.constantFrom(...REVISIONS, '1999-01-01'),
      capabilities: fc.jsonValue({ maxDepth: 2 }),
      clientInfo: fc.constant({ name: 'fuzz', version: '1' }),
      level: fc.constantFrom('debug', 'error', 'nope'),
      requestId: id,
      notifications: fc.jsonValue({ maxDepth: 2 }),
      _meta: meta,
    },
    { requiredKeys: [] },
  ),
);
export const message = fc.record(
  {
    jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '1.0', 2),
    id,
    method: fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 10 })),
    params,
    result: fc.jsonValue({ maxDepth: 1 }),
    error: fc.constant({ code: -1, message: 'x' }),
  },
  { requiredKeys: ['jsonrpc'] },
);
/** Deep nesting, huge ids, long strings: the shapes a hostile peer sends. */
export const hostile = fc.oneof(
  fc
    .integer({ min: 50, max: 3000 })
    .map(
      (n) =>
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":${'['.repeat(n)}${']'.repeat(n)}}}`,
    ),
  fc
    .constantFrom('9007199254740993', '1e400', '-0', '12345678901234567890')
    .map((n) => `{"jsonrpc":"2.0","id":${n},"method":"ping"}`),
  fc
    .integer({ min: 1, max: 64 })
    .map((n) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })))),
);
export const bodyText = fc.oneof(
  { weight: 8, arbitrary: message.map((m) => JSON.stringify(m)) },
  { weight: 2, arbitrary: fc.array(message, { maxLength: 5 }).map((ms) => JSON.stringify(ms)) },
  { weight: 1, arbitrary: hostile },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: message.map((m) => JSON.stringify(m).slice(0, -3)) },
);

// ---- what a reply must be ---------------------------------------------------------------------

export interface Sent {
  /** The revision the reply must be spelled for, when the fuzzer can tell. */
  rev: Revision;
  /** Ids of the requests in the frame that must each be answered. */
  ids: unknown[];
  /** Every id a message of the frame carried. */
  seen?: unknown[];
  batch: boolean;
}

export function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Statuses with which the transport refuses a request before any JSON-RPC handling. */
export const REFUSALS = new Set([400, 401, 403, 404, 405, 406, 413, 415, 429, 503]);

export function checkError(err: unknown, status: number | undefined, sent: Sent, where: string): void {
  const e = err as { code?: unknown; message?: unknown };
  assert.equal(typeof e.code, 'number', `${where}: error without a numeric code`);
  const code = e.code as number;
  assert.ok(CODE_TABLE[code], `${where}: unknown error code ${code}`);
  assert.doesNotMatch(
    String(e.message),
    /call stack|Cannot read|undefined is not|is not a function/i,
    `${where}: an internal failure leaked`,
  );
  // A modern request may get a modern code, a legacy one a legacy code; which of the two the gateway
  // read the frame as is the era's to decide, so the code must fit one of them.
  assert.ok(
    mayEmit(code, sent.rev) || mayEmit(code, MODERN) || mayEmit(code, OLDEST),
    `${where}: ${code} to ${sent.rev}`,
  );
  if (status !== undefined && status !== 200 && !REFUSALS.has(status)) {
    assert.fail(`${where}: HTTP ${status} for ${code}`);
  }
  if (status !== undefined && status !== 200 && !sent.batch) {
    const legal = [httpStatus(code, sent.rev), httpStatus(code, MODERN), httpStatus(code, HEADERLESS)];
    assert.ok(legal.includes(status) || REFUSALS.has(status), `${where}: HTTP ${status} for ${code}`);
  }
}

/** A frame that broke a rule is written out, so that it can be kept under test/fuzz-cases/. */
export function keep(kind: string, f: Frame): void {
  const file = join(dir, `failed-${kind}-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify({ kind, ...f }, null, 2));
  process.stderr.write(`fuzz: a failing frame is in ${file}; copy it to test/fuzz-cases/ to keep it\n`);
}
