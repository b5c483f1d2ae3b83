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
import { cliJs, repoRoot } from '../harness/gateway';
import type { Revision } from '../harness/schema';
import { checkRecorded, fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { HttpClient, type Json, StdioClient } from '../harness/wire';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-apps-'));
after(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

const MODERN: Revision = '2026-07-28';
const ERAS: Revision[] = ['2025-11-25', MODERN];
const UI = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';
/** What a host that renders apps declares (ext-apps' own client does so). */
const HOST = { extensions: { [UI]: { mimeTypes: [MIME] } } };
const APP_URI = 'ui://forecast/view.html';

async function client(url: string, rev: Revision, capabilities?: Json): Promise<HttpClient> {
  const c = new HttpClient(url, rev, capabilities ? { capabilities } : {});
  if (rev !== MODERN) assert.ok((await c.initialize()).result, 'initialized');
  return c;
}

const names = (r: Json | undefined) => ((r?.tools ?? []) as Json[]).map((t) => String(t.name)).sort();
const text = (r: Json | undefined) => String(((r?.content ?? []) as Json[])[0]?.text);

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
            client(gw.url, rev, HOST).then((c) => ({ rev, host: true, c })),
            client(gw.url, rev).then((c) => ({ rev, host: false, c })),
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
        const c = await client(gw.url, rev, other);
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
        [1, 2, 3].map((i) => client(gw.url, '2025-11-25', { extensions: { [`com.example/x${i}`]: { i } } })),
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
      const until = Date.now() + 10_000;
      while (running().length && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
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
        const c = await client(gw.url, rev, HOST);
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

describe('apps of two servers', () => {
  test('one ui:// URI two servers name is shown per server, in tools and resources alike, and each read reaches its own', async () => {
    const gw = await gatewayFor(
      {
        // Their other tools share names: each offers only its app's here.
        a: {
          ...fixtureCommand(['--rev', '2025-11-25', '--apps-always', '--apps-prefix', 'a', '--name', 'a']),
          tools: { allow: ['a_*'] },
        },
        b: {
          ...fixtureCommand(['--rev', MODERN, '--apps-always', '--apps-prefix', 'b', '--name', 'b']),
          tools: { allow: ['b_*'] },
        },
      },
      { 'mcp.passthrough': ['a', 'b'] },
    );
    try {
      for (const rev of ERAS) {
        const c = await client(gw.url, rev, HOST);
        const tools = ((await c.request('tools/list')).result?.tools ?? []) as Json[];
        const meta = (n: string) => tools.find((t) => t.name === n)?._meta;
        assert.deepEqual(meta('a_forecast'), { ui: { resourceUri: 'ui://mcpx/a/forecast/view.html' } });
        assert.deepEqual(meta('b_forecast'), { ui: { resourceUri: 'ui://mcpx/b/forecast/view.html' } });
        assert.deepEqual(meta('a_forecast_refresh'), {
          ui: { resourceUri: 'ui://mcpx/a/forecast/view.html', visibility: ['app'] },
        });
        const resources = ((await c.request('resources/list')).result?.resources ?? []) as Json[];
        const ui = resources.filter((r) => String(r.uri).startsWith('ui://')).map((r) => r.uri);
        assert.deepEqual(ui.sort(), ['ui://mcpx/a/forecast/view.html', 'ui://mcpx/b/forecast/view.html']);
        for (const server of ['a', 'b']) {
          const uri = `ui://mcpx/${server}/forecast/view.html`;
          const read = await c.request('resources/read', { uri });
          const [content] = (read.result?.contents ?? []) as Json[];
          assert.equal(content?.uri, uri, 'the contents are at the URI read');
          assert.equal(content?.mimeType, MIME);
          assert.match(String(content?.text), new RegExp(`<title>forecast of ${server}</title>`));
          assert.deepEqual(content?._meta, {
            ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true },
          });
        }
      }
    } finally {
      await gw.close();
    }
  });

  test('a tool only an app may call is not listed to a client that renders no apps, and stays callable', async () => {
    const gw = await gatewayFor(
      { a: fixtureCommand(['--rev', '2025-11-25', '--apps-always', '--name', 'a']) },
      { 'mcp.passthrough': ['a'] },
    );
    try {
      for (const rev of ERAS) {
        const c = await client(gw.url, rev);
        const listed = names((await c.request('tools/list')).result);
        assert.ok(listed.includes('forecast') && !listed.includes('forecast_refresh'), listed.join());
        const r = await c.request('tools/call', { name: 'forecast_refresh', arguments: {} });
        assert.match(text(r.result), /^forecast_refresh of here from a:/);
      }
    } finally {
      await gw.close();
    }
  });
});

describe('through the stdio shim', () => {
  test('an agent’s declared extensions reach the upstream through the shim, both eras; its app call is recorded with the app', async () => {
    const gw = await gatewayFor(
      { fx: fixtureCommand(['--rev', '2025-11-25', '--apps', '--name', 'fx']) },
      { 'mcp.passthrough': ['fx'] },
    );
    const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_STATE_HOME: dir, MCPX_PORT: '' };
    const shim = (rev: Revision, caps: Json) =>
      new StdioClient(
        process.execPath,
        [cliJs(), 'serve', '--transport', 'stdio', '--connect', gw.url],
        rev,
        caps,
        env,
      );
    const open: StdioClient[] = [];
    try {
      for (const rev of ERAS) {
        for (const host of [true, false]) {
          const c = shim(rev, host ? HOST : {});
          open.push(c);
          if (rev !== MODERN) {
            const init = await c.request('initialize', {
              protocolVersion: rev,
              capabilities: c.capabilities,
              clientInfo: { name: 'agent', version: '1' },
            });
            assert.ok(init.result, JSON.stringify(init));
            c.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          }
          const listed = names((await c.request('tools/list')).result as Json);
          assert.ok(listed.includes(host ? 'forecast' : 'forecast_text'), `${rev} ${host}: ${listed}`);
          assert.ok(!listed.includes(host ? 'forecast_text' : 'forecast'));
          const r = await c.request('tools/call', {
            name: host ? 'forecast' : 'forecast_text',
            arguments: { place: rev },
          });
          assert.match(text(r.result as Json), new RegExp(`^forecast(_text)? of ${rev} from fx:`));
        }
      }
      const shimmed = gw.g.activity
        .recent({ server: 'fx' })
        .filter((r) => r.client.transport === 'shim' && r.target === 'forecast');
      assert.equal(shimmed.length, 2);
      for (const r of shimmed) assert.deepEqual(r.app, { resourceUri: APP_URI });
    } finally {
      await Promise.all(open.map((c) => c.close()));
      await gw.close();
    }
  });
});

describe('an app calls back through mcpx', () => {
  test('as an ordinary call: the permission rules apply and the activity log records it, with the app', async () => {
    const record = join(dir, 'calls.jsonl');
    const gw = await gatewayFor(
      { fx: fixtureCommand(['--rev', '2025-11-25', '--apps', '--name', 'fx', '--record', record]) },
      { 'mcp.passthrough': ['fx'] },
      { permissions: { rules: [{ server: 'fx', tool: 'forecast_refresh', action: 'deny' }] } },
    );
    try {
      const c = await client(gw.url, '2025-11-25', HOST);
      const ok = await c.request('tools/call', { name: 'forecast', arguments: { place: 'Bergen' } });
      assert.match(text(ok.result), /^forecast of Bergen from fx:/);
      // mcpx_call reaches the same server in the host's view (its app tool).
      const via = await c.request('tools/call', {
        name: 'mcpx_call',
        arguments: { server: 'fx', tool: 'forecast', arguments: { place: 'Molde' } },
      });
      assert.match(text(via.result), /^forecast of Molde from fx:/);
      const denied = await c.request('tools/call', { name: 'forecast_refresh', arguments: {} });
      assert.equal(denied.result?.isError, true);
      const calls = readFileSync(record, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { dir: string; frame: Json })
        .filter((l) => l.dir === 'in' && l.frame.method === 'tools/call')
        .map((l) => (l.frame.params as Json).name);
      assert.deepEqual(calls, ['forecast', 'forecast'], 'the denied call never reached the upstream');
      const recs = gw.g.activity.recent({ server: 'fx' }).filter((r) => r.kind === 'tool');
      const by = (target: string, path: string) => recs.find((r) => r.target === target && r.path === path);
      assert.deepEqual(by('forecast', 'pass-through')?.app, { resourceUri: APP_URI });
      assert.deepEqual(by('forecast', 'mcpx_call')?.app, { resourceUri: APP_URI });
      assert.equal(by('forecast_refresh', 'pass-through')?.outcome.status, 'denied');
      assert.deepEqual(by('forecast_refresh', 'pass-through')?.app, { resourceUri: APP_URI });
      // A recorded call's app is read at its server by a client that renders none too (the editor's way).
      const plain = await client(gw.url, MODERN);
      const at = `mcpx://fx/${APP_URI}`;
      const read = await plain.request('resources/read', { uri: at });
      const [content] = (read.result?.contents ?? []) as Json[];
      assert.equal(content?.uri, at, JSON.stringify(read.error));
      assert.match(String(content?.text), /<title>forecast of fx<\/title>/);
    } finally {
      await gw.close();
    }
  });
});
