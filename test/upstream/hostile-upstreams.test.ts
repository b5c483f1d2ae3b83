// mcpx against a hostile upstream (test/fixtures/upstream/hostile.ts), through real clients of the gateway:
// results of 100 MB, floods of notifications, questions without end, requests it never reads the
// answers to, forked children, responses nobody asked for or nobody can read (docs/security.md
// "Bounds", "Hostile shapes"). Asserted by errors, counts and bytes, never by durations.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { repoRoot } from '../harness/gateway';
import { events, hostile, httpHostile, killHostiles, memoryInUse, until } from '../harness/hostile';
import { alive } from '../harness/process';
import { fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json, StdioClient } from '../harness/wire';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-hostile-'));
after(() => {
  killAll();
  killHostiles();
  rmSync(dir, { recursive: true, force: true });
});

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
const text = (r: Json | undefined) => String(((r?.content as Json[]) ?? [])[0]?.text ?? '');
const call = (c: HttpClient, server: string, tool: string, args: Json = {}, meta: Json = {}) =>
  c.request('tools/call', { name: 'mcpx_call', arguments: { server, tool, arguments: args } }, { meta });
let n = 0;
const record = () => join(dir, `r${++n}.jsonl`);

/** `mcpx serve --transport stdio --standalone` over `servers`, as a stdio client of `rev` sees it. */
function standalone(servers: Record<string, unknown>, settings: Json = {}, capabilities: Json = {}): StdioClient {
  const config = join(dir, `c${++n}.json`);
  writeFileSync(config, JSON.stringify({ servers, settings }));
  const cli = join(repoRoot(), 'dist', 'cli.js');
  return new StdioClient(
    process.execPath,
    [cli, 'serve', '--transport', 'stdio', '--standalone', '--config', config],
    LEGACY,
    capabilities,
  );
}

describe('a result of 100 MB', () => {
  test('stdio: refused at transport.maxLineBytes before it is read; the connection restarts and the next call works', async () => {
    const rec = record();
    const gw = await gatewayFor({ up: hostile('--record', rec) }, { 'mcp.passthrough': ['up'] });
    try {
      const legacy = new HttpClient(gw.url, LEGACY);
      await legacy.initialize();
      const modern = new HttpClient(gw.url, MODERN);
      for (const r of [
        await call(legacy, 'up', 'huge', { mb: 100 }),
        await modern.request('tools/call', { name: 'huge', arguments: { mb: 100 } }),
      ]) {
        assert.equal(r.error?.code, -32603);
        assert.match(r.error!.message, /upstream up sent a line longer than 4194304 bytes \(transport\.maxLineBytes/);
      }
      const written = events(rec).filter((e) => e.event === 'written');
      assert.ok(
        Number(written.at(-1)?.bytes) < 20 * 2 ** 20,
        'the upstream could not write the 100 MB: nobody read it',
      );
      assert.equal(new Set(written.map((e) => e.pid)).size, 2, 'each refusal closed its process');
      assert.equal(text((await call(legacy, 'up', 'echo', { text: 'after' })).result), 'after', 'and the next starts');
    } finally {
      await gw.close();
    }
  });

  test('HTTP: a JSON body past transport.maxBodyBytes and an SSE event past transport.maxLineBytes, refused as they stream', async () => {
    const rec = record();
    const h = await httpHostile('--record', rec);
    const gw = await gatewayFor({ up: { type: 'http', url: h.url } });
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      const json = await call(c, 'up', 'huge', { mb: 100, as: 'json' });
      assert.match(
        json.error!.message,
        /upstream up sent a body longer than 4194304 bytes \(transport\.maxBodyBytes\)/,
      );
      const sse = await call(c, 'up', 'huge', { mb: 100, as: 'sse' });
      assert.match(
        sse.error!.message,
        /upstream up sent an SSE event longer than 4194304 characters \(transport\.maxLineBytes\)/,
      );
      assert.equal(text((await call(c, 'up', 'echo', { text: 'after' })).result), 'after');
      const most = Math.max(...events(rec).map((e) => Number(e.bytes ?? 0)));
      assert.ok(most < 20 * 2 ** 20, `the upstream wrote ${most} bytes of 100 MB before its stream was closed`);
    } finally {
      await gw.close();
      h.child.kill();
    }
  });

  test('a stream of 1 MB log lines to a client that does not read it: notifications past the bound are dropped, memory stays bounded', async () => {
    const rec = record();
    const gw = await gatewayFor({ up: hostile('--record', rec) });
    const ctl = new AbortController();
    try {
      const c = new HttpClient(gw.url, MODERN);
      const before = memoryInUse();
      // The request is sent and its stream never read: fetch reads nothing until asked to.
      const url = new URL(gw.url);
      const body = {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: c.params(
          { name: 'mcpx_call', arguments: { server: 'up', tool: 'lines', arguments: { count: 100, kb: 1024 } } },
          { 'io.modelcontextprotocol/logLevel': 'debug' },
        ),
      };
      const res = await fetch(url, {
        method: 'POST',
        headers: c.headers(body),
        body: JSON.stringify(body),
        signal: ctl.signal,
      });
      assert.equal(res.status, 200);
      await until(
        'the upstream to have sent its 100 lines',
        () => events(rec).some((e) => e.event === 'lines done'),
        60_000,
      );
      const grown = memoryInUse() - before;
      assert.ok(
        grown < 48 * 2 ** 20,
        `the gateway holds ${Math.round(grown / 2 ** 20)} MB more for a client that reads nothing`,
      );
    } finally {
      ctl.abort();
      await gw.close();
    }
  });
});

