// The tree views of the mcpx view container: Upstreams (state, revision, transport; tools, prompts and
// resources as children), Questions (what waits at the broker, answerable until its deadline) and
// Subscriptions (URI, upstream, watchers, last update). They read the gateway and refresh on its events.
import * as vscode from 'vscode';
import type { JsonObject } from '../protocol/jsonrpc';
import type { GatewayHost } from './gatewayHost';

export const EDITOR_IDENTITY = 'mcpx:editor';

type Node =
  | { kind: 'server'; name: string; state: string; detail: string; error?: string }
  | { kind: 'group'; server: string; list: 'tools' | 'prompts' | 'resources' }
  | { kind: 'item'; server: string; list: 'tools' | 'prompts' | 'resources'; item: JsonObject }
  | { kind: 'note'; text: string };

const STATE_ICON: Record<string, string> = {
  running: 'pass-filled',
  starting: 'loading~spin',
  failed: 'error',
  stopped: 'circle-outline',
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
        t.contextValue = `mcpx.server.${n.state}`;
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
        if (n.list === 'tools')
          t.command = { command: 'mcpx.callTool', title: 'Call Tool…', arguments: [n.server, name] };
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
      if (st.length === 0)
        return [{ kind: 'note', text: 'No upstream servers: add them to .vscode/mcp.json or mcpx.servers' }];
      return st.map((s) => ({
        kind: 'server',
        name: s.name,
        state: s.state,
        detail: [s.state === 'failed' ? `failed: ${s.lastError ?? ''}` : s.state, s.revision, s.transport]
          .filter(Boolean)
          .join(' · '),
        error: s.lastError,
      }));
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
}

/** A flat list view over rows the gateway gives. Disposed with the extension (its timer with it). */
class RowsTree implements vscode.TreeDataProvider<Row>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly timer: NodeJS.Timeout;
  private readonly sub: vscode.Disposable;

  constructor(
    host: GatewayHost,
    private readonly rows: () => Row[],
  ) {
    this.sub = host.onDidChange(() => this.changed.fire());
    // Ages and deadlines move on their own.
    this.timer = setInterval(() => this.changed.fire(), 5000);
    this.timer.unref?.();
  }

  dispose(): void {
    clearInterval(this.timer);
    this.sub.dispose();
    this.changed.dispose();
  }

  getTreeItem(r: Row): vscode.TreeItem {
    const t = new vscode.TreeItem(r.label, vscode.TreeItemCollapsibleState.None);
    t.description = r.description;
    t.tooltip = r.tooltip;
    t.command = r.command;
    return t;
  }

  getChildren(r?: Row): Row[] {
    return r ? [] : this.rows();
  }
}

const ago = (t: number) => `${Math.max(0, Math.round((Date.now() - t) / 1000))} s ago`;

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

/** Background calls (a 2026-07-28 client's call running on between its retries): status and age;
 *  a click offers its result or cancelling it. */
export function tasksTree(host: GatewayHost): RowsTree {
  return new RowsTree(host, () =>
    (host.background?.list() ?? []).map((c) => ({
      label: c.label,
      description: [
        c.status,
        c.progress
          ? `${c.progress.progress}${c.progress.total !== undefined ? `/${c.progress.total}` : ''}`
          : undefined,
        `started ${ago(c.startedAt)}`,
        c.rounds ? `${c.rounds} round${c.rounds === 1 ? '' : 's'} of questions` : undefined,
      ]
        .filter(Boolean)
        .join(' · '),
      tooltip: `background call ${c.id}`,
      command: { command: 'mcpx.task', title: 'Task…', arguments: [c.id] },
    })),
  );
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
