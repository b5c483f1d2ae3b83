// The status bar item: state, upstream count and port; a click opens the menu of common commands. An
// upstream that failed turns it to the warning colours, and its tooltip names which.
import type * as vscode from 'vscode';
import type { Disposable } from '../lifetimes';
import type { GatewayState, Kit } from '../ports';

type Window = Pick<typeof vscode.window, 'createStatusBarItem'>;
type StatusKit = Pick<Kit, 'ThemeColor'> & Pick<typeof vscode, 'StatusBarAlignment'>;

export function statusBar(
  window: Window,
  kit: StatusKit,
  host: GatewayState,
): Disposable & { item: vscode.StatusBarItem } {
  const item = window.createStatusBarItem('mcpx.status', kit.StatusBarAlignment.Right, 100);
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
    item.backgroundColor = failed.length ? new kit.ThemeColor('statusBarItem.warningBackground') : undefined;
  };
  render();
  item.show();
  const sub = host.onDidChange(render);
  return {
    item,
    dispose: () => {
      sub.dispose();
      item.dispose();
    },
  };
}
