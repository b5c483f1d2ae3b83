// The app a tool renders is pinned with it (docs/gateway.md "Pins"): its `_meta.ui.resourceUri` and its
// `execution` are part of the pinned definition — a change held like a changed description, the tool
// listed in its pinned form (the old app) and every call refused — and the app's `ui://` resource is
// pinned by a digest of its content where it has been read: a later read of other content is refused
// (-32602 pins.held) until the person accepts it. A pin written before these fields were pinned is
// completed with them, not held.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { parseConfig } from '../../src/config/file';
import { Pins } from '../../src/gateway/pins/pins';
import { MemoryPinStore } from '../../src/gateway/pins/store';
import { canonicalDigest } from '../../src/kit/canonical';
import { hostile, killHostiles } from '../harness/hostile';
import { type TestGateway, fixtureCommand, gatewayPool, killAll } from '../harness/upstreams';
import { HttpClient, type Json } from '../harness/wire';

const REV = '2025-11-25';
const gatewayOf = gatewayPool();
after(async () => {
  killAll();
  killHostiles();
});

const OPEN = { type: 'object', properties: { text: { type: 'string' } } };
const tool = (app: string, taskSupport: string) => ({
  tool: {
    name: 'show',
    description: 'Shows a view.',
    inputSchema: OPEN,
    execution: { taskSupport },
    _meta: { ui: { resourceUri: app } },
  },
  result: { content: [{ type: 'text', text: 'shown' }] },
});
const server = (app: string, taskSupport = 'optional') =>
  hostile('--tool-json', JSON.stringify([tool(app, taskSupport)]));

async function start(servers: Record<string, unknown>): Promise<{ gw: TestGateway; c: HttpClient }> {
  const gw = await gatewayOf(servers, { 'mcp.passthrough': ['p'] });
  const c = new HttpClient(gw.url, REV);
  await c.initialize();
  return { gw, c };
}

async function reload(gw: TestGateway, servers: Record<string, unknown>): Promise<void> {
  await gw.g.reload(parseConfig({ servers }, 'test', { env: process.env }), gw.g.settings);
}

const listedApp = async (c: HttpClient): Promise<unknown> => {
  const tools = (await c.request('tools/list')).result!.tools as Json[];
  return ((tools.find((t) => t.name === 'show')?._meta as Json | undefined)?.ui as Json | undefined)?.resourceUri;
};

describe('a tool’s app and execution are pinned', { timeout: 60_000 }, () => {
  test('a changed _meta.ui.resourceUri: held, listed with the pinned app, every call refused; accepted, the new one', async () => {
    const { gw, c } = await start({ p: server('ui://notes/view.html') });
    assert.equal(await listedApp(c), 'ui://notes/view.html');
    await reload(gw, { p: server('ui://notes/elsewhere.html') });
    assert.equal(await listedApp(c), 'ui://notes/view.html', 'the pinned form: its old app');
    const view = gw.g.pinViews('p')[0]!;
    assert.deepEqual(view.held, [{ kind: 'tools', name: 'show', reason: 'changed', listed: true, changed: ['app'] }]);
    const diff = gw.g.pinReviews('p')[0]!.diff;
    assert.match(diff, /^-.*"app": "ui:\/\/notes\/view\.html"/m);
    assert.match(diff, /^\+.*"app": "ui:\/\/notes\/elsewhere\.html"/m);
    for (const params of [
      { name: 'show', arguments: {} },
      { name: 'mcpx_call', arguments: { server: 'p', tool: 'show', arguments: {} } },
    ]) {
      const r = (await c.request('tools/call', params)).result!;
      assert.equal(r.isError, true);
      assert.match(JSON.stringify(r), /mcpx holds the tool \\"show\\" of p/);
    }
    assert.deepEqual(gw.g.acceptPins('p'), ['show']);
    assert.equal(await listedApp(c), 'ui://notes/elsewhere.html');
  });

  test('a changed execution (taskSupport) is held the same way', async () => {
    const { gw, c } = await start({ p: server('ui://notes/view.html', 'forbidden') });
    await c.request('tools/list');
    await reload(gw, { p: server('ui://notes/view.html', 'required') });
    await c.request('tools/list');
    assert.deepEqual(
      gw.g.pinViews('p')[0]!.held.map((h) => [h.name, h.changed]),
      [['show', ['execution']]],
    );
  });
});

describe("an app's ui:// content is pinned where it has been read", { timeout: 60_000 }, () => {
  test('read again with other content: refused (pins.held) until accepted; the same content again reads', async () => {
    // The fixture's app names its server in its HTML: another --name is another content.
    const apps = (name: string) => fixtureCommand(['--rev', REV, '--apps-always', '--name', name]);
    const { gw, c } = await start({ w: apps('first') });
    const uri = 'mcpx://w/ui://forecast/view.html';
    const first = await c.request('resources/read', { uri });
    assert.match(JSON.stringify(first.result), /first/);
    assert.deepEqual(gw.g.pinViews('w')[0]!.apps, ['ui://forecast/view.html']);
    assert.match(JSON.stringify((await c.request('resources/read', { uri })).result), /first/, 'unchanged: read');
    await reload(gw, { w: apps('second') });
    const refused = await c.request('resources/read', { uri });
    assert.equal(refused.error?.code, -32602, JSON.stringify(refused.response));
    assert.match(String(refused.error?.message), /mcpx holds the app "ui:\/\/forecast\/view\.html" of w/);
    const held = gw.g.pinViews('w')[0]!.held;
    assert.deepEqual(
      held.map((h) => [h.kind, h.name, h.changed]),
      [['apps', 'ui://forecast/view.html', ['contents']]],
    );
    const record = gw.g.activity
      .recent({ server: 'w' })
      .find((r) => r.kind === 'resource' && r.outcome.code === 'pins.held');
    assert.ok(record, 'the refused read is recorded');
    assert.deepEqual(gw.g.acceptPins('w'), ['ui://forecast/view.html']);
    assert.match(JSON.stringify((await c.request('resources/read', { uri })).result), /second/);
  });
});

describe('a pin written before the app and execution were pinned', () => {
  test('is completed with them at the next fetch, not held', () => {
    const store = new MemoryPinStore();
    const def = { name: 'show', description: 'Shows a view.', inputSchema: OPEN };
    store.put('p', 'tools', { show: { digest: canonicalDigest(def), definition: def, at: 1 } });
    const pins = new Pins({
      store,
      mode: () => 'hold',
      newTools: () => 'allow',
      log: () => undefined,
      held: () => undefined,
    });
    const item = {
      ...def,
      execution: { taskSupport: 'optional' },
      _meta: { ui: { resourceUri: 'ui://notes/view.html' } },
    };
    assert.deepEqual(pins.apply('p', 'tools', [item]), [item]);
    assert.deepEqual(pins.view('p').held, []);
    assert.deepEqual(store.read('p')!.tools!.show!.definition, {
      ...def,
      execution: item.execution,
      app: 'ui://notes/view.html',
    });
    // From then on a change of either is held.
    const moved = { ...item, _meta: { ui: { resourceUri: 'ui://notes/other.html' } } };
    pins.apply('p', 'tools', [moved]);
    assert.deepEqual(
      pins.view('p').held.map((h) => h.changed),
      [['app']],
    );
  });
});
