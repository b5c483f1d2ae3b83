// mcpx_exec's bounds as a script meets them (docs/exec.md "Bounds", "The channel"): output counted as it
// is produced — in the child before it buffers anything, and again in the gateway — so a script that
// logs or returns too much ends with the message naming exec.maxOutputBytes and its logs kept up to the
// bound; a script that fills its heap ends with the message naming exec.maxHeapMB; nothing of V8's
// (native stack traces, "FATAL ERROR", GC traces) reaches the client; and the child is gone afterwards.
// Then the exec path as an attacker tries it: requests flooded without awaiting, a request larger than a
// line of the channel, values that are not JSON, thrown values that cannot be described, the outer
// frames of the stack.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { HttpPeer } from '../fixtures/upstream/client';
import { alive } from '../harness/process';
import { fixtureCommand, killAll } from '../harness/upstreams';
import type { Json } from '../harness/wire';
import { until } from '../harness/wait';
import { type ExecGateway, execGateway } from '../harness/exec';

after(() => killAll());

const SERVERS = { a: fixtureCommand(['--rev', '2025-11-25', '--name', 'a']) };
const MiB = 1024 * 1024;

/** One client, one script, the result's text; the run's process is gone by the time the result is. */
async function run(gw: ExecGateway, script: string): Promise<{ r: Json; text: string }> {
  const peer = new HttpPeer('2025-11-25', gw.url);
  await peer.initialize({});
  const before = gw.pids.length;
  const r = (await peer.request('tools/call', { name: 'mcpx_exec', arguments: { script } })).result as Json;
  assert.deepEqual(peer.problems, []);
  assert.equal(gw.pids.length, before + 1, 'one process for the run');
  assert.equal(alive(gw.pids.at(-1)!), false, 'the script process is gone');
  const text = String(((r.content as Json[])[0] as Json).text);
  assertNoInternals(text);
  return { r, text };
}

/** Nothing of V8 or of mcpx's own process reaches a client (docs/exec.md "The child's stderr"). */
function assertNoInternals(text: string): void {
  const internals =
    /FATAL ERROR|<--- Last few GCs|<--- JS stacktrace|Native stack trace|v8::|node::|0x[0-9a-f]{6}|Aborted|exec-child|node:internal/;
  assert.doesNotMatch(text, internals);
}

const OUTPUT = (n: number) => `mcpx_exec: the script's output passed ${n} bytes (exec.maxOutputBytes); it was stopped`;

/** What a log line counts for (docs/exec.md "Bounds"): its JSON string and the comma after it. */
const cost = (line: string) => Buffer.byteLength(JSON.stringify(line)) + 1;

/** The message line and the logs of an isError result. */
function parts(text: string): { head: string; logs: string[] } {
  const [head, logs] = text.split('\n\nlogs:\n');
  return { head: head!, logs: logs === undefined ? [] : logs.split('\n') };
}

/** Logs kept up to the bound: every whole line that fit, in order, then the first line that did not, cut
 *  to what was left of the bound (ASCII lines: exactly the bound, unless less than a line's quotes and
 *  comma was left). */
function assertKeptUpTo(logs: string[], expected: (i: number) => string, cap: number): void {
  assert.ok(logs.length > 0, 'some logs are kept');
  for (let i = 0; i < logs.length - 1; i++) assert.equal(logs[i], expected(i));
  const last = logs.at(-1)!;
  assert.ok(expected(logs.length - 1).startsWith(last), 'the last line kept is the start of the line that passed');
  const total = logs.reduce((n, l) => n + cost(l), 0);
  assert.ok(total <= cap && total > cap - 4, `${total} bytes kept of ${cap}`);
}