describe('floods of notifications', () => {
  test('list_changed storms reach a client a few times, not 20,000; progress for tokens nobody holds and updates of URIs nobody watches reach nobody', async () => {
    const gw = await gatewayFor({ up: hostile(), other: hostile() }, { 'mcp.passthrough': ['up'] });
    const seen: Record<string, number> = {};
    gw.g.onEvent((e) => {
      seen[e.type] = (seen[e.type] ?? 0) + 1;
    });
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      const d = new HttpClient(gw.url, LEGACY);
      await d.initialize();
      const flood = (kind: string) => call(c, 'up', 'flood', { kind, count: 20_000, uri: 'x://nobody' });
      const floods = Promise.all(['tools_changed', 'progress', 'updated'].map(flood));
      // Another client's call on another upstream is answered meanwhile.
      assert.equal(text((await call(d, 'other', 'echo', { text: 'meanwhile' })).result), 'meanwhile');
      for (const r of await floods) assert.match(text(r.result), /flooded 20000/);
      assert.equal(seen.progress, undefined, 'no event for progress on a token no call holds');
      assert.equal(seen['resource.updated'], undefined, 'no event for an update of a URI nobody watches');
      assert.ok((seen['list.changed'] ?? 0) >= 1, 'the change is said');
      assert.ok((seen['list.changed'] ?? 0) < 1000, `said ${seen['list.changed']} times for 20,000`);
    } finally {
      await gw.close();
    }
  });

  test('a stdio client gets a few tools/list_changed for 20,000, and the last list', async () => {
    const c = standalone({ up: hostile() }, { 'mcp.passthrough': ['up'] });
    try {
      await c.initialize();
      const r = await c.request('tools/call', { name: 'flood', arguments: { kind: 'tools_changed', count: 20_000 } });
      assert.match(text(r.result as Json), /flooded 20000/);
      await until('a tools/list_changed', () => c.frames.some((f) => f.method === 'notifications/tools/list_changed'));
      const said = c.frames.filter((f) => f.method === 'notifications/tools/list_changed').length;
      assert.ok(said >= 1 && said < 1000, `told ${said} times for 20,000`);
      const list = (await c.request('tools/list')).result as { tools: Json[] };
      assert.ok(list.tools.some((t) => t.name === 'flood'));
    } finally {
      await c.close();
    }
  });

  test("another upstream's progress on a call's token is not relayed: only the connection the call went to reports on it", async () => {
    const [recA, release] = [record(), join(dir, 'release')];
    const gw = await gatewayFor({ a: hostile('--record', recA), b: hostile() });
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      const held = call(c, 'a', 'hold', { release }, { progressToken: 'mine' });
      const holding = await until('a to hold the call', () => events(recA).find((e) => e.event === 'holding'));
      // b guesses the token mcpx gave a's call, and reports on it — past its total, which would end it.
      const d = new HttpClient(gw.url, LEGACY);
      await d.initialize();
      await call(d, 'b', 'flood', { kind: 'progress', count: 50, token: holding.token });
      writeFileSync(release, '');
      const r = await held;
      assert.equal(text(r.result), 'released');
      const progress = r.notifications
        .filter((f) => f.method === 'notifications/progress')
        .map((f) => (f.params as Json).progress);
      assert.deepEqual(progress, [1, 2], "a's own reports, and none of b's");
    } finally {
      await gw.close();
    }
  });

  test('a flood of log messages is passed on at LOG_MESSAGES a second, the rest counted in one line', async () => {
    const logs: string[] = [];
    const gw = await gatewayFor({ up: hostile() }, {}, {}, { log: (l) => logs.push(l) });
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      await c.request('logging/setLevel', { level: 'debug' });
      const r = await call(c, 'up', 'flood', { kind: 'message', count: 20_000 });
      assert.match(text(r.result), /flooded 20000/);
      const got = r.notifications.filter((f) => f.method === 'notifications/message').length;
      assert.ok(got >= 1000 && got < 20_000, `${got} of 20,000 messages reached the client`);
      await until('the count of what was dropped', () =>
        logs.find((l) => /\[up\] \d+ log message\(s\) not passed on \(more than 1000 a second\)/.test(l)),
      );
    } finally {
      await gw.close();
    }
  });
});

