// The status bar item: state, upstream count and port; a click opens the menu of common commands. An
// upstream that failed turns it to the warning colours, and its tooltip names which.
import * as vscode from 'vscode';
import type { GatewayHost } from './gatewayHost';

export function statusBar(host: GatewayHost): vscode.Disposable & { item: vscode.StatusBarItem } {
  const item = vscode.window.createStatusBarItem('mcpx.status', vscode.StatusBarAlignment.Right, 100);
  item.name = 'mcpx';
  item.command = 'mcpx.menu';
  const render = () => {
    const url = host.bareEndpoint;
    const st = host.gateway?.servers() ?? [];
    const up = st.filter((s) => s.state === 'running').length;
    const failed = st.filter((s) => s.state === 'failed');
    item.text = url
      ? `$(plug) mcpx :${new URL(url).port} · ${up}/${st.length}${failed.length ? ` $(warning) ${failed.length}` : ''}`
      : '$(debug-disconnect) mcpx stopped';
    item.tooltip = url
      ? [
          `mcpx gateway at ${url}: ${st.length} upstream(s), ${up} running`,
          ...failed.map((s) => `${s.name} failed${s.lastError ? `: ${s.lastError}` : ''}`),
          'Click for commands.',
        ].join('\n')
      : `The mcpx gateway is not running: ${host.whyStopped}`;
    item.backgroundColor = failed.length ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  };
  render();
  item.show();
  const sub = host.onDidChange(render);
  return Object.assign(vscode.Disposable.from(item, sub), { item });
}
