// The Questions view: what waits at the broker for any answerer, answerable until its deadline. Its badge
// (on the mcpx view container too) counts the questions waiting, and a question that starts waiting while
// the view is out of sight is announced, so it is not left to its deadline unseen.
import type * as vscode from 'vscode';
import { APPROVAL_METHOD } from '../../gateway/inbox/broker';
import type { GatewayEvent, GatewayFacade } from '../../gateway/editorPort';
import { type Disposable, type Lifetimes, disposable } from '../lifetimes';
import type { EditorCommands, EditorWindow, GatewayRun, GatewayState } from '../ports';
import { type RowKit, RowsTree, ago } from './rows';

export function questionsTree(host: GatewayState, kit: RowKit): RowsTree {
  return new RowsTree(kit, [host.onDidChange], () =>
    (host.gateway?.questions() ?? []).map((q) => ({
      label: typeof q.params.message === 'string' ? q.params.message : `${q.server}: ${q.method}`,
      description: `${q.method === APPROVAL_METHOD ? 'approval' : q.method} · ${Math.max(0, Math.round((q.deadline - Date.now()) / 1000))} s left`,
      tooltip: `waiting since ${ago(q.createdAt)} — ${q.reason}`,
      command: { command: 'mcpx.answerQuestion', title: 'Answer', arguments: [q.id] },
    })),
  );
}

type Window = Pick<EditorWindow, 'showInformationMessage'> & Pick<typeof vscode.window, 'createTreeView'>;

export interface QuestionsView extends Disposable {
  readonly view: vscode.TreeView<unknown>;
  /** How many questions were announced by a notification. */
  readonly announced: number;
}

/** The view made with its badge; each gateway run's questions announced while it is hidden. */
export function questionsView(
  window: Window,
  commands: EditorCommands,
  host: GatewayState,
  life: Lifetimes<GatewayRun>,
  provider: vscode.TreeDataProvider<unknown>,
): QuestionsView {
  const view = window.createTreeView('mcpx.questions', { treeDataProvider: provider });
  let announced = 0;
  const render = () => {
    const n = host.gateway?.questions().length ?? 0;
    view.badge = n ? { value: n, tooltip: `${n} question${n === 1 ? '' : 's'} waiting for an answer` } : undefined;
  };
  const announce = (g: GatewayFacade, e: GatewayEvent) => {
    if (e.type !== 'question' || e.state !== 'asked' || view.visible) return;
    // Only a question that waits in the view (not one shown to the person right now, nor one a client takes).
    if (!g.questions().some((q) => q.id === e.id)) return;
    announced++;
    void window
      .showInformationMessage(
        `mcpx: ${e.server} asks a question (${e.method}); it waits in the Questions view.`,
        'Show Questions',
      )
      .then((pick) => pick && commands.executeCommand('mcpx.showQuestions'));
  };
  life.perRun(({ gateway }) => [disposable(gateway.onEvent((e) => announce(gateway, e)))]);
  const sub = host.onDidChange(render);
  render();
  return {
    view,
    get announced() {
      return announced;
    },
    dispose: () => {
      sub.dispose();
      view.dispose();
    },
  };
}
