// The gateway under generated hostile input (fast-check): frames over Streamable HTTP in both eras and
// over stdio, from a fixed seed and from a random one printed on failure. For every frame: the gateway
// does not exit, a request is answered within a bound, its error code is one the request's revision may
// receive and its HTTP status is the one the era's table gives; memory after the run is within 20% of
// memory after a warm-up. Frames that once broke a rule are replayed first (test/fuzz-cases/).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { HEADERLESS, MODERN, REVISIONS, type Revision, isRevision } from '../../src/protocol/revisions';
import { until } from '../harness/wait';
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
  METHODS,
  TOOLS,
  message,
  bodyText,
  type Sent,
  parsed,
  checkError,
  keep,
  REFUSALS,
} from './fuzzFrames';

const modernHeaders = fc.record(
  {
    'MCP-Protocol-Version': fc.constantFrom(MODERN, MODERN, '2025-11-25', 'v1'),
    'Mcp-Method': fc.constantFrom(...METHODS.slice(0, 8)),
    'Mcp-Name': fc.constantFrom(...TOOLS),
    Accept: fc.constantFrom('application/json', 'application/json, text/event-stream', 'text/event-stream'),
    'Content-Type': fc.constantFrom('application/json', 'application/json', 'text/plain'),
  },
  { requiredKeys: ['Content-Type'] },
);
const legacyHeaders = fc.record(
  {
    'MCP-Protocol-Version': fc.constantFrom(...REVISIONS, 'v1'),
    'Mcp-Session-Id': fc.constantFrom('0000', 'nope'),
    Accept: fc.constantFrom('application/json', 'application/json, text/event-stream'),
    'Content-Type': fc.constantFrom('application/json', 'application/json', 'text/plain'),
  },
  { requiredKeys: ['Content-Type'] },
);

/** A modern body: a message with the per-request _meta filled in, so most reach the server core. */
const modernBody = fc.tuple(message, fc.boolean()).map(([m, keep]) => {
  if (keep && typeof m.params === 'object' && m.params !== null && !Array.isArray(m.params)) {
    (m.params as Record<string, unknown>)._meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': {},
    };
  }
  return JSON.stringify(m);
});
const asHeaders = (h: object) => h as Record<string, string>;
const frames: Record<'legacy' | 'modern', fc.Arbitrary<Frame>> = {
  legacy: fc.record({ body: bodyText, headers: legacyHeaders.map(asHeaders) }),
  modern: fc.record({ body: fc.oneof(modernBody, bodyText), headers: modernHeaders.map(asHeaders) }),
};

// ---- the oracle --------------------------------------------------------------------------------

/** What a frame asks for, read the way a peer that follows the spec would read it. */
function expectation(frame: Frame, era: 'legacy' | 'modern'): Sent {
  const v = parsed(frame.body);
  const items = Array.isArray(v) ? v : [v];
  const ids = items
    .filter((m) => typeof m === 'object' && m !== null && 'method' in m && 'id' in m)
    .map((m) => (m as { id: unknown }).id)
    .filter((x) => typeof x === 'string' || (typeof x === 'number' && Number.isInteger(x)));
  // Any id a message carried may be echoed (an invalid message is answered with the id it had).
  const seen = items
    .filter((m) => typeof m === 'object' && m !== null && 'id' in m)
    .map((m) => (m as { id: unknown }).id);
  const header = frame.headers['MCP-Protocol-Version'];
  const rev: Revision = era === 'modern' && header === MODERN ? MODERN : isRevision(header) ? header : HEADERLESS;
  return { rev, ids, seen, batch: Array.isArray(v) };
}

// ---- the gateway under test ---------------------------------------------------------------------

let daemon: ChildProcess;
let url: URL;
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0);
}

function post(frame: Frame, timeoutMs = ANSWER_WITHIN_MS): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers: frame.headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(frame.body);
  });
}

/** The JSON-RPC messages of an HTTP reply: a JSON body or the data of SSE events. */
function messagesOf(reply: { type: string; text: string }): unknown[] {
  if (reply.type.includes('text/event-stream')) {
    return reply.text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => parsed(l.slice(5).trim()))
      .filter((m) => m !== undefined);
  }
  if (!reply.text) return [];
  const v = parsed(reply.text);
  return Array.isArray(v) ? v : [v];
}

