// The pool against fixture upstreams that misbehave: crashes mid-call, hangs, never answers the
// handshake, writes garbage, exits at once. And scope, auth, filters, and no child left behind.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { RESTART_POLICY } from '../../src/upstream/pool';
import { gatewayFor, startHttpFixture } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { until } from '../harness/wait';
import { dir, fx, text, client, call } from './poolKit';

describe('failure modes', () => {
  test('a crash mid-call fails that call at once, naming the server; the next call restarts it', async () => {
    const gw = await gatewayFor({ up: fx() });
    try {
      const c = await client(gw.url);
      const before = text((await call(c, 'up', 'whoami')).result);
      const crash = await call(c, 'up', 'crash');
      assert.equal(crash.error?.code, -32603);
      assert.match(crash.error!.message, /upstream up exited with code 3/);
      const after = text((await call(c, 'up', 'whoami')).result);
      assert.notEqual(after, before, 'a new process');
      const st = (await c.request('tools/call', { name: 'mcpx_servers', arguments: {} })).result!.structuredContent as {
        servers: Json[];
      };
      assert.equal(st.servers[0]!.state, 'running');
    } finally {
      await gw.close();
    }
  });

  test('a hung call times out at pool.callTimeout, or sooner if the caller asks, never later; the upstream is told', async () => {
    const record = join(dir, 'hang.jsonl');
    const gw = await gatewayFor({ up: fx('--fail', 'hang', '--record', record) }, { 'pool.callTimeout': '400ms' });
    try {
      const c = await client(gw.url);
      let t0 = Date.now();
      const r = await call(c, 'up', 'echo', { text: 'x' }, { timeoutSec: 60 });
      assert.match(r.error!.message, /did not answer tools\/call within 400 ms/);
      assert.ok(Date.now() - t0 < 5000, 'a requested 60 s does not raise the 400 ms bound');
      t0 = Date.now();
      const r2 = await call(c, 'up', 'echo', { text: 'y' }, { timeoutSec: 0.1 });
      assert.match(r2.error!.message, /within 100 ms/);
      const cancelsIn = () =>
        readFileSync(record, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { dir: string; frame: Json })
          .filter((l) => l.dir === 'in' && l.frame.method === 'notifications/cancelled');
      const cancels = await until(() => (cancelsIn().length >= 2 ? cancelsIn() : undefined), {
        what: 'both cancellations upstream',
      });
      assert.equal(cancels.length, 2, 'notifications/cancelled sent for each timed-out call');
      assert.equal((cancels[0]!.frame.params as Json).reason, 'timed out');
    } finally {
      await gw.close();
    }
  });

  test('an upstream that never answers the handshake fails with a clear error, within the start timeout', async () => {
    const gw = await gatewayFor(
      { up: fx('--fail', 'no-init') },
      { 'pool.startTimeout': '500ms', 'pool.probeTimeout': '200ms' },
    );
    try {
      const c = await client(gw.url);
      const r = await call(c, 'up', 'echo', { text: 'x' });
      assert.equal(r.error?.code, -32603);
      assert.match(r.error!.message, /upstream up could not be connected: server\/discover: .*; initialize: .*/);
    } finally {
      await gw.close();
    }
  });

  test('garbage lines on stdout are skipped; calls still work', async () => {
    const gw = await gatewayFor({ up: fx('--fail', 'garbage') });
    try {
      const c = await client(gw.url);
      assert.equal(text((await call(c, 'up', 'echo', { text: 'still fine' })).result), 'still fine');
    } finally {
      await gw.close();
    }
  });

  test('an upstream that exits at once is retried with backoff, then given up on with a visible error', async () => {
    const gw = await gatewayFor(
      { up: fx('--fail', 'exit-at-once') },
      { 'pool.startTimeout': '1s', 'pool.probeTimeout': '200ms' },
    );
    try {
      const c = await client(gw.url);
      const errors: string[] = [];
      for (let i = 0; i <= RESTART_POLICY.maxCrashes; i++)
        errors.push((await call(c, 'up', 'echo', { text: 'x' })).error!.message);
      assert.match(errors[0]!, /could not be connected/);
      assert.match(errors.at(-1)!, /failed 5 times within 60 s and is given up on for now/);
      const st = (await c.request('tools/call', { name: 'mcpx_servers', arguments: {} })).result!.structuredContent as {
        servers: Json[];
      };
      assert.equal(st.servers[0]!.state, 'failed');
      assert.match(String(st.servers[0]!.lastError), /exited with code 1|could not be connected/);
    } finally {
      await gw.close();
    }
  });
});

