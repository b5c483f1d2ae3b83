// A flat list view over rows the gateway gives (Questions, Tasks, Subscriptions): refreshed when the
// gateway changes and every few seconds (ages, deadlines and progress move on their own). Disposed with
// the extension, its timer with it.
import type * as vscode from 'vscode';
import { type Disposable, Emitter, type Event } from '../lifetimes';
import type { Kit } from '../ports';

export interface Row {
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

export type RowKit = Pick<Kit, 'TreeItem' | 'TreeItemCollapsibleState' | 'ThemeIcon' | 'ThemeColor'>;

export class RowsTree<R extends Row = Row> implements vscode.TreeDataProvider<Row>, Disposable {
  private readonly changed = new Emitter();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly timer: NodeJS.Timeout;
  private readonly subs: Disposable[];

  constructor(
    private readonly kit: RowKit,
    /** What changes the rows. */
    changes: Array<Event<void>>,
    private readonly rows: () => R[],
    everyMs = 5000,
  ) {
    this.subs = changes.map((on) => on(() => this.changed.fire()));
    this.timer = setInterval(() => this.changed.fire(), everyMs);
    this.timer.unref?.();
  }

  dispose(): void {
    clearInterval(this.timer);
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }

  getTreeItem(r: Row): vscode.TreeItem {
    const { TreeItem, TreeItemCollapsibleState: Collapsible, ThemeIcon, ThemeColor } = this.kit;
    const t = new TreeItem(r.label, r.children?.length ? Collapsible.Expanded : Collapsible.None);
    t.description = r.description;
    t.tooltip = r.tooltip;
    t.command = r.command;
    if (r.icon) t.iconPath = new ThemeIcon(r.icon.id, r.icon.color ? new ThemeColor(r.icon.color) : undefined);
    if (r.contextValue) t.contextValue = r.contextValue;
    if (r.key) t.id = r.key;
    return t;
  }

  getChildren(r?: Row): Row[] {
    return r ? (r.children ?? []) : this.rows();
  }
}

/** How long ago, as the rows say it. */
export const ago = (t: number): string => {
  const s = Math.max(0, Math.round((Date.now() - t) / 1000));
  return s < 120 ? `${s} s ago` : s < 7200 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
};
