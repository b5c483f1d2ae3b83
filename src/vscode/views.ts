// The tree views of the mcpx view container: Upstreams (state, revision, transport; tools, prompts and
// resources as children), Questions (what waits at the broker, answerable until its deadline), Tasks
// (the gateway's tasks of both eras, background calls, palette calls sent to the background) and
// Subscriptions (URI, upstream, watchers, last update). They read the gateway and refresh on its events.
import * as vscode from 'vscode';
import type { RunView, SignInState, TaskView } from '../gateway/facade';
import type { JsonObject } from '../protocol/jsonrpc';
import { LATEST_LEGACY, MODERN } from '../protocol/revisions';
import type { GatewayHost } from './gatewayHost';
import { trustCues } from './toolTrust';

export const EDITOR_IDENTITY = 'mcpx:editor';

type Node =
  | { kind: 'server'; name: string; state: string; detail: string; error?: string; signIn: SignInState }
  | { kind: 'group'; server: string; list: 'tools' | 'prompts' | 'resources' }
  | { kind: 'item'; server: string; list: 'tools' | 'prompts' | 'resources'; item: JsonObject }
  | { kind: 'note'; text: string };

const STATE_ICON: Record<string, string> = {
  running: 'pass-filled',
  starting: 'loading~spin',
  failed: 'error',
  'needs-sign-in': 'account',
  stopped: 'circle-outline',
};

/** How a server's sign-in reads in the tree, and the suffix its menus key on (package.json "menus"). */
const SIGN_IN: Record<SignInState, { word?: string; context: string }> = {
  'signed-in': { word: 'signed in', context: '.signedIn' },
  'needs-sign-in': { word: 'needs sign-in', context: '.needsSignIn' },
  'signing-in': { word: 'signing in…', context: '' },
  'not-needed': { context: '' },
};

export class UpstreamsTree implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly host: GatewayHost) {
    host.onDidChange(() => this.changed.fire());
  }

  getTreeItem(n: Node): vscode.TreeItem {
    switch (n.kind) {
      case 'server': {
        const t = new vscode.TreeItem(n.name, vscode.TreeItemCollapsibleState.Collapsed);
        t.description = n.detail;
        t.tooltip = n.error ? `${n.name}: ${n.state} — ${n.error}` : `${n.name}: ${n.state}`;
        t.iconPath = new vscode.ThemeIcon(STATE_ICON[n.state] ?? 'circle-outline');
        t.contextValue = `mcpx.server.${n.state}${SIGN_IN[n.signIn].context}`;
        t.id = `server:${n.name}`;
        return t;
      }
      case 'group': {
        const t = new vscode.TreeItem(n.list, vscode.TreeItemCollapsibleState.Collapsed);
        t.id = `group:${n.server}:${n.list}`;
        return t;
      }
      case 'item': {
        const name = String(n.item.name ?? n.item.uri);
        const t = new vscode.TreeItem(name, vscode.TreeItemCollapsibleState.None);
        t.description = typeof n.item.title === 'string' ? n.item.title : undefined;
        t.tooltip = typeof n.item.description === 'string' ? n.item.description : name;
        t.contextValue = `mcpx.${n.list}`;
        if (n.list === 'tools') {
          t.command = { command: 'mcpx.callTool', title: 'Call Tool…', arguments: [n.server, name] };
          const cues = trustCues(n.item);
          t.description = [t.description, ...cues.words].filter(Boolean).join(' · ') || undefined;
          t.tooltip = [t.tooltip, '', ...cues.tooltip].join('\n');
          t.iconPath = new vscode.ThemeIcon(cues.icon ?? 'tools');
        }
        return t;
      }
      case 'note':
        return new vscode.TreeItem(n.text, vscode.TreeItemCollapsibleState.None);
    }
  }

  async getChildren(n?: Node): Promise<Node[]> {
    const g = this.host.gateway;
    if (!g) return [{ kind: 'note', text: `The gateway is not running: ${this.host.whyStopped}` }];
    if (!n) {
      const st = g.servers();
      // Empty, the view shows its welcome content (package.json viewsWelcome): what goes here, Add Server.
      if (st.length === 0) return [];
      return st.map((s) => {
        const signIn = g.signInState(s.name);
        const state = signIn === 'needs-sign-in' && s.state !== 'running' ? 'needs-sign-in' : s.state;
        return {
          kind: 'server',
          name: s.name,
          state,
          signIn,
          detail: [
            s.state === 'failed' ? `failed: ${s.lastError ?? ''}` : state === 'needs-sign-in' ? undefined : s.state,
            SIGN_IN[signIn].word,
            s.revision,
            s.transport,
          ]
            .filter(Boolean)
            .join(' · '),
          error: s.lastError,
        };
      });
    }
    if (n.kind === 'server')
      return (['tools', 'prompts', 'resources'] as const).map((list) => ({ kind: 'group', server: n.name, list }));
    if (n.kind === 'group') {
      try {
        const items = await g.serverList(n.server, n.list, EDITOR_IDENTITY);
        return items.length
          ? items.map((item) => ({ kind: 'item', server: n.server, list: n.list, item }))
          : [{ kind: 'note', text: `no ${n.list}` }];
      } catch (e) {
        return [{ kind: 'note', text: (e as Error).message }];
      }
    }
    return [];
  }
}