describe('scope, auth and filters', () => {
  test('scope "identity": one instance per client identity; "shared": one for everyone', async () => {
    const gw = await gatewayFor({ shared: fx(), mine: { ...fx(), scope: 'identity' } });
    try {
      const c = await client(gw.url);
      const as = async (server: string, who: string) =>
        text((await call(c, server, 'whoami', {}, {}, { 'dev.mcpx/session': who })).result);
      assert.equal(await as('shared', 'alice'), await as('shared', 'bob'));
      assert.notEqual(await as('mine', 'alice'), await as('mine', 'bob'));
      assert.equal(await as('mine', 'alice'), await as('mine', 'alice'));
    } finally {
      await gw.close();
    }
  });

  test("2026-07-28 cache hints: a list holding an identity-scoped server's items is private, not public", async () => {
    const scopes = async (servers: Record<string, unknown>, passthrough: string[]) => {
      const gw = await gatewayFor(servers, { 'mcp.passthrough': passthrough });
      try {
        const c = new HttpClient(gw.url, '2026-07-28');
        const out: Record<string, unknown> = {};
        for (const m of ['tools/list', 'prompts/list', 'resources/templates/list', 'resources/list'])
          out[m] = (await c.request(m, {}, { meta: { 'dev.mcpx/session': 'alice' } })).result!.cacheScope;
        return out;
      } finally {
        await gw.close();
      }
    };
    const everyone = { 'tools/list': 'public', 'prompts/list': 'public', 'resources/templates/list': 'public' };
    const mine = { 'tools/list': 'private', 'prompts/list': 'private', 'resources/templates/list': 'private' };
    // Pass-through: the tools are the upstream's, and an identity-scoped one lists its own instance's.
    assert.deepEqual(await scopes({ up: fx() }, ['up']), { ...everyone, 'resources/list': 'private' });
    assert.deepEqual(await scopes({ up: { ...fx(), scope: 'identity' } }, ['up']), {
      ...mine,
      'resources/list': 'private',
    });
    // Gateway mode: its own tools are everyone's; the namespaced prompts and templates are not.
    assert.deepEqual(await scopes({ shared: fx(), mine: { ...fx(), scope: 'identity' } }, []), {
      ...mine,
      'tools/list': 'public',
      'resources/list': 'private',
    });
  });

  test('auth is applied to every connection: env for stdio, bearer and query for HTTP', async () => {
    const { url } = await startHttpFixture([
      '--rev',
      '2025-11-25',
      '--transport',
      'http',
      '--require-header',
      'Authorization: Bearer s3cret',
      '--require-query',
      'key=k1',
    ]);
    const gw = await gatewayFor({
      env: { ...fx('--require-env', 'TOKEN=t0k'), auth: { type: 'env', name: 'TOKEN', value: 't0k' } },
      web: { type: 'http', url, auth: { type: 'bearer', token: 's3cret' }, headers: {} },
    });
    try {
      const c = await client(gw.url);
      assert.equal(text((await call(c, 'env', 'echo', { text: 'a' })).result), 'a');
      // The query parameter travels as part of the URL; the fixture checks both.
      const gw2 = await gatewayFor({
        web: { type: 'http', url: `${url}?key=k1`, auth: { type: 'bearer', token: 's3cret' } },
      });
      try {
        const c2 = await client(gw2.url);
        assert.equal(text((await call(c2, 'web', 'echo', { text: 'b' })).result), 'b');
      } finally {
        await gw2.close();
      }
      const wrong = await call(c, 'web', 'echo', { text: 'c' });
      assert.match(wrong.error!.message, /could not be connected/);
    } finally {
      await gw.close();
    }
  });

  test('tools.allow / tools.deny apply in every mode', async () => {
    const gw = await gatewayFor({ up: { ...fx(), tools: { deny: ['cr*', 'fail'] } } });
    try {
      const c = await client(gw.url);
      const r = await call(c, 'up', 'crash');
      assert.equal(r.error?.code, -32602);
      assert.match(r.error!.message, /not allowed by its tools filter/);
      const found = (await c.request('tools/call', { name: 'mcpx_tools', arguments: { server: 'up' } })).result!
        .structuredContent as { tools: Json[] };
      const names = found.tools.map((t) => t.tool);
      assert.ok(names.includes('echo') && !names.includes('crash') && !names.includes('fail'));
    } finally {
      await gw.close();
    }
    const pt = await gatewayFor({ up: { ...fx(), tools: { allow: ['echo', 'add'] } } }, { 'mcp.passthrough': ['up'] });
    try {
      const c = await client(pt.url);
      const names = ((await c.request('tools/list')).result!.tools as Json[]).map((t) => t.name);
      assert.deepEqual(names, [
        'add',
        'echo',
        'mcpx_call',
        'mcpx_exec',
        'mcpx_servers',
        'mcpx_tools',
        'mcpx_describe',
        'mcpx_search',
      ]);
    } finally {
      await pt.close();
    }
  });
});
