// MCP Apps in the editor (src/vscode/apps/), in plain Node: what is read of a tool and of its `ui://`
// resource, the policy the app's document gets, every message of the (untrusted) webview page checked;
// and through a real gateway over the fixture upstream (--app): a palette call of an app tool, and Show
// App on an agent's call, hand the app that call's tool, input and result (the panel itself is the
// editor suite's: test/vscode/apps.ts).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import {
  allowAttribute,
  appCsp,
  appResource,
  appResourceUri,
  callableByApp,
  pageCsp,
  renderCsp,
  themeOf,
  withCsp,
} from '../src/vscode/apps/appMeta';
import { parseFromApp } from '../src/vscode/apps/appMessages';
import { invoke } from '../src/vscode/commands/command';
import { COMMANDS } from '../src/vscode/commands/table';
import { activityRows } from '../src/vscode/views/activity';
import { taskRows } from '../src/vscode/views/tasks';
import { HttpClient } from './harness/wire';
import { type TestGateway, fixtureCommand, gatewayFor, killAll } from './harness/upstreams';
import { fakeDeps, fakePerson } from './vscode-fakes/editor';
import { fakeHost } from './vscode-fakes/host';

after(() => killAll());

const run = (id: string, d: Parameters<typeof invoke>[1], ...args: unknown[]) => invoke(COMMANDS[id]!, d, args);

describe('what is read of an app', () => {
  test('the resource URI: _meta.ui.resourceUri, else the deprecated flat key; only ui:// URIs', () => {
    assert.equal(appResourceUri({ _meta: { ui: { resourceUri: 'ui://a/x.html' } } }), 'ui://a/x.html');
    assert.equal(appResourceUri({ _meta: { 'ui/resourceUri': 'ui://a/old.html' } }), 'ui://a/old.html');
    assert.equal(
      appResourceUri({ _meta: { ui: { resourceUri: 'ui://new' }, 'ui/resourceUri': 'ui://old' } }),
      'ui://new',
      'the nested key wins',
    );
    for (const tool of [
      {},
      { _meta: {} },
      { _meta: { ui: { resourceUri: 'https://evil.example/app.html' } } },
      { _meta: { ui: { resourceUri: 42 } } },
      { _meta: { ui: { resourceUri: `ui://${'x'.repeat(3000)}` } } },
      null,
    ])
      assert.equal(appResourceUri(tool), undefined, JSON.stringify(tool)?.slice(0, 80));
  });

  test("visibility: a tool listed only for the model is not the app's to call", () => {
    assert.equal(callableByApp({ name: 't' }), true);
    assert.equal(callableByApp({ _meta: { ui: { visibility: ['model', 'app'] } } }), true);
    assert.equal(callableByApp({ _meta: { ui: { visibility: ['app'] } } }), true);
    assert.equal(callableByApp({ _meta: { ui: { visibility: ['model'] } } }), false);
  });

  test("the HTML: the content item of the app's MIME type (text or base64 blob), with its _meta.ui; else why not", () => {
    const ui = { csp: { connectDomains: ['https://api.example.com'] } };
    assert.deepEqual(
      appResource({
        contents: [
          { uri: 'ui://a', mimeType: 'text/plain', text: 'no' },
          { uri: 'ui://a', mimeType: 'text/html;profile=mcp-app', text: '<p>hi</p>', _meta: { ui } },
        ],
      }),
      { html: '<p>hi</p>', ui },
    );
    assert.deepEqual(
      appResource({
        contents: [
          { uri: 'ui://a', mimeType: 'text/html;profile=mcp-app', blob: Buffer.from('<b>x</b>').toString('base64') },
        ],
      }),
      { html: '<b>x</b>', ui: {} },
    );
    assert.match(
      String((appResource({ contents: [{ mimeType: 'text/html', text: 'x' }] }) as { problem: string }).problem),
      /no text\/html;profile=mcp-app content/,
    );
    assert.match(
      String((appResource({ contents: [{ mimeType: 'text/html;profile=mcp-app' }] }) as { problem: string }).problem),
      /neither text nor blob/,
    );
    const huge = 'x'.repeat(5 * 1024 * 1024 + 1);
    assert.match(
      String(
        (appResource({ contents: [{ mimeType: 'text/html;profile=mcp-app', text: huge }] }) as { problem: string })
          .problem,
      ),
      /over 5242880 bytes/,
    );
  });

  test("VS Code's theme in the app's terms: light and high-contrast light are light, the rest dark", () => {
    assert.deepEqual([1, 2, 3, 4].map(themeOf), ['light', 'dark', 'dark', 'light']);
  });
});

