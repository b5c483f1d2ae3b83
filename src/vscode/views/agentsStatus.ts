// The agents status item: how many agents on this machine are connected to the gateway (their config
// files have mcpx's entry), each named in the tooltip. One whose entry was changed or removed by hand since
// mcpx wrote it (drift) turns the item to the warning colours, and a click repairs it
// (mcpx.repairAgents); otherwise a click opens Connect Agents…. The files are looked at again every few
// seconds, read only when one of them changed.
import { statSync } from 'node:fs';
import type * as vscode from 'vscode';
import type { ClientRow } from '../../connect/engine';
import { printable } from '../../kit/printable';
import type { Disposable } from '../lifetimes';
import type { Kit } from '../ports';

type Window = Pick<typeof vscode.window, 'createStatusBarItem'>;
type StatusKit = Pick<Kit, 'ThemeColor'> & Pick<typeof vscode, 'StatusBarAlignment'>;

export interface AgentsSource {
  /** Every client as `mcpx connect --list` sees it. */
  list(): Promise<ClientRow[]>;
  /** Files whose change means the list may have changed (the clients' and mcpx's records). */
  watched(rows: readonly ClientRow[]): string[];
}

const signature = (files: readonly string[]) =>
  files
    .map((f) => {
      try {
        const s = statSync(f);
        return `${s.mtimeMs}:${s.size}`;
      } catch {
        return '-';
      }
    })
    .join('|');

export function agentsStatus(
  window: Window,
  kit: StatusKit,
  source: AgentsSource,
  every = 3000,
): Disposable & { item: vscode.StatusBarItem; refresh(): Promise<void> } {
  const item = window.createStatusBarItem('mcpx.agents', kit.StatusBarAlignment.Right, 99);
  item.name = 'mcpx agents';
  let seen: string | undefined;
  let files: string[] = [];
  const render = (rows: readonly ClientRow[]) => {
    const connected = rows.filter((r) => r.connected || r.drift);
    const drift = rows.filter((r) => r.drift);
    if (!connected.length && !rows.some((r) => r.present)) return void item.hide();
    item.text = drift.length
      ? `$(warning) agents ${connected.length - drift.length}/${connected.length}`
      : `$(link) agents ${connected.length}`;
    item.command = drift.length ? 'mcpx.repairAgents' : 'mcpx.connectAgents';
    item.backgroundColor = drift.length ? new kit.ThemeColor('statusBarItem.warningBackground') : undefined;
    item.tooltip = [
      connected.length ? 'Agents connected to the mcpx gateway:' : 'No agent is connected to the mcpx gateway.',
      ...connected.map((r) =>
        printable(r.drift ? `${r.name}: mcpx's entry was ${r.drift} by hand in ${r.file}` : `${r.name}: ${r.file}`),
      ),
      drift.length ? 'Click to write the entry again.' : 'Click to connect agents.',
    ].join('\n');
    item.show();
  };
  const refresh = async () => {
    const now = signature(files);
    if (now === seen && files.length) return;
    const rows = await source.list();
    files = source.watched(rows);
    seen = signature(files);
    render(rows);
  };
  const timer = setInterval(() => void refresh().catch(() => undefined), every);
  timer.unref?.();
  return {
    item,
    refresh,
    dispose: () => {
      clearInterval(timer);
      item.dispose();
    },
  };
}
