// A Tasks view row's state: its word, its icon and colour (one table), shared by the view and the
// commands on its rows.

/** What a Tasks view row is: a task of the gateway (either era), a 2026-07-28 client's background call
 *  that is not a task, a palette call the person sent to the background, or a running mcpx_exec script
 *  (its calls so far under it). */
export type TaskKind = 'task' | 'background' | 'palette' | 'exec';
export type TaskState = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export const TASK_STATE: Record<TaskState, { word: string; icon: string; color?: string }> = {
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
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(['completed', 'failed', 'cancelled']);
