// mcpx against a hostile upstream (test/fixtures/upstream/hostile.ts), through real clients of the gateway:
// results of 100 MB, floods of notifications, questions without end, requests it never reads the
// answers to, forked children, responses nobody asked for or nobody can read (docs/security.md
// "Bounds", "Hostile shapes"). Asserted by errors, counts and bytes, never by durations.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { events, hostile, httpHostile, memoryInUse } from '../harness/hostile';
import { gatewayFor } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';
import { dir, LEGACY, MODERN, text, call, record, standalone } from './hostileKit';

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
      await until(() => events(rec).some((e) => e.event === 'lines done'), {
        what: 'the upstream to have sent its 100 lines',
        timeout: 60_000,
      });
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
      await until(() => c.frames.some((f) => f.method === 'notifications/tools/list_changed'), {
        what: 'a tools/list_changed',
      });
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
      const holding = await until(() => events(recA).find((e) => e.event === 'holding'), {
        what: 'a to hold the call',
      });
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
      await until(
        () => logs.find((l) => /\[up\] \d+ log message\(s\) not passed on \(more than 1000 a second\)/.test(l)),
        { what: 'the count of what was dropped' },
      );
    } finally {
      await gw.close();
    }
  });
});
