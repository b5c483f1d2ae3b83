// mcpx: Cancel Task — a running row of the Tasks view cancelled (its inline action and context menu).
import { TERMINAL_STATES } from '../views/taskStates';
import { command } from './command';
import { findTask } from './taskRef';

export const cancelTask = command((d, arg?: unknown) => {
  const t = findTask(d.host, d.palette, arg);
  if (!t || TERMINAL_STATES.has(t.state))
    return void d.window.showInformationMessage('mcpx: that task is no longer running.');
  t.cancel();
});
