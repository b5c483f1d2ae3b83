// The gateway under generated hostile input over stdio (fast-check; `mcpx serve --standalone`): from a fixed
// seed and from a random one printed on failure, every frame answered within a bound with an error code its
// revision may receive, and the process never exits. Frames that once broke a rule are replayed first.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import { CODE_TABLE, httpStatus, mayEmit } from '../../src/protocol/errors';
import { HEADERLESS, MODERN, OLDEST, REVISIONS, type Revision } from '../../src/protocol/revisions';
import { cliJs, repoRoot } from '../harness/gateway';

const FIXED_SEED = 20261201;
const RANDOM_SEED = Number(process.env.MCPX_FUZZ_SEED ?? Date.now() % 2 ** 31);
/** Frames per transport and seed: 3 transports x 2 seeds x 3,500 = 21,000 per run. */
const PER_RUN = Number(process.env.MCPX_FUZZ_FRAMES ?? 3500);
const ANSWER_WITHIN_MS = 10_000;
const CASES = join(repoRoot(), 'test', 'fuzz-cases');

const cli = cliJs();
const dir = mkdtempSync(join(tmpdir(), 'mcpx-fuzz-'));
const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, MCPX_PORT: '' };

// ---- what a frame is --------------------------------------------------------------------------

/** One generated frame: the body as sent (text), and the headers of an HTTP POST. */
interface Frame {
  body: string;
  headers: Record<string, string>;
}

const METHODS = [
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
const TOOLS = ['mcpx_servers', 'mcpx_tools', 'mcpx_call', 'echo', 'nope', ''];

const id = fc.oneof(
  fc.integer({ min: -5, max: 2 ** 31 }),
  fc.constantFrom(0, -1, 2 ** 53 - 1, 1.5),
  fc.string({ maxLength: 12 }),
  fc.constant(null),
  fc.constant({}),
  fc.constant([1]),
  fc.boolean(),
);
const meta = fc.oneof(
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
const params = fc.oneof(
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
const message = fc.record(
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
const hostile = fc.oneof(
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
const bodyText = fc.oneof(
  { weight: 8, arbitrary: message.map((m) => JSON.stringify(m)) },
  { weight: 2, arbitrary: fc.array(message, { maxLength: 5 }).map((ms) => JSON.stringify(ms)) },
  { weight: 1, arbitrary: hostile },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: message.map((m) => JSON.stringify(m).slice(0, -3)) },
);
interface Sent {
  /** The revision the reply must be spelled for, when the fuzzer can tell. */
  rev: Revision;
  /** Ids of the requests in the frame that must each be answered. */
  ids: unknown[];
  /** Every id a message of the frame carried. */
  seen?: unknown[];
  batch: boolean;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Statuses with which the transport refuses a request before any JSON-RPC handling. */
const REFUSALS = new Set([400, 401, 403, 404, 405, 406, 413, 415, 429, 503]);

function checkError(err: unknown, status: number | undefined, sent: Sent, where: string): void {
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

// ---- the gateway under test ---------------------------------------------------------------------

/** A frame that broke a rule is written out, so that it can be kept under test/fuzz-cases/. */
function keep(kind: string, f: Frame): void {
  const file = join(dir, `failed-${kind}-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify({ kind, ...f }, null, 2));
  process.stderr.write(`fuzz: a failing frame is in ${file}; copy it to test/fuzz-cases/ to keep it\n`);
}

after(() => rmSync(dir, { recursive: true, force: true }));

describe('fuzz: stdio', () => {
  test(`${PER_RUN * 2} generated lines, fixed seed ${FIXED_SEED} and random seed ${RANDOM_SEED}`, async () => {
    const lines = fc
      .sample(bodyText, { seed: FIXED_SEED, numRuns: PER_RUN })
      .concat(fc.sample(bodyText, { seed: RANDOM_SEED, numRuns: PER_RUN }));
    for (const name of readdirSync(CASES).filter((n) => n.endsWith('.json'))) {
      const c = JSON.parse(readFileSync(join(CASES, name), 'utf8')) as Frame & { kind: string };
      if (c.kind === 'stdio') lines.unshift(c.body);
    }
    const child = spawn(process.execPath, [cli, 'serve', '--transport', 'stdio', '--standalone'], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stderr!.resume();
    const waiting = new Map<string, (m: unknown) => void>();
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const m = parsed(l) as { id?: unknown } | unknown[] | undefined;
      for (const x of Array.isArray(m) ? m : [m]) {
        const k = JSON.stringify((x as { id?: unknown } | undefined)?.id ?? null);
        waiting.get(k)?.(x);
      }
    });
    try {
      for (const [i, line] of lines.entries()) {
        if (line.includes('\n') || line.includes('\r')) continue;
        // One line at a time, each request under a fresh id so its answer can be told apart.
        const v = parsed(line);
        // A listen stream is held open by design: sent, not waited for.
        const listen = line.includes('subscriptions/listen');
        const asRequest =
          !listen && typeof v === 'object' && v !== null && !Array.isArray(v) && 'method' in v && 'id' in v;
        let tag: unknown = `fz-${i}`;
        let text = line;
        if (asRequest) {
          try {
            text = JSON.stringify({ ...(v as object), id: tag });
          } catch {
            tag = (v as { id: unknown }).id; // too deep to rewrite here: sent as it is
          }
        }
        const answered = asRequest ? new Promise((r) => waiting.set(JSON.stringify(tag), r)) : undefined;
        child.stdin!.write(`${text}\n`);
        if (!answered) continue;
        const msg = (await Promise.race([
          answered,
          new Promise((r) => setTimeout(() => r('timeout'), ANSWER_WITHIN_MS)),
        ])) as { error?: unknown; result?: unknown } | 'timeout';
        waiting.delete(JSON.stringify(tag));
        const where = `stdio line ${i} (seed ${i < PER_RUN ? FIXED_SEED : RANDOM_SEED}): ${line.slice(0, 200)}`;
        if (msg === 'timeout') {
          keep('stdio', { body: line, headers: {} });
          assert.fail(`${where}: not answered within ${ANSWER_WITHIN_MS} ms`);
        }
        if (msg.error !== undefined) checkError(msg.error, undefined, { rev: OLDEST, ids: [tag], batch: false }, where);
        assert.equal(child.exitCode, null, `${where}: the gateway exited`);
      }
    } finally {
      child.stdin!.end();
      await new Promise((r) => child.once('exit', r));
    }
  });
});
