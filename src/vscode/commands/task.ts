// mcpx: Task… — a click on a Tasks view row: its choices in a QuickPick (Show result on a finished one,
// Cancel the call on one running), or what became of it.
import { TERMINAL_STATES, stateWord } from '../views/taskStates';
import { command } from './command';
import { findTask } from './taskRef';

export const task = command(async (d, arg?: unknown) => {
  const t = findTask(d.host, d.palette, arg);
  if (!t) return void d.window.showInformationMessage('mcpx: that task has ended and was collected.');
  const choices = t.result ? ['Show result'] : TERMINAL_STATES.has(t.state) ? [] : ['Cancel the call'];
  if (choices.length === 0) return void d.window.showInformationMessage(`mcpx: ${t.label} was ${stateWord(t.state)}.`);
  const pick = await d.window.showQuickPick(choices, { title: `mcpx: ${t.label} (${stateWord(t.state)})` });
  if (pick === 'Cancel the call') t.cancel();
  else if (pick === 'Show result') await d.results.show(t.label, t.result!);
});
