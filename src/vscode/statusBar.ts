// The status bar item: state, upstream count and port; a click opens the menu of common commands.
import * as vscode from 'vscode';
import type { GatewayHost } from './gatewayHost';

export function statusBar(host: GatewayHost): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('mcpx.status', vscode.StatusBarAlignment.Right, 100);
  item.name = 'mcpx';
  item.command = 'mcpx.menu';
  const render = () => {
    const url = host.bareEndpoint;
    const st = host.gateway?.servers() ?? [];
    const up = st.filter((s) => s.state === 'running').length;
    const failed = st.filter((s) => s.state === 'failed').length;
    item.text = url
      ? `$(plug) mcpx :${new URL(url).port} · ${up}/${st.length}${failed ? ` $(warning) ${failed}` : ''}`
      : '$(debug-disconnect) mcpx stopped';
    item.tooltip = url
      ? `mcpx gateway at ${url}: ${st.length} upstream(s), ${up} running${failed ? `, ${failed} failed` : ''} — click for commands`
      : `The mcpx gateway is not running: ${host.whyStopped}`;
  };
  render();
  item.show();
  const sub = host.onDidChange(render);
  return vscode.Disposable.from(item, sub);
}
