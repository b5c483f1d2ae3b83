// Composition root of the extension: the gateway host, the person (QuickPicks), views, commands.
import * as vscode from 'vscode';
import { registerCommands } from './vscode/commands';
import { GatewayHost } from './vscode/gatewayHost';
import { editorPerson } from './vscode/person';
import { statusBar } from './vscode/statusBar';
import { UpstreamsTree, questionsTree, subscriptionsTree } from './vscode/views';

export async function activate(context: vscode.ExtensionContext): Promise<{ endpoint(): string | undefined; host: GatewayHost; upstreams: UpstreamsTree }> {
  const log = vscode.window.createOutputChannel('mcpx', { log: true });
  const person = editorPerson((l) => log.info(l), context.extensionUri);
  const host = new GatewayHost(log, context.globalStorageUri?.fsPath, person, context.secrets);
  const upstreams = new UpstreamsTree(host);
  context.subscriptions.push(
    log,
    host,
    statusBar(host),
    ...registerCommands(host, person, log),
    vscode.window.registerTreeDataProvider('mcpx.upstreams', upstreams),
    vscode.window.registerTreeDataProvider('mcpx.questions', questionsTree(host)),
    vscode.window.registerTreeDataProvider('mcpx.subscriptions', subscriptionsTree(host)),
  );
  if (vscode.workspace.getConfiguration('mcpx').get<boolean>('autoStart', true)) {
    try {
      await host.start();
    } catch (e) {
      log.error((e as Error).message);
      void vscode.window.showErrorMessage((e as Error).message);
    }
  } else host.whyStopped = 'mcpx.autoStart is off';
  return { endpoint: () => host.endpoint, host, upstreams };
}

export function deactivate(): void {
  // Everything is in context.subscriptions: VS Code disposes it, which stops the gateway and every upstream.
}
