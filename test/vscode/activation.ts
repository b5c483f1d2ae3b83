// Activation: the extension starts on startup, its endpoint answers, every command is there.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { mcp, test, until } from './harness';

export const activates =
  test('activates on startup and the endpoint answers; every command is registered', async (x) => {
    const url = await until('the endpoint', () => x.endpoint());
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
