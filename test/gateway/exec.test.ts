// mcpx_exec end to end (docs/exec.md): a real gateway over real fixture upstreams, a real client whose
// every frame is checked against its revision's schema, and the script in its real sandboxed child —
// sequence and parallel calls, typed functions, a throw with its stack, a loop killed at its timeout,
// what the sandbox refuses, questions of a run (its caller, the broker, two runs), a run as a task, the
// output cap, proto.askRounds, and no child left behind, on shutdown too.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { alive } from '../harness/process';
import { killAll } from '../harness/upstreams';
import type { Json } from '../harness/wire';
import { until } from '../harness/wait';
import { exec, EXEC_SERVERS, execClient, execGateway, structured, textOf } from '../harness/exec';

after(() => killAll());

describe('mcpx_exec: scripts that call several upstreams', () => {
  test('listed second, task support "optional"; mcpx_describe gives the typed declaration', async () => {
    const gw = await execGateway(EXEC_SERVERS);
    try {
      const peer = await execClient(gw);
      const tools = ((await peer.request('tools/list')).result as Json).tools as Json[];
      assert.deepEqual(
        tools.map((t) => t.name),
        ['mcpx_call', 'mcpx_exec', 'mcpx_servers', 'mcpx_tools', 'mcpx_describe', 'mcpx_search'],
      );
      assert.deepEqual(tools[1]!.execution, { taskSupport: 'optional' });
      const d = await peer.request('tools/call', { name: 'mcpx_describe', arguments: { server: 'b-2', tool: 'add' } });
      const ts = String(structured(d).typescript);
      assert.match(ts, /declare namespace mcpx\.servers\.b_2 \{/);
      assert.match(ts, /function add\(args: \{\n\s+a: number;\n\s+b: number;\n\s+\}\): Promise<CallToolResult<\{/);
      assert.deepEqual(peer.problems, []);
    } finally {
      await gw.close();
    }
  });

  test('in sequence and in parallel, typed functions, read and prompt; value and logs come back', async () => {
    const gw = await execGateway(EXEC_SERVERS);
    try {
      const peer = await execClient(gw);
      const script = `
        const one = await mcpx.call('a', 'echo', { text: 'first' });
        console.log('after one', one.content.length);
        const [two, three] = await Promise.all([
          mcpx.servers.b_2.add({ a: 2, b: 3 }),
          mcpx.call('b-2', 'echo', { text: 'par' }),
        ]);
        const doc = await mcpx.read('mcpx://a/fixture://doc');
        const p = await mcpx.prompt('a_greet', { who: 'Ada' });
        return { one: one.content[0].text, sum: two.structuredContent, three: three.content[0].text,
                 doc: doc.contents[0].text, prompt: p.messages.length };`;
      const r = await exec(peer, script);
      const s = structured(r);
      assert.equal((r.result as Json).isError, undefined, textOf(r));
      assert.deepEqual(s.logs, ['after one 1']);
      const v = s.result as Json;
      assert.match(String(v.one), /first/);
      assert.deepEqual(v.sum, { sum: 5 });
      assert.match(String(v.three), /par/);
      assert.equal(v.doc, 'doc body');
      assert.equal(v.prompt, 1);
      assert.deepEqual(JSON.parse(textOf(r)), s, 'the same JSON as text');
      // A revision without structuredContent gets the text alone.
      const old = await execClient(gw, {}, '2025-06-18');
      const r2 = await exec(old, 'return 1 + 1;');
      assert.deepEqual(JSON.parse(textOf(r2)), { result: 2, logs: [] });
      assert.deepEqual([...peer.problems, ...old.problems], []);
      for (const pid of gw.pids) assert.equal(alive(pid), false, `exec child ${pid} is gone`);
      assert.equal(gw.pids.length, 2);
    } finally {
      await gw.close();
    }
  });

  test("a call's protocol error rejects in the script with its message; an unknown typed name says so", async () => {
    const gw = await execGateway(EXEC_SERVERS);
    try {
      const peer = await execClient(gw);
      const r = await exec(
        peer,
        `const out = [];
         try { await mcpx.call('nope', 'echo', {}); } catch (e) { out.push(e.message); }
         try { await mcpx.servers.a.no_such({}); } catch (e) { out.push(e.message); }
         const bad = await mcpx.call('a', 'echo', { text: 5 });
         out.push(bad.isError ? bad.content[0].text : 'accepted');
         return out;`,
      );
      const [unknown, typed, bad] = structured(r).result as string[];
      assert.match(unknown!, /nope/);
      assert.match(typed!, /server a has no tool named "no_such"/);
      assert.match(bad!, /Invalid arguments for a\/echo/, 'checked against the input schema, as mcpx_call');
    } finally {
      await gw.close();
    }
  });
});

describe('mcpx_exec: errors, bounds and the process', () => {
  test('a throw is an isError result with the message and a stack into the script', async () => {
    const gw = await execGateway(EXEC_SERVERS);
    try {
      const peer = await execClient(gw);
      const r = await exec(peer, "console.log('before');\nconst x = 1;\nthrow new Error('boom ' + x);");
      assert.equal((r.result as Json).isError, true);
      const text = textOf(r);
      assert.match(text, /^Error: boom 1\n\s+at mcpx-script\.js:3:7/);
      assert.match(text, /logs:\nbefore/);
      assert.doesNotMatch(text, /exec-child|node:internal/, 'no frame of mcpx itself');
    } finally {
      await gw.close();
    }
  });

  test('a script that does not compile: the line, the caret and the SyntaxError, as V8 reports them', async () => {
    const gw = await execGateway(EXEC_SERVERS);
    try {
      const peer = await execClient(gw);
      const r = await exec(peer, 'const a = 1;\nfoo bar;');
      assert.equal((r.result as Json).isError, true);
      const text = textOf(r);
      assert.ok(text.startsWith('mcpx-script.js:2\nfoo bar;\n    ^^^\n'), text);
      assert.match(text, /\nSyntaxError: Unexpected identifier\b.*bar/);
      assert.doesNotMatch(text, /exec-child|node:internal|node:vm/, 'no frame of mcpx itself');
    } finally {
      await gw.close();
    }
  });

  test('a script that loops forever is stopped at its timeout, and its process is gone', async () => {
    const gw = await execGateway(EXEC_SERVERS, { 'exec.timeout': '1s' });
    try {
      const peer = await execClient(gw);
      const t0 = Date.now();
      const r = await exec(peer, 'for (;;) {}');
      assert.ok(Date.now() - t0 < 5000);
      assert.equal((r.result as Json).isError, true);
      assert.match(textOf(r), /ran past its timeout \(1 s/);
      assert.equal(gw.pids.length, 1);
      assert.equal(alive(gw.pids[0]!), false);
      // timeoutSec replaces exec.timeout for one run.
      const t1 = Date.now();
      const r2 = await exec(peer, 'while (true) {}', { timeoutSec: 0.3 });
      assert.match(textOf(r2), /ran past its timeout \(0\.3 s/);
      assert.ok(Date.now() - t1 < 1000);
    } finally {
      await gw.close();
    }
  });

  test('the tighter of exec.timeout and the per-call timeout fires', async () => {
    const gw = await execGateway(EXEC_SERVERS, { 'pool.callTimeout': '300ms' });
    try {
      const peer = await execClient(gw);
      const r = await exec(
        peer,
        "try { await mcpx.call('a', 'slow', { ms: 2000 }); return 'finished'; } catch (e) { return 'call: ' + e.message; }",
      );
      assert.match(String(structured(r).result), /^call: .*(timed out|timeout)/i);
      const r2 = await exec(peer, "await mcpx.call('a', 'slow', { ms: 3000 }); return 'finished';", {
        timeoutSec: 0.15,
      });
      assert.match(textOf(r2), /ran past its timeout/);
    } finally {
      await gw.close();
    }
  });

  test('requests in flight past exec.maxConcurrent are refused to the script, the others run', async () => {
    const gw = await execGateway(EXEC_SERVERS, { 'exec.maxConcurrent': 3 });
    try {
      const peer = await execClient(gw);
      const r = await exec(
        peer,
        `const all = await Promise.allSettled([1, 2, 3, 4, 5].map((i) => mcpx.call('a', 'echo', { text: 'n' + i })));
         return all.map((x) => x.status === 'fulfilled' ? 'ok' : x.reason.message);`,
      );
      const out = structured(r).result as string[];
      assert.deepEqual(out.slice(0, 3), ['ok', 'ok', 'ok']);
      for (const refused of out.slice(3))
        assert.equal(refused, 'the script already has 3 requests in flight (exec.maxConcurrent); await some first');
    } finally {
      await gw.close();
    }
  });

  test('output past exec.maxOutputBytes stops the script with a clear message', async () => {
    const gw = await execGateway(EXEC_SERVERS, { 'exec.maxOutputBytes': 2048 });
    try {
      const peer = await execClient(gw);
      const r = await exec(peer, "for (let i = 0; ; i++) console.log('line ' + i + ' ' + 'x'.repeat(100));");
      assert.equal((r.result as Json).isError, true);
      assert.match(textOf(r), /output passed 2048 bytes \(exec\.maxOutputBytes\)/);
      const r2 = await exec(peer, "return 'y'.repeat(5000);");
      assert.match(textOf(r2), /output passed 2048 bytes/);
      for (const pid of gw.pids) assert.equal(alive(pid), false);
    } finally {
      await gw.close();
    }
  });

  test('closing the gateway stops a running script; its process is gone', async () => {
    const gw = await execGateway(EXEC_SERVERS);
    const peer = await execClient(gw);
    const pending = exec(peer, 'for (;;) {}').catch(() => undefined);
    const pid = await until(() => gw.pids[0], { what: 'the child' });
    assert.equal(gw.g.runs().length, 1);
    await gw.close();
    assert.equal(alive(pid), false);
    await pending;
  });
});

describe('mcpx_exec: what the sandbox refuses, as the script sees it', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['write a file', "require('fs').writeFileSync('/tmp/mcpx-exec-x', 'x')", /ReferenceError: require is not defined/],
    ['spawn a process', "process.binding('spawn_sync')", /ReferenceError: process is not defined/],
    ['open a socket (fetch)', "await fetch('http://127.0.0.1:9/')", /ReferenceError: fetch is not defined/],
    ['open a socket (import)', "await import('node:net')", /dynamic import callback was not specified/],
    ['load a native addon', "process.dlopen({}, '/tmp/x.node')", /ReferenceError: process is not defined/],
    [
      'reach the outer realm through mcpx',
      "return mcpx.call.constructor('return process')()",
      /EvalError: Code generation from strings disallowed/,
    ],
    ['generate code', "return eval('1 + 1')", /EvalError: Code generation from strings disallowed/],
  ];
  test('each attempt is refused with the error the script sees', async () => {
    const gw = await execGateway(EXEC_SERVERS);
    try {
      const peer = await execClient(gw);
      for (const [what, script, expected] of cases) {
        const r = await exec(peer, script);
        assert.equal((r.result as Json).isError, true, what);
        assert.match(textOf(r), expected, what);
        assert.match(textOf(r), /mcpx-script\.js:1:/, `${what}: the stack points into the script`);
      }
      assert.deepEqual(peer.problems, []);
    } finally {
      await gw.close();
    }
  });
});
