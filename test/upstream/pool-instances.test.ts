// The pool's instances (docs/gateway.md "Scope"): pass-through, no child outliving the gateway, names,
// idle upstreams stopped, the entries of identities and legacy sessions — against real fixture upstreams.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, test } from 'node:test';
import { repoRoot } from '../harness/gateway';
import { fixtureCommand, gatewayFor, startHttpFixture } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { alive } from '../harness/process';
import { until } from '../harness/wait';
import { dir, fx, text, client, call } from './poolKit';

describe('pass-through', () => {
  test('a name two upstreams offer fails the list naming both; errors relay with their status; unlisted names are forwarded', async () => {
    const both = await gatewayFor({ a: fx(), b: fx() }, { 'mcp.passthrough': ['a', 'b'] });
    try {
      const c = await client(both.url);
      const r = await c.request('tools/list');
      assert.equal(r.error?.code, -32603);
      assert.match(r.error!.message, /tool "echo" is offered by both a and b/);
    } finally {
      await both.close();
    }
    const one = await gatewayFor({ a: fx() }, { 'mcp.passthrough': ['a'] });
    try {
      const m = new HttpClient(one.url, '2026-07-28');
      const err = await m.request('tools/call', { name: 'error', arguments: {} });
      assert.equal(err.error?.code, -32602);
      assert.equal(err.reply.status, 400, 'the upstream error keeps its code and gets its status');
      const hidden = await m.request('tools/call', { name: 'not_listed_anywhere', arguments: {} });
      assert.equal(hidden.error?.code, -32602);
      assert.match(hidden.error!.message, /not_listed_anywhere/, "the upstream's own answer");
      const bad = await m.request('tools/call', { name: 'echo', arguments: { text: 5 } });
      assert.equal(bad.result?.isError, true, 'input validation: isError from 2025-11-25 on');
      const legacy = new HttpClient(one.url, '2025-06-18');
      await legacy.initialize();
      const bad2 = await legacy.request('tools/call', { name: 'echo', arguments: { text: 5 } });
      assert.equal(bad2.error?.code, -32602, 'input validation: a protocol error up to 2025-06-18');
    } finally {
      await one.close();
    }
  });
});

