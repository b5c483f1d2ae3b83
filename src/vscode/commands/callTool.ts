// mcpx: Call Tool… — a server, one of its tools, its arguments (the form flow), then the call with its
// progress notification. The call passes the permission check like every agent's (path `palette`): a
// tool asks first by the editor's palette rule (permissions/editorRule.ts) unless a rule of the person allows it. Then
// Cancel, or "Run in background" (the call runs on, the Tasks view lists it, its end is announced with Show Result).
// The result opens in a read-only editor — or, for a tool with an MCP App, the app with its input and
// result (src/vscode/apps/). From the palette nothing is given: the tool is picked among every server's
// with the gateway's tool search (pickTool.ts); a click on a tool row gives (server, tool); its context
// menu gives the row itself; a server alone (the Upstreams view's Tools row) picks among its tools.
import { randomUUID } from 'node:crypto';
import type { GatewayFacade } from '../../gateway/facade';
import { type JsonObject, isObject } from '../../protocol/jsonrpc';
import { appResourceUri } from '../apps/appMeta';
import { EDITOR_IDENTITY, editorContext } from '../editorCall';
import type { PaletteCall } from '../paletteCalls';
import { stateWord } from '../views/taskStates';
import { argumentsFor } from './ask';
import { type Deps, gatewayCommand } from './command';
import { pickTool } from './pickTool';
import { appOrResult } from './showApp';

type Target = string | { server?: unknown; item?: unknown } | undefined;
type Report = (p: number, total?: number, message?: string) => void;

export const callTool = gatewayCommand(async (d, g, target?: Target, toolName?: string) => {
  const chosen = await chooseTool(d, g, target, toolName);
  if (!chosen) return;
  const { server, tool } = chosen;
  const args = await argumentsFor(d.person, d.window, server, tool);
  if (!args) return;
  await run(d, g, server, tool, args);
});

/** The server and tool: as given, else picked. */
async function chooseTool(
  d: Deps,
  g: GatewayFacade,
  target: Target,
  toolName: string | undefined,
): Promise<{ server: string; tool: JsonObject } | undefined> {
  const row = typeof target === 'object' ? target : undefined;
  const serverArg = typeof target === 'string' ? target : typeof row?.server === 'string' ? row.server : undefined;
  const toolArg = row ? (isObject(row.item) ? String(row.item.name) : undefined) : toolName;
  const named =
    serverArg !== undefined && toolArg !== undefined
      ? { server: serverArg, name: toolArg }
      : await pickTool(g, d.window, serverArg);
  if (!named) return undefined;
  const { server } = named;
  const tools = await g
    .serverList(server, 'tools', EDITOR_IDENTITY)
    .catch((e: Error) => void d.window.showErrorMessage(`mcpx: ${server}: ${e.message}`));
  if (!tools) return undefined;
  d.apps.learn(server, tools);
  const tool = tools.find((t) => t.name === named.name);
  return tool ? { server, tool } : undefined;
}

/** The call under its progress notification, until it ends or is sent to the background. */
async function run(d: Deps, g: GatewayFacade, server: string, tool: JsonObject, args: JsonObject): Promise<void> {
  const name = String(tool.name);
  const title = `${server} · ${name}`;
  const call: PaletteCall = {
    id: randomUUID(),
    server,
    tool: name,
    arguments: args,
    ...(appResourceUri(tool) ? { definition: tool } : {}),
    startedAt: Date.now(),
    status: 'working',
    abort: new AbortController(),
  };
  let report: Report = () => undefined;
  const work = g.callTool(
    'mcpx_call',
    { server, tool: name, arguments: args },
    editorContext(call.abort.signal, (p, total, message) => {
      call.progress = { progress: p, total };
      report(p, total, message);
    }),
  );
  let detach!: () => void;
  const detached = new Promise<'detached'>((resolve) => (detach = () => resolve('detached')));
  const detachable = d.palette.detachable(call.id, detach);
  const link = `[Run in background](command:mcpx.runInBackground?${encodeURIComponent(JSON.stringify([call.id]))})`;
  const outcome = await d.window.withProgress(
    { location: d.kit.ProgressLocation.Notification, title: `mcpx: ${title}`, cancellable: true },
    (progress, token) => {
      token.onCancellationRequested(() => call.abort.abort(new Error('cancelled in the editor')));
      let last = 0;
      progress.report({ message: link });
      report = (p, total, message) => {
        const pct = total ? (p / total) * 100 : undefined;
        progress.report({
          message: `${message ? `${message} · ` : ''}${link}`,
          increment: pct !== undefined ? pct - last : undefined,
        });
        if (pct !== undefined) last = pct;
      };
      return Promise.race([
        work.then(
          (result) => ({ result }),
          (error: Error) => ({ error }),
        ),
        detached,
      ]);
    },
  );
  detachable.dispose();
  report = () => undefined;
  if (outcome === 'detached') return inBackground(d, call, work);
  if ('error' in outcome) return void d.window.showErrorMessage(`mcpx: ${title}: ${outcome.error.message}`);
  const app = call.definition ? { server, tool: call.definition, input: args } : undefined;
  await appOrResult(d, g, title, app, outcome.result);
}

/** A call sent to the background: listed in the Tasks view; its end is announced. */
function inBackground(d: Deps, call: PaletteCall, work: Promise<JsonObject>): void {
  d.palette.add(call);
  const title = `${call.server} · ${call.tool}`;
  void work
    .then(
      (result) => {
        if (call.status !== 'working') return;
        call.status = result.isError === true ? 'failed' : 'completed';
        call.outcome = result;
      },
      (e: Error) => {
        if (call.status !== 'working') return;
        call.status = 'failed';
        call.outcome = e.message;
      },
    )
    .then(async () => {
      call.endedAt ??= Date.now();
      d.palette.update();
      if (call.status === 'cancelled') return;
      const pick = await d.window.showInformationMessage(
        `mcpx: ${title}, run in the background, ${stateWord(call.status)}.`,
        'Show Result',
      );
      if (pick) await d.commands.executeCommand('mcpx.showTaskResult', { kind: 'palette', id: call.id });
    });
}
