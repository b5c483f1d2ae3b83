// The Questions view as a TreeView: its badge (on the mcpx view container too) counts the questions
// waiting, and a question that starts waiting while the view is out of sight is announced, so it is not
// left to its deadline unseen.
import * as vscode from 'vscode';
import type { GatewayHost } from './gatewayHost';

export function questionsView(
  host: GatewayHost,
  provider: vscode.TreeDataProvider<unknown>,
): vscode.Disposable & { view: vscode.TreeView<unknown>; announced: number } {
  const view = vscode.window.createTreeView('mcpx.questions', { treeDataProvider: provider });
  const out = {
    view,
    /** How many questions were announced by a notification. */
    announced: 0,
    dispose: () => {
      for (const s of subs) s.dispose();
      view.dispose();
    },
  };
  const render = () => {
    const n = host.gateway?.questions().length ?? 0;
    view.badge = n ? { value: n, tooltip: `${n} question${n === 1 ? '' : 's'} waiting for an answer` } : undefined;
  };
  const subs = [
    host.onDidChange(render),
    host.onEvent((e) => {
      if (e.type !== 'question' || e.state !== 'asked' || view.visible) return;
      // Only a question that waits in the view (not one shown to the person right now, nor one a client takes).
      if (!host.gateway?.questions().some((q) => q.id === e.id)) return;
      out.announced++;
      void vscode.window
        .showInformationMessage(
          `mcpx: ${e.server} asks a question (${e.method}); it waits in the Questions view.`,
          'Show Questions',
        )
        .then((pick) => pick && vscode.commands.executeCommand('mcpx.showQuestions'));
    }),
  ];
  render();
  return out;
}