describe('mcpx_exec: exec.maxOutputBytes, counted as the output is produced', () => {
  test('a script that logs 3 MB is stopped at the bound, its logs kept up to it', async () => {
    const gw = await execGateway(SERVERS);
    try {
      const line = (i: number) => `line ${i} ${'x'.repeat(94)}`;
      const { r, text } = await run(
        gw,
        "for (let i = 0; i < 30000; i++) console.log('line ' + i + ' ' + 'x'.repeat(94)); return 'done';",
      );
      assert.equal(r.isError, true);
      const { head, logs } = parts(text);
      assert.equal(head, OUTPUT(MiB));
      assertKeptUpTo(logs, line, MiB);
    } finally {
      await gw.close();
    }
  });

  test('a script that logs without end is stopped at the bound, even one that catches what console.log throws', async () => {
    const gw = await execGateway(SERVERS, { 'exec.timeout': '60s' });
    try {
      const line = (i: number) => `${i} ${'w'.repeat(1000)}`;
      for (const script of [
        "for (let i = 0; ; i++) console.log(i + ' ' + 'w'.repeat(1000));",
        "for (let i = 0; ; i++) { try { console.log(i + ' ' + 'w'.repeat(1000)); } catch {} }",
      ]) {
        const { text } = await run(gw, script);
        const { head, logs } = parts(text);
        assert.equal(head, OUTPUT(MiB), script);
        assertKeptUpTo(logs, line, MiB);
      }
    } finally {
      await gw.close();
    }
  });

  test('a script that logs one 10 MB string keeps its start, up to the bound', async () => {
    const gw = await execGateway(SERVERS);
    try {
      const { text } = await run(gw, "console.log('first'); console.log('z'.repeat(10 * 1024 * 1024)); return 1;");
      const { head, logs } = parts(text);
      assert.equal(head, OUTPUT(MiB));
      assert.equal(logs.length, 2);
      assertKeptUpTo(logs, (i) => (i === 0 ? 'first' : 'z'.repeat(10 * MiB)), MiB);
    } finally {
      await gw.close();
    }
  });

  test('a script that returns 2 MB is stopped, its logs kept; one that fits returns', async () => {
    const gw = await execGateway(SERVERS);
    try {
      const { r, text } = await run(gw, "console.log('before'); return 'y'.repeat(2 * 1024 * 1024);");
      assert.equal(r.isError, true);
      assert.equal(text, `${OUTPUT(MiB)}\n\nlogs:\nbefore`);
      // The value and the logs count together: this one fits.
      const fits = await run(gw, "console.log('before'); return 'y'.repeat(1000000);");
      assert.equal(fits.r.isError, undefined);
      assert.equal(((fits.r.structuredContent as Json).result as string).length, 1000000);
    } finally {
      await gw.close();
    }
  });

  test('a thrown error counts too: one past the bound stops the run', async () => {
    const gw = await execGateway(SERVERS);
    try {
      const { text } = await run(gw, "throw new Error('e'.repeat(2 * 1024 * 1024));");
      assert.equal(text, OUTPUT(MiB));
    } finally {
      await gw.close();
    }
  });
});

describe('mcpx_exec: exec.maxHeapMB', () => {
  test('a script that allocates past the heap limit ends with the message naming exec.maxHeapMB, no V8 dump', async () => {
    const gw = await execGateway(SERVERS, { 'exec.maxHeapMB': 32 });
    try {
      const { r, text } = await run(
        gw,
        "console.log('start'); const a = []; for (;;) a.push({ n: a.length, s: 'k' + a.length });",
      );
      assert.equal(r.isError, true);
      assert.equal(text, "mcpx_exec: the script's heap passed 32 MB (exec.maxHeapMB); it was stopped\n\nlogs:\nstart");
    } finally {
      await gw.close();
    }
  });

  test("typed arrays, outside V8's heap, are bounded too: exec.maxHeapMB + 256 MB of the process's memory", {
    skip: !existsSync('/proc/self/status') && 'the memory is read from /proc (Linux)',
  }, async () => {
    // Holds some 512 MB of filled typed arrays for ever (older ones freed): stopped only by the bound
    // (before it, by exec.timeout).
    const gw = await execGateway(SERVERS, { 'exec.maxHeapMB': 16, 'exec.timeout': '20s' });
    try {
      const { text } = await run(
        gw,
        'const k = []; for (let i = 0; ; i++) k[i % 32] = new Uint8Array(16 * 1024 * 1024).fill(1);',
      );
      assert.equal(text, "mcpx_exec: the script's memory passed 272 MB (exec.maxHeapMB + 256 MB); it was stopped");
    } finally {
      await gw.close();
    }
  });
});

