// mcpx: Show Task Result — a finished row's result in a read-only editor, as a palette call's; a palette
// call of a tool with an MCP App opens the app with its input and result.
import { command } from './command';
import { appOrResult } from './showApp';
import { findTask } from './taskRef';

export const showTaskResult = command(async (d, arg?: unknown) => {
  const t = findTask(d.host, d.palette, arg);
  if (!t?.result) return void d.window.showInformationMessage('mcpx: that task has no result to show.');
  const g = d.host.gateway;
  if (!g) return d.results.show(t.label, t.result);
  await appOrResult(d, g, t.label, t.app, t.result);
});
