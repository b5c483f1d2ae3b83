// MCP Apps in the editor (src/vscode/apps/), in plain Node: what is read of a tool and of its `ui://`
// resource, the policy the app's document gets, every message of the (untrusted) webview page checked.
// Through a real gateway: test/vscode/editor-apps-gateway.test.ts; the panel itself: test/vscode/apps.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
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
} from '../../src/vscode/apps/appMeta';
import { parseFromApp } from '../../src/vscode/apps/appMessages';

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
