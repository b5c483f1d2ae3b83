// mcpx: Show App — the MCP App of a call made by any client (an agent in a terminal, through the shim,
// cannot render it; the person can): from an Activity view row (the call's record: its arguments and
// result, kept in memory only) or a Tasks view row (the task's call in the Activity records, or a palette
// call), opened with that call's input and result (src/vscode/apps/). The app's own later calls are the
// person's.
import type { ActivityRecord, GatewayFacade } from '../../gateway/editorPort';
import { type JsonObject, isObject } from '../../protocol/jsonrpc';
import type { AppCall } from '../ports';
import { type Deps, gatewayCommand } from './command';
import { findTask } from './taskRef';

/** The app when the call has one (the text result instead, with the reason, when it cannot be opened),
 *  else the result in a read-only editor. */
export async function appOrResult(
  d: Deps,
  g: GatewayFacade,
  title: string,
  app: AppCall | undefined,
  result: JsonObject,
): Promise<void> {
  if (app) {
    const opened = await d.apps.open(g, { ...app, result }).then(
      () => true,
      (e: Error) => void d.window.showWarningMessage(`mcpx: ${title}: its app could not be shown: ${e.message}`),
    );
    if (opened) return;
  }
  await d.results.show(title, result);
}

/** The call a row stands for: server, tool, arguments and result. */
interface Called {
  server: string;
  tool: string;
  input: JsonObject;
  result?: JsonObject;
}

const ofRecord = (r: ActivityRecord): Called => ({
  server: r.server,
  tool: r.target,
  input: r.arguments ?? {},
  result: r.result,
});

const isRecord = (v: unknown): v is ActivityRecord =>
  isObject(v) && v.kind === 'tool' && typeof v.server === 'string' && typeof v.target === 'string';

function calledOf(d: Deps, g: GatewayFacade, arg: unknown): Called | undefined {
  // An Activity row (it carries its record), or a record itself.
  const record = isObject(arg) && isRecord(arg.record) ? arg.record : isRecord(arg) ? arg : undefined;
  if (record) return ofRecord(record);
  if (!isObject(arg) || typeof arg.id !== 'string') return undefined;
  if (arg.kind === 'palette') {
    const mine = d.palette.find(arg.id);
    if (!mine) return undefined;
    const result = findTask(d.host, d.palette, arg)?.result;
    return { server: mine.server, tool: mine.tool, input: mine.arguments, result };
  }
  // A task: its tool call among the Activity records, its result from there or from the task.
  const id = arg.id;
  const call = g.activity.recent().find((r) => r.taskId === id && r.kind === 'tool');
  if (!call) return undefined;
  const called = ofRecord(call);
  return { ...called, result: called.result ?? findTask(d.host, d.palette, arg)?.result };
}

export const showApp = gatewayCommand(async (d, g, arg?: unknown) => {
  const called = calledOf(d, g, arg);
  if (!called) return void d.window.showInformationMessage('mcpx: that call is no longer in the Activity log.');
  const title = `${called.server} · ${called.tool}`;
  const tool = await d.apps.definition(called.server, called.tool).catch(() => undefined);
  if (!tool) return void d.window.showInformationMessage(`mcpx: ${title} has no app.`);
  try {
    await d.apps.open(g, { server: called.server, tool, input: called.input, result: called.result });
  } catch (e) {
    void d.window.showErrorMessage(`mcpx: ${title}: its app could not be shown: ${(e as Error).message}`);
  }
});
