// Activation: the extension starts on startup, its endpoint answers, every command is there.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { mcp, test } from './harness';
import { until } from '../harness/wait';

export const activates =
  test('activates on startup and the endpoint answers; every command is registered', async (x) => {
    const url = await until(() => x.endpoint(), { what: 'the endpoint', every: 100 });
    const discover = await mcp(url, 'server/discover');
    assert.ok(Array.isArray(discover.supportedVersions));
    const all = await vscode.commands.getCommands(true);
    for (const id of [
      'mcpx.callTool',
      'mcpx.restartUpstream',
      'mcpx.showLog',
      'mcpx.copyEndpoint',
      'mcpx.copyClientConfig',
      'mcpx.installCli',
      'mcpx.uninstallCli',
      'mcpx.menu',
    ])
      assert.ok(all.includes(id), id);
  });
