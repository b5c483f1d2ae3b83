// A decision shown as a QuickPick: the actions first, then what the person should see before choosing
// (non-actions; picking one does nothing). Used where a modal dialog would be the obvious choice: a
// QuickPick does not block the window, can be closed when the question is withdrawn, and is the same
// widget every other question uses. Resolves with the action chosen, or undefined when dismissed or
// withdrawn.
import * as vscode from 'vscode';

export function choose(
  title: string,
  placeholder: string,
  actions: string[],
  info: Array<{ label: string; detail?: string }>,
  signal: AbortSignal,
): Promise<string | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { action?: string }>();
    qp.title = title;
    qp.placeholder = placeholder;
    qp.ignoreFocusOut = true;
    qp.matchOnDetail = true;
    qp.items = [
      ...actions.map((a) => ({ label: a, action: a })),
      { label: 'Details', kind: vscode.QuickPickItemKind.Separator },
      ...info.map((i) => ({ label: i.label, detail: i.detail })),
    ];
    let chosen: string | undefined;
    const onAbort = () => qp.hide();
    signal.addEventListener('abort', onAbort, { once: true });
    qp.onDidAccept(() => {
      const a = qp.activeItems[0]?.action;
      if (!a) return;
      chosen = a;
      qp.hide();
    });
    qp.onDidHide(() => {
      signal.removeEventListener('abort', onAbort);
      qp.dispose();
      resolve(chosen);
    });
    qp.show();
  });
}