describe("the app's policy", () => {
  test('strict by default: inline script and style, no network, no frames, no forms', () => {
    assert.equal(
      renderCsp(appCsp({})),
      "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; media-src 'self' data: blob:; connect-src 'none'; frame-src 'none'; base-uri 'self'; form-action 'none'",
    );
  });

  test('each declared list adds its origins to its directives; anything that is not an origin is dropped', () => {
    const d = appCsp({
      csp: {
        connectDomains: [
          'https://api.example.com',
          'wss://live.example.com:8443',
          "https://x.com; script-src 'unsafe-eval'",
        ],
        resourceDomains: [
          'https://*.cdn.example',
          "'unsafe-eval'",
          'https://cdn.example/path',
          'javascript:alert(1)',
          7,
        ],
        frameDomains: ['https://www.youtube.com'],
        baseUriDomains: ['https://base.example'],
      },
    });
    assert.deepEqual(d['connect-src'], ['https://api.example.com', 'wss://live.example.com:8443']);
    assert.deepEqual(d['script-src'], ["'self'", "'unsafe-inline'", 'https://*.cdn.example']);
    assert.deepEqual(d['img-src'], ["'self'", 'data:', 'blob:', 'https://*.cdn.example']);
    assert.deepEqual(d['frame-src'], ['https://www.youtube.com']);
    assert.deepEqual(d['base-uri'], ['https://base.example']);
    assert.ok(!renderCsp(d).includes('unsafe-eval'));
  });

  test('at most 32 origins a list', () => {
    const many = Array.from({ length: 40 }, (_, i) => `https://h${i}.example`);
    assert.equal(appCsp({ csp: { connectDomains: many } })['connect-src']!.length, 32);
  });

  test("the page's policy is the app's (its frame inherits it) plus the page's own script and style", () => {
    const page = pageCsp(appCsp({}), 'https://file+.vscode-resource.example');
    assert.match(page, /script-src 'self' 'unsafe-inline' https:\/\/file\+\.vscode-resource\.example;/);
    assert.match(page, /connect-src 'none'/);
  });

  test("the app's HTML carries the policy first in its head, quotes escaped; a head is made where there is none", () => {
    const csp = "default-src 'none'";
    const meta = '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'">';
    assert.equal(
      withCsp('<html><head lang="x"><title>t</title></head></html>', csp),
      `<html><head lang="x">${meta}<title>t</title></head></html>`,
    );
    assert.equal(withCsp('<!DOCTYPE html><p>x</p>', csp), `<!DOCTYPE html><head>${meta}</head><p>x</p>`);
    assert.equal(withCsp('<p>x</p>', csp), `<head>${meta}</head><p>x</p>`);
    assert.match(withCsp('<head>', 'a "b" <c>'), /content="a &#34;b&#34; &#60;c&#62;"/);
  });

  test('the frame is allowed what the resource asks of camera, microphone, geolocation, clipboard; nothing else', () => {
    assert.equal(allowAttribute({}), '');
    assert.equal(
      allowAttribute({ permissions: { camera: {}, clipboardWrite: {}, usb: {}, microphone: true } }),
      'camera; clipboard-write',
    );
  });
});

