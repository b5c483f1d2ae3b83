// Pieces of the gateway on their own: mcpx:// URIs, safe names, globs, schema checks; and completion
// forwarding per the completions capability (with fixture upstreams).
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { endpointSecret, readSecret } from '../../src/config/secret';
import { Broker } from '../../src/gateway/inbox/broker';
import { safeName, toolAllowed, validToolName } from '../../src/gateway/catalogue/names';
import { parseGatewayUri, resolveInner, toGatewayTemplate, toGatewayUri } from '../../src/gateway/catalogue/uris';
import { schemaMismatch } from '../../src/kit/schema';
import { ProgressRelay } from '../../src/gateway/call/progress';
import type { CallContext } from '../../src/server/provider';
import { fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';
import { stays, until } from '../harness/wait';

after(() => killAll());

describe('mcpx:// URIs', () => {
  test('percent-encoding where a path cannot carry a character; a round trip gives the upstream URI back', () => {
    for (const uri of ['fixture://doc', 'file:///a b#c?d', 'x://ü/é', 'plain', 'a%20already']) {
      const g = toGatewayUri('demo', uri);
      assert.doesNotMatch(g.slice('mcpx://'.length), /[ #?]/, g);
      assert.equal(parseGatewayUri(g)!.inner, uri);
      assert.equal(parseGatewayUri(g)!.server, 'demo');
    }
    assert.equal(toGatewayUri('demo', 'file:///a b#c?d'), 'mcpx://demo/file:///a%20b%23c%3Fd');
    assert.equal(parseGatewayUri('mcpx://demo/file:///a%20b%23c%3Fd')!.inner, 'file:///a b#c?d');
    assert.equal(toGatewayUri('my server', 'x://y'), 'mcpx://my%20server/x://y');
  });

  test('an absolute path is listed without its slash and matched in both forms', () => {
    assert.equal(toGatewayUri('demo', '/abs/doc'), 'mcpx://demo/abs/doc');
    const { inner } = parseGatewayUri('mcpx://demo/abs/doc')!;
    assert.equal(resolveInner(inner, new Set(['/abs/doc'])), '/abs/doc');
    assert.equal(resolveInner(inner, new Set(['abs/doc'])), 'abs/doc');
    assert.equal(resolveInner('/abs/doc'.slice(1), new Set()), 'abs/doc');
  });

  test('templates keep their variables', () => {
    assert.equal(toGatewayTemplate('demo', 'fixture://items/{id}'), 'mcpx://demo/fixture://items/{id}');
    assert.equal(toGatewayTemplate('demo', 'x://a b/{q}'), 'mcpx://demo/x://a%20b/{q}');
    assert.equal(parseGatewayUri('mcpx:///x')!.server, '');
    assert.equal(parseGatewayUri('file:///x'), undefined);
  });
});

describe('names and filters', () => {
  test('safe names are stable, within 64 characters of [A-Za-z0-9_.-], and distinct for names that clean up alike', () => {
    for (const n of ['a/b', 'a:b', 'ü', 'x'.repeat(300), 'ok_name-1.2']) {
      const s = safeName(n);
      assert.ok(validToolName(s), s);
      assert.equal(safeName(n), s);
    }
    assert.equal(safeName('ok_name-1.2'), 'ok_name-1.2');
    assert.notEqual(safeName('a/b'), safeName('a:b'));
  });
  test('deny wins over allow; globs match with *', () => {
    assert.equal(toolAllowed('read_file', { allow: ['read_*'] }), true);
    assert.equal(toolAllowed('write_file', { allow: ['read_*'] }), false);
    assert.equal(toolAllowed('read_secret', { allow: ['read_*'], deny: ['*secret*'] }), false);
    assert.equal(toolAllowed('anything'), true);
  });
});

describe('schema checks', () => {
  test('draft-07 and 2020-12 schemas; a broken schema does not block calls', () => {
    assert.match(
      schemaMismatch({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, {})!,
      /must have required property 'n'/,
    );
    assert.equal(
      schemaMismatch(
        { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string' } } },
        { a: 'x' },
      ),
      undefined,
    );
    assert.match(
      schemaMismatch(
        { type: 'object', prefixItems: [], properties: { t: { type: 'array', prefixItems: [{ type: 'string' }] } } },
        { t: [1] },
      )!,
      /\/t\/0 must be string/,
    );
    assert.equal(schemaMismatch({ type: 'nonsense-type' }, { a: 1 }), undefined);
  });
});

describe('completion/complete', () => {
  test('forwarded where declared; 2024-11-05 asked anyway; otherwise answered from cache, saying why', async () => {
    const gw = await gatewayFor({
      modern: fixtureCommand(['--rev', '2025-11-25']),
      quiet: fixtureCommand(['--rev', '2025-11-25', '--no-completions']),
      old: fixtureCommand(['--rev', '2024-11-05']),
      oldquiet: fixtureCommand(['--rev', '2024-11-05', '--no-completions']),
    });
    try {
      const c = new HttpClient(gw.url, '2025-11-25');
      await c.initialize();
      const ask = async (server: string) =>
        (
          await c.request('completion/complete', {
            ref: { type: 'ref/prompt', name: `${server}_greet` },
            argument: { name: 'who', value: 'b' },
          })
        ).result!;
      assert.deepEqual(((await ask('modern')).completion as Json).values, ['bob']);
      assert.deepEqual(((await ask('old')).completion as Json).values, ['bob']);
      const quiet = await ask('quiet');
      assert.deepEqual((quiet.completion as Json).values, []);
      assert.deepEqual(quiet._meta, {
        'dev.mcpx/source': 'cache',
        'dev.mcpx/reason': 'quiet does not declare completions',
      });
      const oldquiet = await ask('oldquiet');
      assert.equal((oldquiet._meta as Json)['dev.mcpx/source'], 'cache');
      assert.match(String((oldquiet._meta as Json)['dev.mcpx/reason']), /2024-11-05/);
    } finally {
      await gw.close();
    }
  });
});

describe('ProgressRelay: reports within 20 ms are held and coalesced, never dropped out of order', () => {
  const sink = () => {
    const got: number[] = [];
    const ctx = { meta: { progressToken: 'host' }, progress: (p: number) => got.push(p) } as unknown as CallContext;
    return { got, ctx };
  };
  const noop = () => undefined;
  test('a burst: the first goes at once, the newest held goes just before the final one', (t) => {
    // A frozen clock: a burst is reports within the interval, however long the machine takes between them.
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
    const { got, ctx } = sink();
    const relay = new ProgressRelay();
    const token = relay.track(ctx, 'up')!;
    for (const progress of [1, 2, 3]) relay.relay({ progressToken: token, progress, total: 10 }, 'up', noop);
    assert.deepEqual(got, [1]);
    relay.relay({ progressToken: token, progress: 10, total: 10 }, 'up', noop);
    assert.deepEqual(got, [1, 3, 10]);
    relay.relay({ progressToken: token, progress: 11, total: 10 }, 'up', noop);
    assert.deepEqual(got, [1, 3, 10], 'nothing after total');
    relay.release(token);
  });
  test('a held report goes out when the interval ends; none for a released token', (t) => {
    // Mocked clock and timers: the interval is about time, and a busy event loop must not decide it.
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
    const { got, ctx } = sink();
    const relay = new ProgressRelay();
    const token = relay.track(ctx, 'up')!;
    relay.relay({ progressToken: token, progress: 1 }, 'up', noop);
    relay.relay({ progressToken: token, progress: 2 }, 'up', noop);
    assert.deepEqual(got, [1]);
    t.mock.timers.tick(19);
    assert.deepEqual(got, [1], 'held for the rest of the interval');
    t.mock.timers.tick(1);
    assert.deepEqual(got, [1, 2], 'sent when the interval ends');
    t.mock.timers.tick(40);
    relay.relay({ progressToken: token, progress: 3 }, 'up', noop);
    relay.relay({ progressToken: token, progress: 4 }, 'up', noop);
    relay.release(token);
    t.mock.timers.tick(60);
    assert.deepEqual(got, [1, 2, 3], 'the call ended: its held report is not sent');
  });
});

describe("setRoots: mcpx's own roots (the editor's workspace folders) change", () => {
  test('the next roots/list answers with them; a running legacy upstream gets notifications/roots/list_changed', async () => {
    const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-roots-'));
    const record = join(dir, 'up.jsonl');
    const gw = await gatewayFor(
      { up: fixtureCommand(['--rev', '2025-06-18', '--name', 'up', '--record', record]) },
      {},
      { roots: ['/work/a'] },
    );
    try {
      const c = new HttpClient(gw.url, '2026-07-28');
      const roots = async () =>
        JSON.parse(
          String(
            (
              (
                await c.request('tools/call', {
                  name: 'mcpx_call',
                  arguments: { server: 'up', tool: 'roots', arguments: {} },
                })
              ).result!.content as Json[]
            )[0]!.text,
          ),
        );
      assert.deepEqual(await roots(), { roots: [{ uri: 'file:///work/a' }] });
      gw.g.setRoots([
        { uri: 'file:///work/a', name: 'a' },
        { uri: 'file:///work/b', name: 'b' },
      ]);
      const told = () => readFileSync(record, 'utf8').includes('"notifications/roots/list_changed"');
      await until(told, { what: 'roots/list_changed upstream' });
      assert.ok(told(), 'the legacy upstream was told');
      assert.deepEqual(await roots(), {
        roots: [
          { uri: 'file:///work/a', name: 'a' },
          { uri: 'file:///work/b', name: 'b' },
        ],
      });
    } finally {
      await gw.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('headless without a roots entry (docs/protocol.md "Roots headless")', () => {
  test('roots are declared, answered with none, and announced when a reload gives some', async () => {
    const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const { parseConfig } = await import('../../src/config/file');
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-roots-none-'));
    const record = join(dir, 'up.jsonl');
    const up = fixtureCommand(['--rev', '2025-06-18', '--name', 'up', '--record', record]);
    const gw = await gatewayFor({ up });
    try {
      const c = new HttpClient(gw.url, '2026-07-28');
      const roots = async () =>
        String(
          (
            (
              await c.request('tools/call', {
                name: 'mcpx_call',
                arguments: { server: 'up', tool: 'roots', arguments: {} },
              })
            ).result!.content as Json[]
          )[0]!.text,
        );
      const lines = () =>
        readFileSync(record, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { dir: string; frame: Json });
      // Declared at initialize (fixed for the connection), so that roots given later can be announced.
      assert.deepEqual(JSON.parse(await roots()), { roots: [] }, 'an honest answer: none');
      const init = lines().find((l) => l.dir === 'in' && l.frame.method === 'initialize')!;
      assert.deepEqual(((init.frame.params as Json).capabilities as Json).roots, { listChanged: true });
      await gw.g.reload(
        parseConfig({ servers: { up }, roots: ['/work/given'] }, 'test', { env: process.env }),
        gw.g.settings,
      );
      const told = () => lines().some((l) => l.frame.method === 'notifications/roots/list_changed');
      await until(told, { what: 'roots/list_changed upstream' });
      assert.ok(told(), 'the upstream was told');
      assert.deepEqual(JSON.parse(await roots()), { roots: [{ uri: 'file:///work/given' }] });
    } finally {
      await gw.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('UpstreamListens: the listen stream mcpx keeps to a 2026-07-28 upstream', () => {
  /** A stand-in for UpstreamClient.listen: acknowledges what it is asked, then ends the stream at once
   *  (a server that never holds one). */
  const fakeClient = () => {
    const opened: unknown[] = [];
    const client = {
      era: 'modern',
      // A 2026-07-28 upstream's changes are followed on a listen stream (its codec says).
      followsByListen: true,
      isClosed: false,
      negotiated: { capabilities: { tools: { listChanged: true }, resources: { subscribe: true } } },
      async listen(
        filter: Record<string, unknown>,
        on: (n: { method: string; params: Record<string, unknown> }) => void,
      ) {
        opened.push(filter);
        on({ method: 'notifications/subscriptions/acknowledged', params: { notifications: filter } });
        return {};
      },
    };
    return { client, opened };
  };

  test('a stream that keeps ending is reopened with growing pauses, then given up on (no endless loop)', async () => {
    const { UpstreamListens } = await import('../../src/gateway/inbox/listens');
    const { client, opened } = fakeClient();
    const lines: string[] = [];
    const l = new UpstreamListens({
      wanted: () => ['a://x'],
      deliver: () => undefined,
      log: (x) => lines.push(x),
      ackTimeoutMs: () => 1000,
      retryMs: [5, 10, 20],
    });
    await l.sync('up', client as never);
    assert.deepEqual(
      opened[0],
      { toolsListChanged: true, resourceSubscriptions: ['a://x'] },
      'what the server declares, and the wanted URIs',
    );
    await until(() => lines.some((x) => /not reopened/.test(x)), { what: 'the give-up log line', every: 10 });
    assert.ok(
      lines.some((x) => /6 times in a row; not reopened/.test(x)),
      lines.join('\n'),
    );
    const count = opened.length;
    assert.equal(count, 6);
    await stays(() => opened.length === count, { for: 100, what: 'nothing reopened after giving up' });
    assert.equal(opened.length, count, 'nothing more after giving up');
    l.close();
  });
});

describe('small leaks and races', () => {
  test('a question withdrawn before it is put starts no timer', async () => {
    const broker = new Broker(120_000, undefined, undefined, () => ({ perIdentity: 10, total: 10 }));
    const ctl = new AbortController();
    ctl.abort(new Error('withdrawn'));
    const real = globalThis.setTimeout;
    let timers = 0;
    globalThis.setTimeout = ((...a: Parameters<typeof setTimeout>) => (timers++, real(...a))) as typeof setTimeout;
    try {
      await assert.rejects(
        broker.ask({
          server: 'up',
          method: 'elicitation/create',
          params: { message: 'q' },
          signal: ctl.signal,
          reason: 'test',
        }),
        /withdrawn/,
      );
    } finally {
      globalThis.setTimeout = real;
    }
    assert.equal(timers, 0);
    assert.equal(broker.list().length, 0);
  });

  test('the state directory is made owner-only; a file that is not a secret is replaced and what is on disk returned', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-secret-'));
    try {
      chmodSync(dir, 0o755);
      writeFileSync(join(dir, 'endpoint-secret'), 'not a secret\n');
      const s = endpointSecret(dir);
      assert.equal(statSync(dir).mode & 0o777, 0o700);
      assert.equal(readSecret(dir), s);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
