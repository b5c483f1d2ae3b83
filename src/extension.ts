// Composition root of the extension: the gateway host, the person (QuickPicks), views, commands.
import * as vscode from 'vscode';
import { registerAddServer } from './vscode/addServer';
import { registerCommands, serverOf } from './vscode/commands';
import { GatewayHost } from './vscode/gatewayHost';
import { editorPerson } from './vscode/person';
import { EditorSignIn, registerSignInCommands } from './vscode/signIn';
import { questionsView } from './vscode/questionsView';
import { statusBar } from './vscode/statusBar';
import { ToolTrust, registerToolTrust } from './vscode/toolTrust';
import { UpstreamLogs, registerUpstreamLogs } from './vscode/upstreamLogs';
import { UpstreamsTree, questionsTree, subscriptionsTree, tasksTree } from './vscode/views';
import { registerWalkthrough } from './vscode/walkthrough';

/** Milliseconds (performance.now) of: the bundle starting to load, activate() called, the gateway listening. */
export const timings: { loadStart?: number; loadEnd?: number; activate?: number; listening?: number } = {
  loadStart: (globalThis as { __mcpxLoadStart?: number }).__mcpxLoadStart,
};

export async function activate(context: vscode.ExtensionContext): Promise<{
  endpoint(): string | undefined;
  host: GatewayHost;
  person: { open(): number; completed: string[] };
  upstreams: UpstreamsTree;
  questions: vscode.TreeDataProvider<unknown>;
  tasks: vscode.TreeDataProvider<unknown>;
  subscriptions: vscode.TreeDataProvider<unknown>;
  mcpDefinitions: vscode.McpServerDefinitionProvider;
  timings: typeof timings;
  questionsView: ReturnType<typeof questionsView>;
  status: vscode.StatusBarItem;
  upstreamLogs: UpstreamLogs;
  trust: ToolTrust;
}> {
  timings.activate = performance.now();
  timings.loadEnd = (globalThis as { __mcpxLoadEnd?: number }).__mcpxLoadEnd;
  const log = vscode.window.createOutputChannel('mcpx', { log: true });
  let host: GatewayHost | undefined;
  const person = editorPerson(
    (l) => log.info(l),
    context.extensionUri,
    (server, id, signal) => host?.waitElicitation(server, id, signal) ?? Promise.resolve(false),
  );
  const signIn = new EditorSignIn(log);
  host = new GatewayHost(log, context.globalStorageUri?.fsPath, person, context.secrets, signIn);
  current = host;
  const upstreams = new UpstreamsTree(host);
  const questions = questionsTree(host);
  const tasks = tasksTree(host);
  const subscriptions = subscriptionsTree(host);
  const trust = new ToolTrust(context.workspaceState);
  const upstreamLogs = new UpstreamLogs(host);
  const status = statusBar(host);
  const questionsShown = questionsView(host, questions);
  const mcpDefinitions: vscode.McpServerDefinitionProvider = {
    onDidChangeMcpServerDefinitions: host.onDidChangeDefinitions,
    provideMcpServerDefinitions: async () => {
      const url = await host
        .editorEndpoint()
        .catch((e: Error) => void log.error(`the endpoint for VS Code's chat: ${e.message}`));
      return url ? [new vscode.McpHttpServerDefinition('mcpx', vscode.Uri.parse(url))] : [];
    },
  };
  context.subscriptions.push(
    log,
    host,
    status,
    ...registerCommands(host, person, log, trust),
    ...registerSignInCommands(host, signIn, log, serverOf),
    registerToolTrust(trust),
    registerUpstreamLogs(host, upstreamLogs),
    registerAddServer(host),
    registerWalkthrough(),
    upstreamLogs,
    questions,
    questionsShown,
    tasks,
    subscriptions,
    vscode.window.registerTreeDataProvider('mcpx.upstreams', upstreams),
    vscode.window.registerTreeDataProvider('mcpx.tasks', tasks),
    vscode.window.registerTreeDataProvider('mcpx.subscriptions', subscriptions),
  );
  // VS Code's chat gets mcpx with no configuration (the servers it does not run itself; see gatewayHost.ts).
  if (typeof vscode.lm?.registerMcpServerDefinitionProvider === 'function') {
    context.subscriptions.push(vscode.lm.registerMcpServerDefinitionProvider('mcpx.gateway', mcpDefinitions));
  }
  if (vscode.workspace.getConfiguration('mcpx').get<boolean>('autoStart', true)) {
    try {
      await host.start();
      timings.listening = performance.now();
      log.info(`activated: gateway listening ${(timings.listening - timings.activate).toFixed(1)} ms after activate()`);
    } catch (e) {
      log.error((e as Error).message);
      void vscode.window.showErrorMessage((e as Error).message);
    }
  } else host.whyStopped = 'mcpx.autoStart is off';
  return {
    endpoint: () => host.endpoint,
    host,
    person,
    upstreams,
    questions,
    tasks,
    subscriptions,
    mcpDefinitions,
    timings,
    questionsView: questionsShown,
    status: status.item,
    upstreamLogs,
    trust,
  };
}

let current: GatewayHost | undefined;

/** VS Code waits for this: the gateway and every upstream process are stopped before the host goes on
 *  (everything else is in context.subscriptions). */
export async function deactivate(): Promise<void> {
  await current?.stop('the extension is deactivating');
  current = undefined;
}