describe('questions without end', () => {
  test('an upstream that asks again after every answer: the call ends after proto.askRounds questions, naming the setting', async () => {
    const rec = record();
    const c = standalone(
      { up: hostile('--record', rec) },
      { 'pool.callTimeout': '20s', 'proto.askRounds': 4 },
      {
        elicitation: {},
      },
    );
    let asked = 0;
    c.answer = () => {
      asked++;
      return { action: 'accept', content: { a: 'again' } };
    };
    try {
      await c.initialize();
      const r = await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'up', tool: 'ask', arguments: { method: 'elicitation/create', times: 0 } },
      });
      const e = r.error as { code: number; message: string };
      assert.equal(e.code, -32603);
      assert.match(e.message, /upstream up asked more than 4 questions in one call \(proto\.askRounds\)/);
      assert.equal(asked, 4, 'the client was asked proto.askRounds times');
      const end = await until('the upstream to stop asking', () => events(rec).find((x) => x.event === 'asks'));
      assert.ok(Number(end.asked) <= 5, `the upstream asked ${end.asked} times: its call was cancelled`);
    } finally {
      await c.close();
    }
  });

  test('the same through the broker (a client that cannot answer): each question expires, and the call ends at proto.askRounds', async () => {
    const gw = await gatewayFor(
      { up: hostile() },
      { 'proto.askRounds': 3, 'pool.maxCallTime': '20s' },
      {},
      { questionTtlMs: 50 },
    );
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      const r = await call(c, 'up', 'ask', { method: 'elicitation/create', times: 0 });
      assert.match(r.error!.message, /asked more than 3 questions in one call \(proto\.askRounds\)/);
      assert.deepEqual(gw.g.questions(), [], 'nothing left waiting at the broker');
    } finally {
      await gw.close();
    }
  });

  test('stdio: requests whose answers the upstream never reads close it at transport.maxLineBytes unread; the next call works', async () => {
    const gw = await gatewayFor({ up: hostile() }, { 'transport.maxLineBytes': 65_536, 'pool.callTimeout': '30s' });
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      const r = await call(c, 'up', 'flood', { kind: 'ping', count: 1_000_000, deaf: true });
      assert.equal(r.error?.code, -32603);
      assert.match(
        r.error!.message,
        /upstream up is not reading what mcpx sends it \(more than 65536 bytes unread, transport\.maxLineBytes\)/,
      );
      assert.equal(text((await call(c, 'up', 'echo', { text: 'after' })).result), 'after');
    } finally {
      await gw.close();
    }
  });

  test('HTTP: requests whose answers the upstream leaves unanswered close it after a bounded number, failing its calls', async () => {
    const h = await httpHostile();
    const gw = await gatewayFor({ up: { type: 'http', url: h.url } }, { 'pool.callTimeout': '30s' });
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      const r = await call(c, 'up', 'flood', { kind: 'ping', count: 300_000, deaf: true });
      assert.equal(r.error?.code, -32603);
      assert.match(
        r.error!.message,
        /upstream up is not reading what mcpx sends it \(64 answers to its requests unanswered\)/,
      );
    } finally {
      await gw.close();
      h.child.kill();
    }
  });
});

describe('forked children', () => {
  test('a child the upstream forked is killed when the upstream dies, and when the gateway stops', async () => {
    const gw = await gatewayFor({ up: hostile() });
    const pids: number[] = [];
    let closed = false;
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      const orphan = Number(text((await call(c, 'up', 'fork', { die: true })).result));
      pids.push(orphan);
      assert.ok(orphan > 0 && alive(orphan));
      await until('the child of the upstream that died to be gone', () => !alive(orphan), 10_000);
      const kept = Number(text((await call(c, 'up', 'fork', {})).result));
      pids.push(kept);
      assert.ok(alive(kept));
      closed = true;
      await gw.close();
      await until('the child of the running upstream to be gone with the gateway', () => !alive(kept), 10_000);
    } finally {
      for (const p of pids.filter(alive)) process.kill(p, 'SIGKILL');
      if (!closed) await gw.close();
    }
  });
});