async function httpFrame(frame: Frame, era: 'legacy' | 'modern'): Promise<void> {
  const sent = expectation(frame, era);
  // A listen stream is held open by design: it is ended by closing the request.
  if (frame.body.includes('subscriptions/listen')) {
    await post(frame, 300).catch(() => undefined);
    return;
  }
  const reply = await post(frame);
  const where = `HTTP ${era} ${reply.status} for ${frame.body.slice(0, 1500)} ${JSON.stringify(frame.headers)}`;
  assert.notEqual(reply.status, 500, `${where}: ${reply.text.slice(0, 200)}`);
  assert.ok(reply.status === 200 || reply.status === 202 || REFUSALS.has(reply.status), `${where}: unexpected status`);
  // An integer id JSON cannot hold exactly is echoed with its own digits, or refused: never changed.
  for (const [, digits] of frame.body.matchAll(/"id"\s*:\s*(-?\d{16,})/g)) {
    if (String(Number(digits)) === digits) continue;
    const refused = messagesOf(reply).some((m) => (m as { error?: { code?: number } }).error?.code === -32600);
    assert.ok(
      refused || reply.text.includes(`"id":${digits}`) || reply.status !== 200,
      `${where}: id ${digits} changed: ${reply.text.slice(0, 200)}`,
    );
  }
  for (const m of messagesOf(reply)) {
    const r = m as { id?: unknown; error?: unknown; result?: unknown };
    if (r.error !== undefined) checkError(r.error, reply.status, sent, where);
    if ('id' in r && r.id !== null && reply.status === 200 && (r.result !== undefined || r.error !== undefined)) {
      assert.ok(
        (sent.seen ?? sent.ids).some((x) => x === r.id),
        `${where}: answered id ${JSON.stringify(r.id)} was never sent`,
      );
    }
  }
  if (reply.status === 200 && sent.ids.length > 0 && !sent.batch) {
    const answered = messagesOf(reply).some((m) => (m as { id?: unknown }).id === sent.ids[0]);
    // A request is answered, unless it opened a stream (listen) that the gateway keeps (not here: no SSE
    // accepted means JSON), or it was cancelled by itself.
    assert.ok(
      answered || reply.type.includes('event-stream'),
      `${where}: request ${JSON.stringify(sent.ids[0])} not answered: ${reply.text.slice(0, 200)}`,
    );
  }
}

async function runHttp(era: 'legacy' | 'modern', seed: number, n: number): Promise<void> {
  const list = fc.sample(frames[era], { seed, numRuns: n });
  let next = 0;
  const worker = async () => {
    while (next < list.length) {
      const f = list[next++]!;
      try {
        await httpFrame(f, era);
      } catch (e) {
        keep(`http-${era}`, f);
        throw new Error(
          `fuzz seed ${seed} (MCPX_FUZZ_SEED=${seed}), frame #${list.indexOf(f)}: ${(e as Error).message}`,
        );
      }
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  assert.equal(daemon.exitCode, null, 'the gateway is still running');
}

before(async () => {
  daemon = spawn(process.execPath, [cli, 'daemon', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  daemon.stderr!.resume();
  const line = await new Promise<string>((resolve) => createInterface({ input: daemon.stdout! }).once('line', resolve));
  const found = /listening on (http:\/\/\S+)/.exec(line)?.[1];
  assert.ok(found, line);
  url = new URL(found);
});

after(async () => {
  agent.destroy();
  daemon.kill('SIGTERM');
  await new Promise((r) => daemon.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
});

describe('fuzz: Streamable HTTP', () => {
  test('kept cases first', async () => {
    for (const name of readdirSync(CASES).filter((n) => n.endsWith('.json'))) {
      const c = JSON.parse(readFileSync(join(CASES, name), 'utf8')) as Frame & { kind: string };
      if (c.kind === 'http-legacy' || c.kind === 'http-modern')
        await httpFrame(c, c.kind === 'http-legacy' ? 'legacy' : 'modern');
    }
  });

  test(`${PER_RUN * 4} generated frames, both eras, fixed seed ${FIXED_SEED} and random seed ${RANDOM_SEED}; memory returns`, async () => {
    await runHttp('legacy', FIXED_SEED + 1, 1000); // warm-up: the heap grows to its working size
    await runHttp('modern', FIXED_SEED + 2, 1000);
    const start = rssKb(daemon.pid!);
    for (const seed of [FIXED_SEED, RANDOM_SEED]) {
      await runHttp('legacy', seed, PER_RUN);
      await runHttp('modern', seed, PER_RUN);
    }
    // The heap settles once the collector has run: polled, with the same bound.
    let end = 0;
    await until(() => (end = rssKb(daemon.pid!)) <= start * 1.2, { timeout: 5_000, every: 100 }).catch(() =>
      assert.fail(`RSS ${start} kB after the warm-up, ${end} kB after the run (more than 20% up)`),
    );
  });
});
