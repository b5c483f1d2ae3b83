// The gateway under generated hostile input over stdio (fast-check; `mcpx serve --standalone`): from a fixed
// seed and from a random one printed on failure, every frame answered within a bound with an error code its
// revision may receive, and the process never exits. Frames that once broke a rule are replayed first.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import { CODE_TABLE, httpStatus, mayEmit } from '../../src/protocol/errors';
import { HEADERLESS, MODERN, OLDEST, type Revision } from '../../src/protocol/revisions';
import {
  FIXED_SEED,
  RANDOM_SEED,
  PER_RUN,
  ANSWER_WITHIN_MS,
  CASES,
  cli,
  dir,
  env,
  type Frame,
  bodyText,
} from './fuzzFrames';

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
