// The extension, as a table of contents: its two lifetimes (vscode/lifetimes.ts), the person, the gateway
// host, the views, the commands (vscode/commands/table.ts), VS Code's chat, then the gateway started.
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { defaultStateDir } from './config/paths';
import { sandboxAvailability } from './upstream/sandbox';
import { openApp } from './vscode/apps/appPanel';
import { AppTools } from './vscode/apps/appTools';
import { registerCommands } from './vscode/commands/table';
import { commandDeps } from './vscode/editorPorts';
import { chatDefinitions } from './vscode/host/chatProvider';
import { GatewayHost } from './vscode/host/gatewayHost';
import { refreshLauncher } from './vscode/install';
import { Lifetimes } from './vscode/lifetimes';
import { PaletteCalls } from './vscode/paletteCalls';
import { HeldPins, PINS_SCHEME } from './vscode/pins';
import { EditorApprover } from './vscode/permissions/approver';
import { WorkspaceGrants } from './vscode/permissions/grants';
import { editorPerson } from './vscode/person';
import type { GatewayRun } from './vscode/ports';
import { RegistryUpdates } from './vscode/registryUpdates';
import { ResultDocuments } from './vscode/results';
import { EditorSignIn } from './vscode/signIn';
import { ActivityView } from './vscode/views/activity';
import { questionsTree, questionsView } from './vscode/views/questions';
import { statusBar } from './vscode/views/statusBar';
import { subscriptionsTree } from './vscode/views/subscriptions';
import { tasksTree } from './vscode/views/tasks';
import { UpstreamLogs } from './vscode/views/upstreamLogs';
import { UpstreamsTree } from './vscode/views/upstreams';
import { editorAgents } from './vscode/agents';
import { agentsStatus } from './vscode/views/agentsStatus';

/** Milliseconds (performance.now) of: the bundle starting to load, activate() called, the gateway listening. */
export const timings: { loadStart?: number; loadEnd?: number; activate?: number; listening?: number } = {
  loadStart: (globalThis as { __mcpxLoadStart?: number }).__mcpxLoadStart,
};

export async function activate(context: vscode.ExtensionContext) {
  timings.activate = performance.now();
  timings.loadEnd = (globalThis as { __mcpxLoadEnd?: number }).__mcpxLoadEnd;
  const life = new Lifetimes<GatewayRun>();
  context.subscriptions.push(life);
  const log = life.keep(vscode.window.createOutputChannel('mcpx', { log: true }));
  // The bundle is dist/extension.js in the extension's folder.
  const extensionPath = context.extensionPath ?? dirname(__dirname);

  // The person (QuickPicks, the webview form, sampling) and the gateway host.
  const signIn = new EditorSignIn(log);
  const person = editorPerson(
    (l) => log.info(l),
    context.extensionUri,
    (server, id, signal) => host.waitElicitation(server, id, signal),
  );
  // Permissions: the editor's prompt for an `ask`, and "always allow" per workspace — the palette's old
  // list moved into it once (vscode/permissions/).
  const results = life.keep(new ResultDocuments());
  const grants = new WorkspaceGrants(context.workspaceState);
  await grants.migrate();
  const approver = new EditorApprover({ window: vscode.window, showJson: (t, v) => results.showJson(t, v) });
  const host: GatewayHost = life.keep(
    new GatewayHost({
      permissions: { approver, grants },
      life,
      log,
      stateDir: context.globalStorageUri?.fsPath,
      person,
      secrets: context.secrets,
      signIn,
    }),
  );
  current = host;

  // The views: Upstreams, Questions (with its badge), Tasks, Subscriptions, Activity; the status bar; a log per upstream.
  const palette = life.keep(new PaletteCalls());
  // MCP Apps: which tools have one, and a call's app in a webview (vscode/apps/).
  const appHost = {
    extensionUri: context.extensionUri,
    version: String((context.extension?.packageJSON as { version?: unknown } | undefined)?.version ?? '0'),
    log: (line: string) => log.info(line),
  };
  const apps = life.keep(
    new AppTools(
      () => host.gateway,
      (g, call) => openApp(appHost, g, call),
    ),
  );
  // Installing from an MCP Registry: its files beside the gateway's other state; which installed ones are outdated.
  const registryState = context.globalStorageUri?.fsPath ?? defaultStateDir(process.env);
  const views = registerViews(life, host, { palette, apps, registryState });
  const { activity, upstreamLogs } = views;

  // Held tool definitions: announced, reviewed in the diff editor (vscode/pins.ts).
  const pins = life.keep(
    new HeldPins({
      window: vscode.window,
      commands: vscode.commands,
      uri: (path) => vscode.Uri.from({ scheme: PINS_SCHEME, path }),
    }),
  );
  life.keep(vscode.workspace.registerTextDocumentContentProvider(PINS_SCHEME, pins));
  pins.watch(life);

  // Every command, registered up front (those that need the gateway say why while it is not running).
  const deps = commandDeps({
    host,
    person,
    activity,
    palette,
    results,
    apps,
    log,
    signIn,
    upstreamLogs,
    extensionPath,
    pins,
    registry: {
      stateDir: registryState,
      sandboxAvailable: () => sandboxAvailability(process.env.PATH ?? ''),
    },
  });
  for (const d of registerCommands(vscode.commands, deps)) life.keep(d);
  // An installed `mcpx` launcher whose runtime or bundle went away with an update is pointed at this one.
  void refreshLauncher(extensionPath).catch(() => undefined);

  // VS Code's chat gets mcpx with no configuration (host/chatEndpoint.ts).
  const mcpDefinitions = chatDefinitions(host, log);
  if (typeof vscode.lm?.registerMcpServerDefinitionProvider === 'function')
    life.keep(vscode.lm.registerMcpServerDefinitionProvider('mcpx.gateway', mcpDefinitions));

  await startGateway(host, log);
  return {
    endpoint: () => host.endpoint,
    host,
    life,
    person,
    ...views,
    mcpDefinitions,
    timings,
    grants,
    approver,
    activity,
    pins,
  };
}

