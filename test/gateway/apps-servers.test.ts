// MCP Apps through the gateway (docs/gateway.md "MCP Apps"): apps of two servers sharing a ui:// URI, through
// the stdio shim, and an app calling back through mcpx (permissions and the activity log). Real processes
// over real pipes and loopback HTTP; every frame validated per revision.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { cliJs } from '../harness/gateway';
import type { Revision } from '../harness/schema';
import { fixtureCommand, gatewayFor, killAll } from '../harness/upstreams';
import { type Json, StdioClient } from '../harness/wire';
import { APP_URI, ERAS, HOST, MIME, appsClient, names, text } from '../harness/apps';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-apps-'));
after(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

const MODERN: Revision = '2026-07-28';

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
        const c = await appsClient(gw.url, rev, HOST);
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
        const c = await appsClient(gw.url, rev);
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
      const c = await appsClient(gw.url, '2025-11-25', HOST);
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
      const plain = await appsClient(gw.url, MODERN);
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
