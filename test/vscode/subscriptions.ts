// The Subscriptions view: a resource an agent subscribes to, its upstream, watchers and last update.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { call, driven, test } from './harness';
import { until } from '../harness/wait';

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
    await until(async () => ((await rows())[0]?.description.includes('updated') ? true : undefined), {
      what: 'the last update shown',
      every: 100,
    });
    await vscode.commands.executeCommand('mcpx.subscriptions.focus');
    await driven({ shot: 'subscriptions-view' });
    ctl.abort();
    await until(async () => ((await rows()).length === 0 ? true : undefined), {
      what: 'the watch released',
      every: 100,
    });
  });
