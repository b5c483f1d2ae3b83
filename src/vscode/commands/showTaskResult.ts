// mcpx: Show Task Result — a finished row's result in a read-only editor, as a palette call's.
import { command } from './command';
import { findTask } from './taskRef';

export const showTaskResult = command(async (d, arg?: unknown) => {
  const t = findTask(d.host, d.palette, arg);
  if (!t?.result) return void d.window.showInformationMessage('mcpx: that task has no result to show.');
  await d.results.show(t.label, t.result);
});