describe('mcpx_exec: the exec path as an attacker tries it', () => {
  test('requests flooded without awaiting: refused past exec.maxConcurrent in the child, none buffered', async () => {
    const gw = await execGateway(SERVERS, { 'exec.maxConcurrent': 4, 'exec.maxHeapMB': 64 });
    try {
      const { r } = await run(
        gw,
        `const big = 'q'.repeat(20000);
         const ps = [];
         for (let i = 0; i < 20000; i++) ps.push(mcpx.call('a', 'echo', { text: big }).then(() => 'ok', (e) => e.message));
         const all = await Promise.all(ps);
         return { ok: all.filter((m) => m === 'ok').length, refused: [...new Set(all.filter((m) => m !== 'ok'))], n: all.length };`,
      );
      assert.deepEqual((r.structuredContent as Json).result, {
        ok: 4,
        refused: ['the script already has 4 requests in flight (exec.maxConcurrent); await some first'],
        n: 20000,
      });
    } finally {
      await gw.close();
    }
  });

  test('a request larger than a line of the channel is refused to the script, which goes on', async () => {
    const gw = await execGateway(SERVERS);
    try {
      const { r } = await run(
        gw,
        `try { await mcpx.call('a', 'echo', { text: 'x'.repeat(2 * 1024 * 1024) }); return 'sent'; }
         catch (e) { return e.message + ' | ' + (await mcpx.call('a', 'echo', { text: 'small' })).content[0].text; }`,
      );
      assert.equal(
        (r.structuredContent as Json).result,
        'the request is larger than 1048576 bytes (exec.maxOutputBytes) | small',
      );
    } finally {
      await gw.close();
    }
  });

  test('values that are not JSON: each an isError result saying why', async () => {
    const gw = await execGateway(SERVERS);
    try {
      const cases: Array<[string, string]> = [
        ['const a = {}; a.self = a; return a;', /^Converting circular structure to JSON/.source],
        ['return 10n;', 'Do not know how to serialize a BigInt'],
        ["return Symbol('s');", 'it is a symbol'],
        ['return () => 1;', 'it is a function'],
        ['return { toJSON() {} };', 'its toJSON() gives nothing'],
        ["return { get x() { throw new Error('getter boom'); } };", 'getter boom'],
        ['return { get x() { throw { get message() { throw 1; } }; } };', 'a value that cannot be shown'],
      ];
      for (const [script, why] of cases) {
        const { r, text } = await run(gw, script);
        assert.equal(r.isError, true, script);
        const prefix = "Error: the script's return value is not JSON: ";
        assert.ok(text.startsWith(prefix), `${script}: ${text}`);
        assert.match(
          text.slice(prefix.length).split('\n')[0]!,
          new RegExp(why.startsWith('^') ? why : `^${esc(why)}$`),
        );
      }
    } finally {
      await gw.close();
    }
  });

  test('thrown values that are not Errors, or cannot be described, end the run at once with what can be said', async () => {
    const gw = await execGateway(SERVERS, { 'exec.timeout': '20s' });
    try {
      const cases: Array<[string, string]> = [
        ['throw 5;', 'Uncaught 5'],
        ["throw Symbol('t');", 'Uncaught Symbol(t)'],
        ['throw null;', 'Uncaught null'],
        ["throw { message: 'plain' };", 'plain'],
        ['throw { message: { toString() { throw 2; } } };', 'Uncaught a value that cannot be shown'],
        ['throw new Proxy({}, { has() { throw 3; }, get() { throw 4; } });', 'Uncaught a value that cannot be shown'],
        ["throw new Error('two\\nlines');", 'Error: two\nlines\n    at mcpx-script.js:1:7'],
        // Thrown by a FinalizationRegistry callback, outside every promise of the script (Node would
        // print it and exit 1): the run ends with it, as if the script had thrown it.
        [
          `const r = new FinalizationRegistry(() => { throw new Error('from the registry'); });
           for (let i = 0; i < 1000; i++) {
             for (let j = 0; j < 1000; j++) r.register({ n: [i, j] }, j);
             await mcpx.call('a', 'echo', { text: 'x' });
           }
           return 'not reached';`,
          'Error: from the registry\n    at mcpx-script.js:1:50',
        ],
      ];
      for (const [script, expected] of cases) {
        const { r, text } = await run(gw, script);
        assert.equal(r.isError, true, script);
        assert.equal(text, expected, script);
      }
    } finally {
      await gw.close();
    }
  });

  test('the stack outside the script gives nothing to hold: no receiver, no function, only the script frames', async () => {
    const gw = await execGateway(SERVERS);
    try {
      const { r } = await run(
        gw,
        `Error.prepareStackTrace = (e, frames) => frames;
         const frames = new Error().stack;
         await mcpx.call('a', 'echo', { text: 'x' });
         const later = new Error().stack;
         return [...frames, ...later].filter((f) => f.getFileName() !== 'mcpx-script.js')
           .map((f) => [typeof f.getThis(), typeof f.getFunction()]);`,
      );
      const outside = (r.structuredContent as Json).result as string[][];
      assert.ok(outside.length > 0, 'frames of the child itself are on the stack');
      for (const f of outside) assert.deepEqual(f, ['undefined', 'undefined']);
    } finally {
      await gw.close();
    }
  });
});

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('runs at once', () => {
  test('a client past exec.maxRunsPerIdentity is refused naming it; another client still runs', async () => {
    const gw = await execGateway(SERVERS, { 'exec.maxRunsPerIdentity': 1 });
    try {
      const slow = 'const t = Date.now(); while (Date.now() - t < 1500) {} return "slow done";';
      const quick = 'return 1 + 1;';
      const mine = new HttpPeer('2025-11-25', gw.url);
      await mine.initialize({});
      const other = new HttpPeer('2025-11-25', gw.url);
      await other.initialize({});
      const call = (p: HttpPeer, script: string) =>
        p.request('tools/call', { name: 'mcpx_exec', arguments: { script } }).then((x) => x.result as Json);
      const first = call(mine, slow);
      // The first run holds the client's one slot until it ends.
      await until(() => gw.pids.length > 0, { what: 'the first run started' });
      const second = await call(mine, quick);
      assert.equal(second.isError, true);
      assert.equal(
        ((second.content as Json[])[0] as Json).text,
        'mcpx_exec: this client already runs 1 scripts (exec.maxRunsPerIdentity); retry when one has ended',
      );
      assert.equal(gw.pids.length, 1, 'the refused run started no process');
      const theirs = await call(other, quick);
      assert.equal(theirs.isError, undefined);
      assert.deepEqual((theirs.structuredContent as Json).result, 2);
      assert.deepEqual(((await first).structuredContent as Json).result, 'slow done');
      assert.deepEqual(mine.problems, []);
      assert.deepEqual(other.problems, []);
    } finally {
      await gw.close();
    }
  });
});
