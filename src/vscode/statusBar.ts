// The status bar item: the endpoint, or why there is none; a click copies the endpoint.
import * as vscode from 'vscode';
import type { GatewayHost } from './gatewayHost';

export function statusBar(host: GatewayHost): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('mcpx.status', vscode.StatusBarAlignment.Right, 100);
  item.name = 'mcpx';
  item.command = 'mcpx.copyEndpoint';
  const render = () => {
    const url = host.endpoint;
    item.text = url ? `$(plug) mcpx :${new URL(url).port}` : '$(debug-disconnect) mcpx stopped';
    item.tooltip = url ? `mcpx gateway at ${url} — click to copy` : 'The mcpx gateway is not running';
  };
  render();
  item.show();
  const sub = host.onDidChange(render);
  return vscode.Disposable.from(item, sub);
}