interface Row {
  label: string;
  description: string;
  tooltip: string;
  command?: vscode.Command;
  /** A codicon, and a theme colour for it. */
  icon?: { id: string; color?: string };
  /** For the view's menus (package.json contributes.menus "view/item/context"). */
  contextValue?: string;
  /** Stays the same across refreshes, so the row keeps its selection and focus. */
  key?: string;
  /** Rows under this one (shown expanded): an mcpx_exec script's calls. */
  children?: Row[];
}

/** A flat list view over rows the gateway gives. Disposed with the extension (its timer with it). */
class RowsTree<R extends Row = Row> implements vscode.TreeDataProvider<Row>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly timer: NodeJS.Timeout;
  private readonly sub: vscode.Disposable;

  constructor(
    host: GatewayHost,
    private readonly rows: () => R[],
    everyMs = 5000,
  ) {
    this.sub = host.onDidChange(() => this.changed.fire());
    // Ages, deadlines and progress move on their own.
    this.timer = setInterval(() => this.changed.fire(), everyMs);
    this.timer.unref?.();
  }

  dispose(): void {
    clearInterval(this.timer);
    this.sub.dispose();
    this.changed.dispose();
  }

  getTreeItem(r: Row): vscode.TreeItem {
    const t = new vscode.TreeItem(
      r.label,
      r.children?.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
    );
    t.description = r.description;
    t.tooltip = r.tooltip;
    t.command = r.command;
    if (r.icon)
      t.iconPath = new vscode.ThemeIcon(r.icon.id, r.icon.color ? new vscode.ThemeColor(r.icon.color) : undefined);
    if (r.contextValue) t.contextValue = r.contextValue;
    if (r.key) t.id = r.key;
    return t;
  }

  getChildren(r?: Row): Row[] {
    return r ? (r.children ?? []) : this.rows();
  }
}

const ago = (t: number) => {
  const s = Math.max(0, Math.round((Date.now() - t) / 1000));
  return s < 120 ? `${s} s ago` : s < 7200 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
};

export function questionsTree(host: GatewayHost): RowsTree {
  return new RowsTree(host, () =>
    (host.gateway?.questions() ?? []).map((q) => ({
      label: typeof q.params.message === 'string' ? q.params.message : `${q.server}: ${q.method}`,
      description: `${q.method} · ${Math.max(0, Math.round((q.deadline - Date.now()) / 1000))} s left`,
      tooltip: `waiting since ${ago(q.createdAt)} — ${q.reason}`,
      command: { command: 'mcpx.answerQuestion', title: 'Answer', arguments: [q.id] },
    })),
  );
}

/** What a Tasks view row is: a task of the gateway (either era), a 2026-07-28 client's background call
 *  that is not a task, a palette call the person sent to the background, or a running mcpx_exec script
 *  (its calls so far under it). */
export type TaskKind = 'task' | 'background' | 'palette' | 'exec';
export type TaskState = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
export interface TaskRow extends Row {
  kind: TaskKind;
  id: string;
  state: TaskState;
}

const TASK_STATE: Record<TaskState, { word: string; icon: string; color?: string }> = {
  working: { word: 'working', icon: 'sync~spin' },
  input_required: { word: 'waiting for input', icon: 'question', color: 'notificationsWarningIcon.foreground' },
  completed: { word: 'completed', icon: 'check', color: 'testing.iconPassed' },
  failed: { word: 'failed', icon: 'error', color: 'testing.iconFailed' },
  cancelled: { word: 'cancelled', icon: 'circle-slash', color: 'disabledForeground' },
};
const BACKGROUND_STATE: Record<string, TaskState> = {
  running: 'working',
  'waiting for input': 'input_required',
  completed: 'completed',
  failed: 'failed',
};
/** A background call's status as a task state. */
export const backgroundState = (status: string): TaskState => BACKGROUND_STATE[status] ?? 'working';
/** A state as the view says it. */
export const stateWord = (s: TaskState): string => TASK_STATE[s].word;
const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(['completed', 'failed', 'cancelled']);

const progressText = (p?: { progress: number; total?: number }) =>
  p ? `${p.progress}${p.total !== undefined ? `/${p.total}` : ''}` : undefined;

/** One row: the tool as label; server (where known), status, client, progress and age as description;
 *  an icon and a context value per state (Cancel on running rows, Show Result on finished ones). A
 *  click on a task waiting for input opens the Questions view; on any other row, its actions. */
