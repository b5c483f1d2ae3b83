// A Tasks view row's calls: the Activity records of an agent's task (its taskId) or of an mcpx_exec run
// (its run id), newest first, as a read-only JSON document.
import { isObject } from '../../protocol/jsonrpc';
import { gatewayCommand } from './command';

export const showTaskCalls = gatewayCommand(async (d, g, row?: unknown) => {
  const r = isObject(row) ? row : {};
  const id = typeof r.id === 'string' ? r.id : undefined;
  if (!id) return [];
  const calls = g.activity.recent().filter((c) => (r.kind === 'exec' ? c.run === id : c.taskId === id));
  if (!calls.length) void d.window.showInformationMessage('mcpx: no calls of that task are in the Activity log.');
  else await d.results.showJson(`calls of ${id}`, calls);
  return calls;
});
