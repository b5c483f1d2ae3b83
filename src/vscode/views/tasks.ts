// The Tasks view: every task of this gateway (both eras), the 2026-07-28 background calls that are not
// tasks, the palette calls sent to the background, and the mcpx_exec scripts running (their calls so far
// under them); newest first. A row's context value is `mcpx.<kind>.<state>`, `.app` added when a
// finished call's tool has an MCP App: Cancel on running rows, Show Result on finished ones, Show App on
// a finished app tool's (package.json "menus"; docs/commands.md).
import type { BackgroundTasks, RunView } from '../../gateway/editorPort';
import { newestOf } from '../../protocol/eras';
import { MODERN } from '../../protocol/revisions';
import type { PaletteCall, PaletteCalls } from '../paletteCalls';
import type { AppsPort, GatewayState, TaskEntry } from '../ports';
import { type Row, type RowKit, RowsTree, ago } from './rows';
import { TASK_STATE, TERMINAL_STATES, type TaskKind, type TaskState, backgroundState } from './taskStates';

export interface TaskRow extends Row {
  kind: TaskKind;
  id: string;
  state: TaskState;
}

/** What one row says, whatever its kind. */
interface TaskFacts {
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
  /** What it is, for the tooltip ("2025-11-25 task"). */
  what: string;
  message?: string;
  /** A call of a tool with an MCP App. */
  app?: boolean;
}

const progressText = (p?: { progress: number; total?: number }) =>
  p ? `${p.progress}${p.total !== undefined ? `/${p.total}` : ''}` : undefined;

/** One row: the tool as label; server (where known), status, client, progress and age as description;
 *  an icon and a context value per state (Cancel on running rows, Show Result on finished ones). A
 *  click on a task waiting for input opens the Questions view; on any other row, its actions. */
function taskRow(r: TaskFacts): TaskRow {
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
    contextValue: `mcpx.${r.kind}.${r.state}${r.app && (r.state === 'completed' || r.state === 'failed') ? '.app' : ''}`,
    command: toQuestions
      ? { command: 'mcpx.showQuestions', title: 'Show Questions' }
      : { command: 'mcpx.task', title: 'Task…', arguments: [{ kind: r.kind, id: r.id }] },
  };
}

const ofTask = (t: TaskEntry): TaskFacts => ({
  kind: 'task',
  id: t.id,
  label: t.info.label,
  state: t.status,
  client: t.info.client,
  progress: t.call.progress,
  startedAt: t.createdAt,
  endedAt: t.terminal ? t.updatedAt : undefined,
  what: `${newestOf(t.info.era)} task`,
  message: t.statusMessage,
});

const ofBackground = (c: ReturnType<BackgroundTasks['list']>[number]): TaskFacts => ({
  kind: 'background',
  id: c.id,
  label: c.label,
  state: backgroundState(c.status),
  progress: c.progress,
  startedAt: c.startedAt,
  rounds: c.rounds,
  what: `${MODERN} background call`,
});

const ofPalette = (c: PaletteCall): TaskFacts => ({
  app: c.definition !== undefined,
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
});

/** A running mcpx_exec script and the calls it has made so far, each with its state (docs/exec.md
 *  "Tasks"). No action: the script ends with its call, its timeout, or its client's cancellation. */
function execRow(r: RunView): TaskRow {
  const st = TASK_STATE.working;
  const calls = r.calls.map((c, i): Row => {
    const state = TASK_STATE[c.state === 'running' ? 'working' : c.state];
    return {
      key: `exec:${r.id}:${i}`,
      label: c.label,
      description: state.word,
      tooltip: `call ${r.total - r.calls.length + i + 1} of the script: ${c.label}`,
      icon: { id: state.icon },
    };
  });
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

/** The newest Activity records searched for the tool call of a task (the view redraws every 2 s). */
const TASK_RECORDS = 200;

/** Whether a server's tool has an MCP App, as far as the editor knows now. */
type HasApp = (server: string, tool: string) => boolean;

/** The tasks whose tool call (in the Activity records, by its taskId) is of a tool with an app. */
function appTasks(host: GatewayState, tasks: readonly TaskEntry[], hasApp?: HasApp): Set<string> {
  const ids = new Set(tasks.map((t) => t.id));
  const out = new Set<string>();
  if (!hasApp || !ids.size) return out;
  for (const r of host.gateway?.activity.recent({}, TASK_RECORDS) ?? [])
    if (r.taskId && ids.has(r.taskId) && r.kind === 'tool' && hasApp(r.server, r.target)) out.add(r.taskId);
  return out;
}

/** Every row, newest first. */
export function taskRows(host: GatewayState, palette: PaletteCalls, hasApp?: HasApp): TaskRow[] {
  const tasks = host.tasks?.list(undefined) ?? [];
  const ofTasks = new Set<string>(tasks.map((t) => t.call.id));
  const apps = appTasks(host, tasks, hasApp);
  const rows: Array<{ at: number; row: TaskRow }> = [
    ...tasks.map((t) => ({ at: t.createdAt, row: taskRow({ ...ofTask(t), app: apps.has(t.id) }) })),
    ...(host.background?.list() ?? [])
      .filter((c) => !ofTasks.has(c.id))
      .map((c) => ({ at: c.startedAt, row: taskRow(ofBackground(c)) })),
    ...palette.list().map((c) => ({ at: c.startedAt, row: taskRow(ofPalette(c)) })),
    ...(host.gateway?.runs() ?? []).map((r) => ({ at: r.startedAt, row: execRow(r) })),
  ];
  return rows.sort((a, b) => b.at - a.at).map((x) => x.row);
}

export function tasksTree(
  host: GatewayState,
  palette: PaletteCalls,
  kit: RowKit,
  apps?: Pick<AppsPort, 'has' | 'onDidChange'>,
): RowsTree<TaskRow> {
  return new RowsTree<TaskRow>(
    kit,
    [host.onDidChange, palette.onDidChange, ...(apps ? [apps.onDidChange] : [])],
    () => taskRows(host, palette, apps ? (server, tool) => apps.has(server, tool) : undefined),
    2000,
  );
}
