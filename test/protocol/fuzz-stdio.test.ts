// The gateway under generated hostile input over stdio (fast-check; `mcpx serve --standalone`): from a fixed
// seed and from a random one printed on failure, every frame answered within a bound with an error code its
// revision may receive, and the process never exits. Frames that once broke a rule are replayed first.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import { OLDEST } from '../../src/protocol/revisions';
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
  parsed,
  checkError,
  keep,
} from './fuzzFrames';

// ---- the gateway under test// ---- the gateway under test ---------------------------------------------------------------------

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
