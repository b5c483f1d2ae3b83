// The Activity view (docs/gateway.md "Activity"): every call an agent made through this window's gateway
// — any client, any path — grouped by client, newest first, an icon per outcome. It follows the
// gateway's feed (ActivityFeed.onRecord) live; mcpx.filterActivity narrows it to one client or server;
// a row opens the record — its arguments (redacted) and its result — as a read-only JSON document; a
// call of a tool with an MCP App offers Show App (its context value `activity.app`; the row carries
// its record for the command).
import type { ActivityFilter, ActivityRecord, GatewayFacade } from '../../gateway/editorPort';
import { type Disposable, Emitter } from '../lifetimes';
import type { AppsPort, GatewayState } from '../ports';
import { type Row, type RowKit, RowsTree, ago } from './rows';

/** The newest records the view lists. */
const SHOWN = 200;

const ICONS: Record<ActivityRecord['outcome']['status'], { id: string; color?: string }> = {
  ok: { id: 'pass', color: 'testing.iconPassed' },
  isError: { id: 'warning', color: 'problemsWarningIcon.foreground' },
  error: { id: 'error', color: 'testing.iconFailed' },
  denied: { id: 'circle-slash', color: 'testing.iconFailed' },
  cancelled: { id: 'stop-circle' },
};

/** The client as a person reads it: its declared name (its own, untrusted word), else its identity. */
const clientOf = (r: ActivityRecord): string => r.client.name ?? r.client.identity;

/** Whether a server's tool has an MCP App, as far as the editor knows now. */
type HasApp = (server: string, tool: string) => boolean;

/** A call the guardrails flagged (docs/gateway.md "Guardrails"): its row says what was done — the
 *  strongest action — and its icon is the shield unless the call was refused outright. */
const DONE = { block: 'blocked', ask: 'asked', redact: 'redacted', log: 'logged' } as const;
const FLAGGED = { id: 'shield', color: 'problemsWarningIcon.foreground' };

function flagOf(r: ActivityRecord): string | undefined {
  const found = r.guardrails;
  if (!found?.length) return undefined;
  // The strongest action taken: the table is in that order.
  const action = (Object.keys(DONE) as (keyof typeof DONE)[]).find((a) => found.some((f) => f.action === a))!;
  return `guardrails: ${DONE[action]}`;
}

function recordRow(r: ActivityRecord, i: number, hasApp: HasApp): Row & { record: ActivityRecord } {
  const how = r.path === 'mcpx_exec' && r.run ? `mcpx_exec run ${r.run}` : r.path;
  const outcome = r.outcome.status === 'ok' ? 'ok' : r.outcome.status;
  const flag = flagOf(r);
  return {
    label: `${r.server}/${r.target}`,
    description: `${flag ? `${flag} · ` : ''}${outcome} · ${how} · ${ago(Date.parse(r.time))} · ${r.durationMs} ms`,
    tooltip: [
      `${r.kind} ${r.server}/${r.target} at ${r.time}`,
      `client: ${r.client.name ? `"${r.client.name}" ` : ''}${r.client.identity} (${r.client.transport}, ${r.client.revision})`,
      `decision: ${r.decision.action} by ${r.decision.rule}${r.decision.approvedBy ? ` (${r.decision.approvedBy})` : ''}`,
      `outcome: ${r.outcome.status}${r.outcome.message ? ` — ${r.outcome.message}` : ''}`,
      ...(r.taskId ? [`task: ${r.taskId}`] : []),
      ...(r.guardrails ?? []).map(
        (f) =>
          `guardrails: ${f.detector}/${f.kind}${f.count > 1 ? ` ×${f.count}` : ''} at ${f.where} — ${f.action} (${f.rule})`,
      ),
    ].join('\n'),
    icon: flag && r.outcome.status === 'ok' ? FLAGGED : ICONS[r.outcome.status],
    contextValue: r.kind === 'tool' && hasApp(r.server, r.target) ? 'activity.app' : 'activity',
    key: `${r.time}|${r.argsDigest}|${r.server}|${r.target}|${i}`,
    command: { title: 'Show the call', command: 'mcpx.showActivityRecord', arguments: [r] },
    record: r,
  };
}

/** Records grouped by client, the groups in the order of their newest record. */
export function activityRows(
  records: readonly ActivityRecord[],
  filter: ActivityFilter = {},
  hasApp: HasApp = () => false,
): Row[] {
  const groups = new Map<string, ActivityRecord[]>();
  for (const r of records) groups.set(clientOf(r), [...(groups.get(clientOf(r)) ?? []), r]);
  const rows: Row[] = [...groups].map(([client, list]) => ({
    label: client,
    description: `${list.length} call${list.length === 1 ? '' : 's'} · ${list[0]!.client.identity}`,
    tooltip: `${client}: its declared name (its own word) and identity ${list[0]!.client.identity}`,
    icon: { id: 'account' },
    key: `client:${client}`,
    children: list.map((r, i) => recordRow(r, i, hasApp)),
  }));
  const narrowed = [filter.client && `client ${filter.client}`, filter.server && `server ${filter.server}`].filter(
    Boolean,
  );
  if (narrowed.length)
    rows.unshift({
      label: `Only ${narrowed.join(' and ')}`,
      description: 'choose to show every call',
      tooltip: 'mcpx: Filter Activity…',
      icon: { id: 'filter' },
      key: 'filter',
      command: { title: 'Filter', command: 'mcpx.filterActivity' },
    });
  if (!records.length && !narrowed.length)
    rows.push({ label: 'No calls yet', description: 'agents’ calls through mcpx appear here', tooltip: '' });
  return rows;
}

export class ActivityView implements Disposable {
  filter: ActivityFilter = {};
  private readonly changed = new Emitter();
  readonly tree: RowsTree;
  private following?: GatewayFacade;
  private unfollow?: () => void;
  private readonly sub: Disposable;

  constructor(
    private readonly host: GatewayState,
    kit: RowKit,
    private readonly apps?: Pick<AppsPort, 'has' | 'onDidChange'>,
  ) {
    this.tree = new RowsTree(kit, [this.changed.event, ...(apps ? [apps.onDidChange] : [])], () => this.rows(), 30_000);
    this.sub = host.onDidChange(() => this.follow());
    this.follow();
  }

  /** The records of the running gateway, as the filter narrows them. */
  records(): readonly ActivityRecord[] {
    return this.host.gateway?.activity.recent(this.filter, SHOWN) ?? [];
  }

  rows(): Row[] {
    const apps = this.apps;
    return activityRows(this.records(), this.filter, apps ? (server, tool) => apps.has(server, tool) : undefined);
  }

  setFilter(filter: ActivityFilter): void {
    this.filter = filter;
    this.changed.fire();
  }

  /** The feed of the gateway now running: a new gateway (a restart) is followed instead. */
  private follow(): void {
    const g = this.host.gateway;
    if (g === this.following) return;
    this.unfollow?.();
    this.following = g;
    this.unfollow = g?.activity.onRecord(() => this.changed.fire());
    this.changed.fire();
  }

  dispose(): void {
    this.unfollow?.();
    this.sub.dispose();
    this.tree.dispose();
    this.changed.dispose();
  }
}