function taskRow(r: {
  kind: TaskKind;
  id: string;
  label: string;
  state: TaskState;
  server?: string;
  client?: string;
  progress?: { progress: number; total?: number };
  startedAt: number;
  endedAt?: number;
  rounds?: number;
  what: string;
  message?: string;
}): TaskRow {
  const st = TASK_STATE[r.state];
  const terminal = TERMINAL_STATES.has(r.state);
  const description = [
    r.server,
    st.word,
    r.client,
    terminal ? undefined : progressText(r.progress),
    terminal && r.endedAt !== undefined ? `ended ${ago(r.endedAt)}` : `started ${ago(r.startedAt)}`,
    r.rounds ? `${r.rounds} round${r.rounds === 1 ? '' : 's'} of questions` : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
  const toQuestions = r.kind === 'task' && r.state === 'input_required';
  return {
    kind: r.kind,
    id: r.id,
    state: r.state,
    key: `${r.kind}:${r.id}`,
    label: r.label,
    description,
    tooltip: [
      `${r.label} — ${st.word}${r.message ? `: ${r.message}` : ''}`,
      `${r.what} ${r.id}`,
      toQuestions ? 'A question no client can take waits in the Questions view (click).' : undefined,
    ]
      .filter(Boolean)
      .join('\n'),
    icon: { id: st.icon, color: st.color },
    contextValue: `mcpx.${r.kind}.${r.state}`,
    command: toQuestions
      ? { command: 'mcpx.showQuestions', title: 'Show Questions' }
      : { command: 'mcpx.task', title: 'Task…', arguments: [{ kind: r.kind, id: r.id }] },
  };
}

/** The Tasks view: every task of this gateway (both eras), the 2026-07-28 background calls that are not
 *  tasks, and the palette calls sent to the background; newest first. */
export function tasksTree(host: GatewayHost): RowsTree<TaskRow> {
  return new RowsTree<TaskRow>(
    host,
    () => {
      const tasks = host.tasks?.list(undefined) ?? [];
      const ofTasks = new Set<string>(tasks.map((t) => t.call.id));
      const rows: Array<{ at: number; row: TaskRow }> = [
        ...tasks.map((t: TaskView) => ({
          at: t.createdAt,
          row: taskRow({
            kind: 'task',
            id: t.id,
            label: t.info.label,
            state: t.status,
            client: t.info.client,
            progress: t.call.progress,
            startedAt: t.createdAt,
            endedAt: t.terminal ? t.updatedAt : undefined,
            what: `${t.info.era === 'legacy' ? LATEST_LEGACY : MODERN} task`,
            message: t.statusMessage,
          }),
        })),
        ...(host.background?.list() ?? [])
          .filter((c) => !ofTasks.has(c.id))
          .map((c) => ({
            at: c.startedAt,
            row: taskRow({
              kind: 'background',
              id: c.id,
              label: c.label,
              state: backgroundState(c.status),
              progress: c.progress,
              startedAt: c.startedAt,
              rounds: c.rounds,
              what: `${MODERN} background call`,
            }),
          })),
        ...host.detached.map((c) => ({
          at: c.startedAt,
          row: taskRow({
            kind: 'palette',
            id: c.id,
            label: `tools/call ${c.tool}`,
            state: c.status,
            server: c.server,
            client: 'palette',
            progress: c.progress,
            startedAt: c.startedAt,
            endedAt: c.endedAt,
            what: 'palette call run in the background',
            message: typeof c.outcome === 'string' ? c.outcome : undefined,
          }),
        })),
        ...(host.gateway?.runs() ?? []).map((r) => ({ at: r.startedAt, row: execRow(r) })),
      ];
      return rows.sort((a, b) => b.at - a.at).map((x) => x.row);
    },
    2000,
  );
}

/** A running mcpx_exec script and the calls it has made so far, each with its state (docs/exec.md
 *  "Tasks"). No action: the script ends with its call, its timeout, or its client's cancellation. */
function execRow(r: RunView): TaskRow {
  const st = TASK_STATE.working;
  const calls = r.calls.map(
    (c, i): Row => ({
      key: `exec:${r.id}:${i}`,
      label: c.label,
      description: TASK_STATE[c.state === 'running' ? 'working' : c.state].word,
      tooltip: `call ${r.total - r.calls.length + i + 1} of the script: ${c.label}`,
      icon: { id: TASK_STATE[c.state === 'running' ? 'working' : c.state].icon },
    }),
  );
  return {
    kind: 'exec',
    id: r.id,
    state: 'working',
    key: `exec:${r.id}`,
    label: 'mcpx_exec script',
    description: [st.word, r.client, `${r.total} call${r.total === 1 ? '' : 's'}`, `started ${ago(r.startedAt)}`]
      .filter(Boolean)
      .join(' · '),
    tooltip: `mcpx_exec script ${r.id} — ${st.word}`,
    icon: { id: st.icon },
    contextValue: 'mcpx.exec.working',
    children: calls,
  };
}

export function subscriptionsTree(host: GatewayHost): RowsTree {
  return new RowsTree(host, () =>
    (host.gateway?.watches() ?? []).map((w) => ({
      label: w.uri,
      description: `${w.server} · ${w.watchers} watcher${w.watchers === 1 ? '' : 's'}${w.lastUpdate ? ` · updated ${ago(w.lastUpdate)}` : ''}`,
      tooltip: `${w.uri} on ${w.server}`,
    })),
  );
}
