// The Subscriptions view: a resource an agent subscribes to, its upstream, watchers and last update.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { call, drive, test, until } from './harness';

export const subscriptionsView =
  test('the Subscriptions view: the subscribed URI, its upstream, watchers and last update', async (x) => {
    const url = x.endpoint()!;
    const ctl = new AbortController();
    const res = await fetch(url, {
      method: 'POST',
      signal: ctl.signal,
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2026-07-28',
        'Mcp-Method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'watch-1',
        method: 'subscriptions/listen',
        params: {
          notifications: { resourceSubscriptions: ['mcpx://up/fixture://doc'] },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('acknowledged')) text += new TextDecoder().decode((await reader.read()).value);
    const rows = async () => (await x.subscriptions.getChildren()) as Array<{ label: string; description: string }>;
    assert.deepEqual(
      (await rows()).map((r) => [r.label, r.description]),
      [['fixture://doc', 'up · 1 watcher']],
    );
    await call(url, 'touch', { uri: 'fixture://doc' });
    await until('the last update shown', async () =>
      (await rows())[0]?.description.includes('updated') ? true : undefined,
    );
    await vscode.commands.executeCommand('mcpx.subscriptions.focus');
    drive({ shot: 'subscriptions-view' });
    await new Promise((r) => setTimeout(r, 1200));
    ctl.abort();
    await until('the watch released', async () => ((await rows()).length === 0 ? true : undefined));
  });