describe("the page's messages (untrusted)", () => {
  test('each kind, checked and bounded', () => {
    assert.deepEqual(parseFromApp({ type: 'ready' }), { type: 'ready' });
    assert.deepEqual(parseFromApp({ type: 'callTool', id: 3, name: 'echo', arguments: { text: 'x' } }), {
      type: 'callTool',
      id: 3,
      name: 'echo',
      arguments: { text: 'x' },
    });
    assert.deepEqual(parseFromApp({ type: 'callTool', id: 4, name: 'echo' }), {
      type: 'callTool',
      id: 4,
      name: 'echo',
      arguments: {},
    });
    assert.deepEqual(
      parseFromApp({
        type: 'message',
        id: 5,
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'image', data: 'x' },
        ],
      }),
      { type: 'message', id: 5, text: 'hi\n[image]' },
    );
    const link = parseFromApp({ type: 'openLink', id: 6, url: 'https://example.com/a?b=c' });
    assert.equal('url' in link && link.url.href, 'https://example.com/a?b=c');
    assert.deepEqual(parseFromApp({ type: 'log', level: 'info', data: { a: 1 } }), {
      type: 'log',
      level: 'info',
      text: '{"a":1}',
    });
  });

  test('refused with the reason, and the id to answer when it has one', () => {
    const refused = (m: unknown) => parseFromApp(m) as { problem: string; id?: number };
    assert.match(refused({ type: 'eval', code: 'x' }).problem, /Invalid discriminator/);
    assert.match(refused(null).problem, /message|Expected object/);
    assert.deepEqual(refused({ type: 'callTool', id: 7, name: '' }).id, 7);
    assert.match(refused({ type: 'callTool', id: 7, name: '' }).problem, /^name:/);
    assert.match(refused({ type: 'callTool', id: 8, name: 'x'.repeat(257) }).problem, /^name:/);
    assert.match(
      refused({ type: 'callTool', id: 9, name: 'echo', arguments: { t: 'x'.repeat(1024 * 1024) } }).problem,
      /^arguments: more than 1048576 bytes/,
    );
    assert.match(refused({ type: 'callTool', id: 9, name: 'echo', arguments: [] }).problem, /^arguments:/);
    assert.match(refused({ type: 'callTool', id: -1, name: 'echo' }).problem, /^id:/);
    assert.equal(refused({ type: 'callTool', id: -1, name: 'echo' }).id, undefined, 'no id to answer');
    assert.match(refused({ type: 'callTool', id: 1, name: 'echo', extra: 1 }).problem, /Unrecognized key/);
    assert.match(
      refused({ type: 'message', id: 1, role: 'user', content: Array(33).fill({ type: 'text', text: 'x' }) }).problem,
      /^content:/,
    );
    assert.match(
      refused({ type: 'message', id: 1, role: 'user', content: [{ type: 'text', text: 'x'.repeat(16 * 1024 + 1) }] })
        .problem,
      /^content\.0\.text:/,
    );
    assert.match(refused({ type: 'log', level: 'loud', data: 'x' }).problem, /^level:/);
    assert.match(refused({ type: 'log', level: 'info', data: 'x'.repeat(17 * 1024) }).problem, /^data: more than/);
    for (const url of [
      'command:workbench.action.quit',
      'file:///etc/passwd',
      'vscode://x',
      'javascript:alert(1)',
      'not a url',
    ])
      assert.match(refused({ type: 'openLink', id: 2, url }).problem, /^url: not an http\(s\) or mailto link/, url);
    assert.match(refused({ type: 'openLink', id: 2, url: `https://x.example/${'a'.repeat(2100)}` }).problem, /^url:/);
  });
});