/** The views: Upstreams (with each server's registry version), Questions (with its badge), Tasks,
 *  Subscriptions, Activity; the status bar, the connected agents' status and a log per upstream. */
function registerViews(
  life: Lifetimes<GatewayRun>,
  host: GatewayHost,
  o: { palette: PaletteCalls; apps: AppTools; registryState: string },
) {
  const { palette, apps } = o;
  const updates = life.keep(new RegistryUpdates(o.registryState));
  const upstreams = life.keep(new UpstreamsTree(host, vscode, updates));
  const questions = life.keep(questionsTree(host, vscode));
  const tasks = life.keep(tasksTree(host, palette, vscode, apps));
  const subscriptions = life.keep(subscriptionsTree(host, vscode));
  const questionsShown = life.keep(questionsView(vscode.window, vscode.commands, host, life, questions));
  life.keep(vscode.window.registerTreeDataProvider('mcpx.upstreams', upstreams));
  life.keep(vscode.window.registerTreeDataProvider('mcpx.tasks', tasks));
  life.keep(vscode.window.registerTreeDataProvider('mcpx.subscriptions', subscriptions));
  const activity = life.keep(new ActivityView(host, vscode, apps));
  life.keep(vscode.window.registerTreeDataProvider('mcpx.activity', activity.tree));
  const status = life.keep(statusBar(vscode.window, vscode, host));
  // Other agents connected to the gateway, drift flagged (vscode/views/agentsStatus.ts).
  const agents = life.keep(agentsStatus(vscode.window, vscode, editorAgents()));
  const upstreamLogs = life.keep(
    new UpstreamLogs(life, host.onLogLine, (name) => vscode.window.createOutputChannel(name, { log: true })),
  );
  return {
    upstreams,
    questions,
    tasks,
    subscriptions,
    questionsView: questionsShown,
    status: status.item,
    agents,
    upstreamLogs,
    activity,
  };
}

/** Starts the gateway unless mcpx.autoStart is off; a failure is shown, and the commands say it. */
async function startGateway(host: GatewayHost, log: vscode.LogOutputChannel): Promise<void> {
  if (!vscode.workspace.getConfiguration('mcpx').get<boolean>('autoStart', true)) {
    host.whyStopped = 'mcpx.autoStart is off';
    return;
  }
  try {
    await host.start();
    timings.listening = performance.now();
    log.info(`activated: gateway listening ${(timings.listening - timings.activate!).toFixed(1)} ms after activate()`);
  } catch (e) {
    log.error((e as Error).message);
    void vscode.window.showErrorMessage((e as Error).message);
  }
}

let current: GatewayHost | undefined;

/** VS Code waits for this: the gateway and every upstream process are stopped before the host goes on
 *  (everything else is in context.subscriptions). */
export async function deactivate(): Promise<void> {
  await current?.stop('the extension is deactivating');
  current = undefined;
}
