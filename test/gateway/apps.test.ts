// MCP Apps and extensions through the gateway in pass-through (docs/gateway.md "MCP Apps", docs/protocol.md
// "Extensions across the gateway"): a client's declared extensions reach the upstream (per request for a
// 2026-07-28 one, an instance per extension set for a legacy one), the real example app servers from npm
// answer through mcpx as they answer directly, ui:// URIs two servers share reach each its own, app-only
// tools are hidden from a client that renders no apps, and an app's calls pass permissions and the
// activity log. Real processes over real pipes and loopback HTTP; every frame validated per revision.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { repoRoot } from '../harness/gateway';
import type { Revision } from '../harness/schema';
import { checkRecorded, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { type HttpClient, type Json, StdioClient } from '../harness/wire';
import { until } from '../harness/wait';
import { APP_URI, ERAS, HOST, MIME, UI, appsClient, names, text } from '../harness/apps';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-apps-'));
after(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

const MODERN: Revision = '2026-07-28';

describe('extensions reach the upstream that serves the client', () => {
  for (const up of ERAS) {
    test(`a ${up} upstream: the app tool to clients that declared the ui extension, the fallback to the others — both client eras, at once`, async () => {
      const gw = await gatewayFor(
        { fx: fixtureCommand(['--rev', up, '--apps', '--name', 'fx']) },
        { 'mcp.passthrough': ['fx'] },
      );
      try {
        const all = await Promise.all(
          ERAS.flatMap((rev) => [
            appsClient(gw.url, rev, HOST).then((c) => ({ rev, host: true, c })),
            appsClient(gw.url, rev).then((c) => ({ rev, host: false, c })),
          ]),
        );
        const lists = await Promise.all(all.map((x) => x.c.request('tools/list')));
        for (const [i, x] of all.entries()) {
          const tools = (lists[i]!.result?.tools ?? []) as Json[];
          const listed = names(lists[i]!.result);
          if (x.host) {
            assert.ok(listed.includes('forecast') && listed.includes('forecast_refresh'), `${x.rev} host: ${listed}`);
            assert.ok(!listed.includes('forecast_text'));
            assert.deepEqual(tools.find((t) => t.name === 'forecast')?._meta, { ui: { resourceUri: APP_URI } });
            // A host hides app-only tools from its model itself: it gets them as the server listed them.
            assert.deepEqual(tools.find((t) => t.name === 'forecast_refresh')?._meta, {
              ui: { resourceUri: APP_URI, visibility: ['app'] },
            });
          } else {
            assert.ok(listed.includes('forecast_text'), `${x.rev} plain: ${listed}`);
            assert.ok(!listed.includes('forecast') && !listed.includes('forecast_refresh'));
          }
        }
        const calls = await Promise.all(
          all.map((x) =>
            x.c.request('tools/call', { name: x.host ? 'forecast' : 'forecast_text', arguments: { place: 'Oslo' } }),
          ),
        );
        const instance = calls.map((r, i) => {
          const m = /^(forecast(?:_text)?) of Oslo from fx:([0-9a-f]{12})$/.exec(text(r.result));
          assert.ok(m, `${all[i]!.rev}: ${JSON.stringify(r.result ?? r.error)}`);
          return m[2]!;
        });
        const hosts = new Set(instance.filter((_, i) => all[i]!.host));
        const plain = new Set(instance.filter((_, i) => !all[i]!.host));
        assert.equal(hosts.size, 1, 'clients declaring the same extensions share an instance');
        assert.equal(plain.size, 1);
        if (up === MODERN) assert.deepEqual(hosts, plain, 'a 2026-07-28 upstream reads them per request: one instance');
        else assert.notDeepEqual(hosts, plain, 'a legacy upstream: one instance per extension set');
        // mcpx declares the ui extension where the revision has `extensions` (the legacy answer has none:
        // the frame is validated against 2025-11-25).
        const modern = all.find((x) => x.rev === MODERN)!.c;
        const discover = await modern.request('server/discover');
        assert.deepEqual((discover.result!.capabilities as Json).extensions, {
          'io.modelcontextprotocol/tasks': {},
          [UI]: {},
          'io.modelcontextprotocol/skills': {},
        });
      } finally {
        await gw.close();
      }
    });
  }

  test('an extension mcpx does not know reaches the upstream as the client declared it, both eras', async () => {
    const record = join(dir, 'unknown.jsonl');
    const recordNew = join(dir, 'unknown-new.jsonl');
    const gw = await gatewayFor(
      {
        // The two share tool names: one offered of each.
        old: {
          ...fixtureCommand(['--rev', '2025-11-25', '--name', 'old', '--record', record]),
          tools: { allow: ['echo'] },
        },
        new: {
          ...fixtureCommand(['--rev', MODERN, '--name', 'new', '--record', recordNew]),
          tools: { allow: ['add'] },
        },
      },
      { 'mcp.passthrough': ['old', 'new'] },
    );
    try {
      const other = { extensions: { 'com.example/telepathy': { level: 3 } } };
      for (const rev of ERAS) {
        const c = await appsClient(gw.url, rev, other);
        const listed = names((await c.request('tools/list')).result).filter((n) => !n.startsWith('mcpx_'));
        assert.deepEqual(listed, ['add', 'echo']);
      }
      const frames = readFileSync(record, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { dir: string; frame: Json })
        .filter((l) => l.dir === 'in')
        .map((l) => l.frame);
      // (Not checked against 2025-11-25's schema: its ClientCapabilities spells no `extensions`, which
      // mcpx keeps at initialize on purpose — docs/protocol.md "Extensions across the gateway".)
      const init = frames.find(
        (f) =>
          f.method === 'initialize' &&
          JSON.stringify((f.params as Json).capabilities).includes('com.example/telepathy'),
      );
      assert.ok(init, 'the legacy upstream was initialized with it');
      assert.deepEqual(((init.params as Json).capabilities as Json).extensions, other.extensions);
      // Every frame the 2026-07-28 upstream received is valid for its revision, the extension included.
      const list = checkRecorded(recordNew, MODERN).find((f) => {
        const meta = (f.params as Json | undefined)?._meta as Json | undefined;
        const caps = meta?.['io.modelcontextprotocol/clientCapabilities'] as Json | undefined;
        return f.method === 'tools/list' && JSON.stringify(caps?.extensions ?? {}).includes('telepathy');
      });
      assert.ok(list, 'the 2026-07-28 upstream got the extension in the request');
    } finally {
      await gw.close();
    }
  });
});

describe('instances per extension set', () => {
  test('a legacy server’s stay within limits.instancesPerServer (the least recently used idle one stopped) and are reaped when idle', async () => {
    const gw = await gatewayFor(
      { fx: fixtureCommand(['--rev', '2025-11-25', '--name', 'fx']) },
      { 'mcp.passthrough': ['fx'], 'limits.instancesPerServer': 2, 'pool.idleTimeout': '1s' },
    );
    try {
      const clients = await Promise.all(
        [1, 2, 3].map((i) => appsClient(gw.url, '2025-11-25', { extensions: { [`com.example/x${i}`]: { i } } })),
      );
      const who = async (c: HttpClient) =>
        text((await c.request('tools/call', { name: 'whoami', arguments: {} })).result);
      const first = await who(clients[0]!);
      assert.equal(await who(clients[0]!), first, 'one instance per set, kept while there is room');
      const others = [await who(clients[1]!), await who(clients[2]!)];
      assert.equal(new Set([first, ...others]).size, 3, 'three sets, three instances');
      const running = () => gw.g.servers().filter((s) => s.name === 'fx' && s.state === 'running');
      assert.equal(running().length, 2, 'the third stopped the least recently used');
      assert.notEqual(await who(clients[0]!), first, 'the first set’s instance was stopped, and starts again');
      assert.equal(running().length, 2);
      await until(() => running().length === 0, { what: 'idle instances stopped', timeout: 10_000, every: 100 });
      assert.equal(running().length, 0, 'idle instances are stopped after pool.idleTimeout');
    } finally {
      await gw.close();
    }
  });
});

describe('the MCP Apps example servers from npm, in pass-through', () => {
  const bin = (pkg: string) => join(repoRoot(), 'node_modules', '@modelcontextprotocol', pkg, 'dist', 'index.js');
  const EXAMPLES = { basic: bin('server-basic-vanillajs'), map: bin('server-map') };

  test('tools/list and the ui:// reads match the servers’ direct answers, for a host of each era', async () => {
    // Directly: each server on its own pipe, as a 2025-11-25 host.
    const direct: Record<string, { tools: Json[]; reads: Map<string, Json> }> = {};
    for (const [name, path] of Object.entries(EXAMPLES)) {
      const c = new StdioClient(process.execPath, [path, '--stdio'], '2025-11-25', HOST);
      try {
        const init = await c.request('initialize', {
          protocolVersion: '2025-11-25',
          capabilities: HOST,
          clientInfo: { name: 'direct', version: '1' },
        });
        assert.ok(init.result, JSON.stringify(init));
        c.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        const tools = ((await c.request('tools/list')).result as Json).tools as Json[];
        const reads = new Map<string, Json>();
        for (const t of tools) {
          const uri = ((t._meta as Json | undefined)?.ui as Json | undefined)?.resourceUri;
          if (typeof uri === 'string' && !reads.has(uri))
            reads.set(uri, (await c.request('resources/read', { uri })).result as Json);
        }
        assert.ok(reads.size > 0, `${name} has an app`);
        direct[name] = { tools, reads };
      } finally {
        c.child.kill();
      }
    }
    const gw = await gatewayFor(
      Object.fromEntries(
        Object.entries(EXAMPLES).map(([n, p]) => [n, { command: process.execPath, args: [p, '--stdio'] }]),
      ),
      { 'mcp.passthrough': Object.keys(EXAMPLES) },
    );
    try {
      for (const rev of ERAS) {
        const c = await appsClient(gw.url, rev, HOST);
        const listed = ((await c.request('tools/list')).result?.tools ?? []) as Json[];
        for (const { tools, reads } of Object.values(direct)) {
          for (const t of tools)
            assert.deepEqual(
              listed.find((x) => x.name === t.name),
              t,
              `${rev}: ${String(t.name)}`,
            );
          for (const [uri, want] of reads) {
            const got = (await c.request('resources/read', { uri })).result!;
            assert.deepEqual(got.contents, want.contents, `${rev}: ${uri}`);
            const first = (got.contents as Json[])[0]!;
            assert.equal(first.mimeType, MIME);
          }
        }
      }
    } finally {
      await gw.close();
    }
  });
});