describe('responses nobody asked for, or nobody can read', () => {
  test('a response with both a result and an error, or an error without an integer code: the call fails at once, naming the upstream', async () => {
    const h = await httpHostile();
    const gw = await gatewayFor({ up: hostile(), web: { type: 'http', url: h.url } }, { 'pool.callTimeout': '60s' });
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      for (const server of ['up', 'web']) {
        const both = await call(c, server, 'both');
        assert.equal(both.error?.code, -32603);
        assert.match(
          both.error!.message,
          new RegExp(`upstream ${server} sent an unreadable response: a result response`),
        );
        const bad = await call(c, server, 'error', { error: { code: 1.5, message: 'x' } });
        assert.match(bad.error!.message, /unreadable response: error must be \{code: integer, message: string\}/);
        assert.equal(text((await call(c, server, 'twice')).result), 'first', "the second answer is nobody's");
        assert.equal(text((await call(c, server, 'stray')).result), 'the right one');
      }
    } finally {
      await gw.close();
      h.child.kill();
    }
  });

  test('an upstream that never answers the handshake: the error names the bounds it was given, stdio and HTTP', async () => {
    const h = await httpHostile('--no-init');
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', LEGACY, '--fail', 'no-init']), web: { type: 'http', url: h.url } },
      { 'pool.startTimeout': '500ms', 'pool.probeTimeout': '200ms' },
    );
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      const stdio = await call(c, 'up', 'echo', { text: 'x' });
      assert.match(
        stdio.error!.message,
        /upstream up could not be connected: server\/discover: no answer within 200 ms \(pool\.probeTimeout\); initialize: no answer within 500 ms \(pool\.startTimeout\)/,
      );
      const http = await call(c, 'web', 'echo', { text: 'x' });
      assert.match(
        http.error!.message,
        /upstream web could not be connected: .*initialize: no answer within 500 ms \(pool\.startTimeout\)/,
      );
    } finally {
      await gw.close();
      h.child.kill();
    }
  });

  test('20,000 responses nobody waits for are logged as a few lines and a count', async () => {
    const logs: string[] = [];
    const gw = await gatewayFor({ up: hostile() }, {}, {}, { log: (l) => logs.push(l) });
    try {
      const c = new HttpClient(gw.url, LEGACY);
      await c.initialize();
      assert.match(text((await call(c, 'up', 'flood', { kind: 'stray', count: 20_000 })).result), /flooded 20000/);
      await until('the count of the lines not logged', () =>
        logs.find((l) => /\[up\] \d+ more line\(s\) about this upstream were not logged/.test(l)),
      );
      const stray = logs.filter((l) => l.includes('a response nobody waits for')).length;
      assert.ok(stray >= 1 && stray < 1000, `${stray} lines for 20,000 stray responses`);
    } finally {
      await gw.close();
    }
  });

  test('results no revision can carry are refused, naming the field; every frame the clients get is valid', async () => {
    const results: Record<string, [unknown, RegExp]> = {
      notext: [{ content: [{ type: 'text' }] }, /content\.0\.text is required/],
      number: [{ content: [{ type: 'text', text: 5 }] }, /content\.0\.text must be a string/],
      nomime: [{ content: [{ type: 'image', data: 'x' }] }, /content\.0\.mimeType is required/],
      bogus: [
        { content: [{ type: 'bogus' }] },
        /content\.0\.type must be one of text, image, audio, resource_link, resource/,
      ],
      priority: [{ content: [{ type: 'text', text: 'x', annotations: { priority: 5 } }] }, /annotations\.priority/],
      noname: [{ content: [{ type: 'resource_link', uri: 'x://y' }] }, /content\.0\.name is required/],
      nobody: [
        { content: [{ type: 'resource', resource: { uri: 'x://y' } }] },
        /content\.0\.resource must have a text or a blob/,
      ],
    };
    const args = ['--rev', LEGACY, '--name', 'up'];
    for (const [k, [v]] of Object.entries(results)) args.push('--tool-result', `${k}=${JSON.stringify(v)}`);
    const gw = await gatewayFor({ up: fixtureCommand(args) }, { 'mcp.passthrough': ['up'] });
    try {
      for (const rev of ['2024-11-05', LEGACY, MODERN] as const) {
        const c = new HttpClient(gw.url, rev);
        if (rev !== MODERN) await c.initialize();
        for (const [k, [, why]] of Object.entries(results)) {
          const r = await c.request('tools/call', { name: k, arguments: {} });
          assert.equal(r.error?.code, -32603, `${rev} ${k}`);
          assert.match(r.error!.message, why);
        }
      }
    } finally {
      await gw.close();
    }
  });
});
