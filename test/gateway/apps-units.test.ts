// The pure parts of MCP Apps through the gateway: which extensions a client's capabilities carry upstream,
// a tool's app and visibility (SEP-1865), and the ui:// URIs of two servers (src/gateway/surface/apps.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppUris, listedTools } from '../../src/gateway/surface/apps';
import type { PassthroughTool } from '../../src/gateway/surface/passthroughTools';
import { carriedExtensions, declaresUi, modelVisible, withAppUri } from '../../src/protocol/extensions';
import type { JsonObject } from '../../src/protocol/jsonrpc';

const UI = 'io.modelcontextprotocol/ui';
const tool = (name: string, ui?: JsonObject, flat?: string): JsonObject => ({
  name,
  inputSchema: { type: 'object' },
  ...(ui || flat ? { _meta: { ...(ui ? { ui } : {}), ...(flat ? { 'ui/resourceUri': flat } : {}) } } : {}),
});
const index = (entries: Array<[string, JsonObject]>): Map<string, PassthroughTool> =>
  new Map(entries.map(([server, t]) => [String(t.name), { server, name: String(t.name), tool: t }]));

describe('extensions as capabilities carry them', () => {
  test('every extension but tasks, with its settings; none where there are none', () => {
    const caps = {
      roots: {},
      extensions: {
        [UI]: { mimeTypes: ['text/html;profile=mcp-app'] },
        'io.modelcontextprotocol/tasks': {},
        'x/y': { a: 1 },
      },
    };
    assert.deepEqual(carriedExtensions(caps), { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] }, 'x/y': { a: 1 } });
    assert.equal(carriedExtensions({ extensions: { 'io.modelcontextprotocol/tasks': {} } }), undefined);
    assert.equal(carriedExtensions({ extensions: { 'x/y': 'not settings' } }), undefined);
    assert.equal(carriedExtensions({}), undefined);
    assert.equal(declaresUi(caps), true);
    assert.equal(declaresUi({ extensions: { 'x/y': {} } }), false);
  });

  test('visibility: absent or naming "model" is the model’s; ["app"] is not', () => {
    assert.equal(modelVisible(tool('a')), true);
    assert.equal(modelVisible(tool('a', { resourceUri: 'ui://x' })), true);
    assert.equal(modelVisible(tool('a', { visibility: ['model', 'app'] })), true);
    assert.equal(modelVisible(tool('a', { visibility: ['app'] })), false);
    assert.equal(modelVisible(tool('a', { visibility: [] })), false);
  });

  test('both spellings of a tool’s app URI are mapped, and a tool with nothing to map is itself', () => {
    const t = tool('a', { resourceUri: 'ui://x/v.html', visibility: ['app'] }, 'ui://x/v.html');
    const mapped = withAppUri(t, (u) => u.replace('ui://', 'ui://mcpx/s/'));
    assert.deepEqual(mapped._meta, {
      ui: { resourceUri: 'ui://mcpx/s/x/v.html', visibility: ['app'] },
      'ui/resourceUri': 'ui://mcpx/s/x/v.html',
    });
    assert.deepEqual(t._meta, {
      ui: { resourceUri: 'ui://x/v.html', visibility: ['app'] },
      'ui/resourceUri': 'ui://x/v.html',
    });
    assert.equal(
      withAppUri(t, (u) => u),
      t,
    );
    const plain = tool('b');
    assert.equal(
      withAppUri(plain, () => 'ui://other'),
      plain,
    );
  });
});

describe('the ui:// URIs of pass-through servers', () => {
  const shared = 'ui://app/view.html';
  const apps = AppUris.of(
    index([
      ['a', tool('a_show', { resourceUri: shared })],
      ['b/c', tool('b_show', { resourceUri: shared })],
      ['b/c', tool('b_only', undefined, 'ui://only-b/v.html')],
      ['a', tool('a_text')],
    ]),
    ['a', 'b/c'],
  );

  test('a URI two servers name is shown per server; one only its server names stays as written', () => {
    assert.equal(apps.shown('a', shared), 'ui://mcpx/a/app/view.html');
    assert.equal(apps.shown('b/c', shared), 'ui://mcpx/b%2Fc/app/view.html');
    assert.equal(apps.shown('b/c', 'ui://only-b/v.html'), 'ui://only-b/v.html');
    // Another server's resource under a URI b's tools name is shown qualified by its own server.
    assert.equal(apps.shown('a', 'ui://only-b/v.html'), 'ui://mcpx/a/only-b/v.html');
    assert.equal(apps.shown('a', 'ui://nobody/v.html'), 'ui://nobody/v.html');
    assert.equal(apps.shown('a', 'file:///x'), 'file:///x');
  });

  test('a shown URI reads at its own server, under the URI the server wrote', () => {
    assert.deepEqual(apps.locate('ui://mcpx/a/app/view.html'), { server: 'a', uri: shared });
    assert.deepEqual(apps.locate('ui://mcpx/b%2Fc/app/view.html'), { server: 'b/c', uri: shared });
    assert.deepEqual(apps.locate('ui://only-b/v.html'), { server: 'b/c', uri: 'ui://only-b/v.html' });
    // Two owners, no owner, a server not passed through, a bad escape: the ordinary routing decides.
    assert.equal(apps.locate(shared), undefined);
    assert.equal(apps.locate('ui://nobody/v.html'), undefined);
    assert.equal(apps.locate('ui://mcpx/zz/app/view.html'), undefined);
    assert.equal(apps.locate('ui://mcpx/%E0%A4%A/x'), undefined);
    assert.equal(apps.locate('ui://mcpx/a'), undefined);
  });

  test('the list a client gets: sorted, app-only tools only for a host, URIs as shown', () => {
    const idx = index([
      ['a', tool('z_show', { resourceUri: shared })],
      ['a', tool('a_refresh', { resourceUri: shared, visibility: ['app'] })],
      ['b', tool('m_show', { resourceUri: shared })],
    ]);
    const uris = AppUris.of(idx, ['a', 'b']);
    const model = listedTools(idx, uris, {});
    assert.deepEqual(
      model.map((t) => t.name),
      ['m_show', 'z_show'],
    );
    const host = listedTools(idx, uris, { extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } });
    assert.deepEqual(
      host.map((t) => [t.name, (t._meta as { ui: { resourceUri: string } }).ui.resourceUri]),
      [
        ['a_refresh', 'ui://mcpx/a/app/view.html'],
        ['m_show', 'ui://mcpx/b/app/view.html'],
        ['z_show', 'ui://mcpx/a/app/view.html'],
      ],
    );
  });
});