describe('apps through a real gateway (the fixture upstream with --app)', () => {
  let gw: TestGateway;
  const start = async () =>
    (gw ??= await gatewayFor({ up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', '--app']) }));
  after(() => gw?.close());

  test("a palette call of an app tool opens its app with the tool's definition, its input and its result; another tool's result goes to an editor", async () => {
    await start();
    const { person } = fakePerson([
      { action: 'accept', content: { text: 'from the palette' } },
      { action: 'accept', content: { text: 'plain' } },
    ]);
    const { d, apps, shown } = fakeDeps({ host: fakeHost({ gateway: gw.g }), parts: { person } });
    await run('mcpx.callTool', d, 'up', 'app_show');
    assert.equal(apps.length, 1);
    assert.equal(apps[0]!.server, 'up');
    assert.deepEqual(apps[0]!.tool._meta, { ui: { resourceUri: 'ui://fixture/app.html' } });
    assert.deepEqual(apps[0]!.input, { text: 'from the palette' });
    assert.deepEqual(apps[0]!.result?.content, [{ type: 'text', text: 'shown: from the palette' }]);
    assert.equal(shown.length, 0, 'no text editor for it');
    assert.equal(d.apps.has('up', 'app_show'), true, 'the palette taught the index');
    assert.equal(d.apps.has('up', 'echo'), false);
    await run('mcpx.callTool', d, 'up', 'echo');
    assert.equal(apps.length, 1);
    assert.deepEqual(shown[0]!.result.content, [{ type: 'text', text: 'plain' }]);
  });

  test('an app that cannot be opened: the result in an editor, and the reason', async () => {
    await start();
    const { person } = fakePerson([{ action: 'accept', content: { text: 'x' } }]);
    const { d, ui, shown } = fakeDeps({
      host: fakeHost({ gateway: gw.g }),
      parts: {
        person,
        apps: {
          has: () => true,
          onDidChange: () => ({ dispose: () => undefined }),
          definition: async () => undefined,
          learn: () => undefined,
          open: async () => {
            throw new Error('no webview here');
          },
        },
      },
    });
    await run('mcpx.callTool', d, 'up', 'app_show');
    assert.deepEqual(ui.said('warning'), ['mcpx: up · app_show: its app could not be shown: no webview here']);
    assert.deepEqual(shown[0]!.result.content, [{ type: 'text', text: 'shown: x' }]);
  });

  test("Show App on an agent's call (its Activity row) opens the app with that call's input and result; the rows offer it only for an app tool", async () => {
    await start();
    const c = new HttpClient(gw.url, '2025-11-25');
    await c.initialize();
    const call = async (tool: string, text: string) =>
      (await c.request('tools/call', { name: 'mcpx_call', arguments: { server: 'up', tool, arguments: { text } } }))
        .result;
    assert.deepEqual((await call('app_show', 'from an agent'))?.content, [
      { type: 'text', text: 'shown: from an agent' },
    ]);
    await call('echo', 'e');
    const { d, apps, ui } = fakeDeps({ host: fakeHost({ gateway: gw.g }) });
    const [echoCall, appCall] = gw.g.activity.recent({}, 2);
    assert.equal(appCall!.target, 'app_show');
    // The index knows no server yet: the rows say no app until it has listed it, then tell the view.
    const told = new Promise<void>((r) => d.apps.onDidChange(() => r()));
    const before = activityRows([appCall!], {}, (s, t) => d.apps.has(s, t));
    assert.equal(before[0]!.children![0]!.contextValue, 'activity');
    await told;
    const rows = activityRows([echoCall!, appCall!], {}, (s, t) => d.apps.has(s, t))[0]!.children!;
    assert.deepEqual(
      rows.map((r) => r.contextValue),
      ['activity', 'activity.app'],
    );
    await run('mcpx.showApp', d, rows[1]);
    assert.equal(apps.length, 1);
    assert.deepEqual(apps[0]!.input, { text: 'from an agent' });
    assert.deepEqual(apps[0]!.result?.content, [{ type: 'text', text: 'shown: from an agent' }]);
    await run('mcpx.showApp', d, rows[0]);
    assert.deepEqual(ui.said('info'), ['mcpx: up · echo has no app.']);
    await run('mcpx.showApp', d, { kind: 'task', id: 'no-such-task' });
    assert.deepEqual(ui.said('info').at(-1), 'mcpx: that call is no longer in the Activity log.');
  });

  test("an agent's task of an app tool: its Tasks row offers Show App, which opens the app with the task's input and result", async () => {
    await start();
    const c = new HttpClient(gw.url, '2025-11-25');
    await c.initialize();
    const made = await c.request('tools/call', {
      name: 'mcpx_call',
      arguments: { server: 'up', tool: 'app_show', arguments: { text: 'in a task' } },
      task: {},
    });
    const taskId = String(((made.result as Record<string, unknown>).task as Record<string, unknown>).taskId);
    const done = await c.request('tasks/result', { taskId });
    assert.deepEqual((done.result as Record<string, unknown>).content, [{ type: 'text', text: 'shown: in a task' }]);
    const entry = {
      id: taskId,
      status: 'completed' as const,
      statusMessage: undefined,
      createdAt: Date.now(),
      updatedAt: Date.now(),
      terminal: true,
      cancel: () => undefined,
      info: { label: 'tools/call mcpx_call up/app_show', client: 'agent', era: 'legacy' as const },
      call: { id: 'c1', progress: undefined, finished: undefined },
    };
    const tasks = { list: () => [entry], find: () => entry, onChange: () => () => undefined };
    const { d, apps } = fakeDeps({ host: fakeHost({ gateway: gw.g, tasks: tasks as never }) });
    await d.apps.definition('up', 'app_show');
    const row = taskRows(d.host, d.palette, (s, t) => d.apps.has(s, t)).find((r) => r.id === taskId)!;
    assert.equal(row.contextValue, 'mcpx.task.completed.app');
    await run('mcpx.showApp', d, { kind: 'task', id: taskId });
    assert.equal(apps.length, 1);
    assert.deepEqual(apps[0]!.input, { text: 'in a task' });
    assert.deepEqual(apps[0]!.result?.content, [{ type: 'text', text: 'shown: in a task' }]);
  });

  test('a palette call of an app tool sent to the background: its row offers Show App, and Show Result opens the app', async () => {
    await start();
    const { d, apps } = fakeDeps({ host: fakeHost({ gateway: gw.g }) });
    const tool = (await gw.g.serverList('up', 'tools', 'mcpx:editor')).find((t) => t.name === 'app_show')!;
    d.palette.add({
      id: 'p1',
      server: 'up',
      tool: 'app_show',
      arguments: { text: 'later' },
      definition: tool,
      startedAt: Date.now(),
      status: 'completed',
      endedAt: Date.now(),
      outcome: { content: [{ type: 'text', text: 'shown: later' }] },
      abort: new AbortController(),
    });
    assert.equal(taskRows(d.host, d.palette)[0]!.contextValue, 'mcpx.palette.completed.app');
    await run('mcpx.showTaskResult', d, { kind: 'palette', id: 'p1' });
    await run('mcpx.showApp', d, { kind: 'palette', id: 'p1' });
    assert.equal(apps.length, 2);
    for (const a of apps) {
      assert.deepEqual(a.input, { text: 'later' });
      assert.deepEqual(a.result?.content, [{ type: 'text', text: 'shown: later' }]);
    }
  });
});

test('drawing a view never starts an upstream: a stopped server is not listed for its app tools', async () => {
  const gw = await gatewayFor({ idle: fixtureCommand(['--rev', '2025-11-25', '--name', 'idle', '--app']) });
  try {
    const { d } = fakeDeps({ host: fakeHost({ gateway: gw.g }) });
    const state = () => gw.g.servers().find((s) => s.name === 'idle')?.state;
    assert.equal(state(), 'stopped');
    assert.equal(d.apps.has('idle', 'app_show'), false);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(state(), 'stopped', 'still not started');
    // Show App (a person's explicit ask) lists it, starting it.
    assert.deepEqual((await d.apps.definition('idle', 'app_show'))?._meta, {
      ui: { resourceUri: 'ui://fixture/app.html' },
    });
    assert.equal(state(), 'running');
    assert.equal(d.apps.has('idle', 'app_show'), true);
  } finally {
    await gw.close();
  }
});