describe('no child outlives the gateway', () => {
  test('SIGKILL the daemon while upstreams run: every upstream process is gone', async () => {
    const config = join(dir, 'kill.json');
    writeFileSync(
      config,
      JSON.stringify({ servers: { a: fx(), b: fx(), c: fixtureCommand(['--rev', '2026-07-28']) } }),
    );
    const daemon: ChildProcess = spawn(
      process.execPath,
      [join(repoRoot(), 'dist', 'cli.js'), 'daemon', '--port', '0', '--config', config],
      {
        env: { ...process.env, XDG_STATE_HOME: dir },
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    const line = await new Promise<string>((r) => createInterface({ input: daemon.stdout! }).once('line', r));
    const url = /listening on (\S+)/.exec(line)![1]!;
    const c = await client(url);
    const pids: number[] = [];
    for (const s of ['a', 'b', 'c']) pids.push(Number(text((await call(c, s, 'whoami')).result).split(':')[1]));
    assert.ok(
      pids.every((p) => p > 0 && alive(p)),
      String(pids),
    );
    daemon.kill('SIGKILL');
    await until(() => !pids.some(alive), { what: 'every upstream gone', timeout: 5000 });
    assert.deepEqual(pids.filter(alive), [], 'no upstream survived the gateway');
  });
});

describe('names', () => {
  test('a gateway tool an upstream also names is hidden over MCP; a name beyond the rules gets a stable short form', async () => {
    const long = 'x'.repeat(140);
    const gw = await gatewayFor(
      { up: fx('--tool-name', 'mcpx_servers', '--tool-name', 'has/slash', '--tool-name', long) },
      { 'mcp.passthrough': ['up'] },
    );
    try {
      const c = await client(gw.url);
      const names = ((await c.request('tools/list')).result!.tools as Json[]).map((t) => String(t.name));
      assert.equal(names.filter((n) => n === 'mcpx_servers').length, 1, 'listed once: the upstream one');
      const r = await c.request('tools/call', { name: 'mcpx_servers', arguments: { text: 'from upstream' } });
      assert.equal(text(r.result), 'from upstream', "the upstream's tool answers, not the gateway's");
      const slash = names.find((n) => n.startsWith('has_slash_'))!;
      assert.match(slash, /^has_slash_[0-9a-f]{6}$/);
      const short = names.find((n) => n.startsWith('xxxx'))!;
      assert.equal(short.length, 64, 'within the hosts\' limit (docs/protocol.md "Tool names")');
      assert.equal(
        text((await c.request('tools/call', { name: short, arguments: { text: 'long one' } })).result),
        'long one',
      );
      assert.equal(
        text((await c.request('tools/call', { name: slash, arguments: { text: 'slashed' } })).result),
        'slashed',
      );
      // The discovery tools show the mapping from the upstream's name to the one shown.
      const found = (await c.request('tools/call', { name: 'mcpx_tools', arguments: { query: 'slash' } })).result!
        .structuredContent as { tools: Json[] };
      assert.deepEqual(
        found.tools.map((t) => [t.tool, t.name]),
        [['has/slash', slash]],
      );
    } finally {
      await gw.close();
    }
  });
});

describe('idle upstreams', () => {
  test('an upstream unused for pool.idleTimeout is stopped, and started again on the next call', async () => {
    const gw = await gatewayFor({ up: fx() }, { 'pool.idleTimeout': '1s' });
    try {
      const c = await client(gw.url);
      const first = text((await call(c, 'up', 'whoami')).result);
      const state = async () =>
        (
          (await c.request('tools/call', { name: 'mcpx_servers', arguments: {} })).result!.structuredContent as {
            servers: Json[];
          }
        ).servers[0]!.state;
      assert.equal(await state(), 'running');
      await until(async () => (await state()) === 'stopped', { what: 'the upstream stopped', timeout: 5000 });
      assert.equal(await state(), 'stopped');
      assert.notEqual(text((await call(c, 'up', 'whoami')).result), first);
    } finally {
      await gw.close();
    }
  });
});

describe('entries of identities', () => {
  const rows = async (c: HttpClient, server: string) =>
    (
      (await c.request('tools/call', { name: 'mcpx_servers', arguments: {} })).result!.structuredContent as {
        servers: Json[];
      }
    ).servers.filter((s) => s.name === server);

  test("an identity's instance reaped idle leaves the pool: 30 identities leave no rows behind", async () => {
    const gw = await gatewayFor(
      { shared: fx(), mine: { ...fx(), scope: 'identity' } },
      { 'pool.idleTimeout': '1s', 'limits.instancesPerServer': 64 },
    );
    try {
      const c = await client(gw.url);
      await call(c, 'shared', 'whoami');
      for (let i = 0; i < 30; i++) await call(c, 'mine', 'whoami', {}, {}, { 'dev.mcpx/session': `who-${i}` });
      // Reaped once idle for 1 s: wait for it (generously: a loaded machine is slow to reap 30).
      const gone = (l: Json[]) => l.length <= 1 && l.every((r) => r.scope === 'shared' && r.state === 'stopped');
      await until(async () => gone(await rows(c, 'mine')), {
        what: 'the idle instances reaped',
        timeout: 30_000,
        every: 200,
      });
      const left = await rows(c, 'mine');
      assert.ok(left.length <= 1, `${left.length} rows left`);
      assert.ok(left.every((r) => r.scope === 'shared' && r.state === 'stopped'));
      // The shared server's row stays, whatever its state.
      assert.equal((await rows(c, 'shared')).length, 1);
    } finally {
      await gw.close();
    }
  });

  test("an identity's instance that fails to start leaves no entry", async () => {
    const gw = await gatewayFor({ bad: { ...fx('--fail', 'exit-at-once'), scope: 'identity' } });
    try {
      const c = await client(gw.url);
      for (let i = 0; i < 6; i++) {
        const r = await call(c, 'bad', 'whoami', {}, {}, { 'dev.mcpx/session': `who-${i}` });
        assert.ok(r.error || r.result?.isError, 'the call fails');
      }
      assert.ok((await rows(c, 'bad')).length <= 1);
    } finally {
      await gw.close();
    }
  });
});

describe('legacy sessions', () => {
  test('a session the upstream no longer knows (404) is re-initialized and the request sent again', async () => {
    const record = join(dir, 'session.jsonl');
    const { url } = await startHttpFixture(['--rev', '2025-11-25', '--transport', 'http', '--record', record]);
    const gw = await gatewayFor({ web: { type: 'http', url } });
    try {
      const c = await client(gw.url);
      assert.equal(text((await call(c, 'web', 'echo', { text: 'one' })).result), 'one');
      const sid = readFileSync(record, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { headers?: Record<string, string> })
        .find((l) => l.headers?.['mcp-session-id'])!.headers!['mcp-session-id']!;
      assert.equal(
        (
          await fetch(url, {
            method: 'DELETE',
            headers: { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' },
          })
        ).status,
        200,
      );
      assert.equal(text((await call(c, 'web', 'echo', { text: 'two' })).result), 'two');
      const inits = readFileSync(record, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"method":"initialize"') && l.includes('"dir":"in"'));
      assert.equal(inits.length, 2);
    } finally {
      await gw.close();
    }
  });
});
