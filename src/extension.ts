// Composition root of the extension: builds the gateway host and registers the UI.
import * as vscode from 'vscode';
import { GatewayHost } from './vscode/gatewayHost';
import { statusBar } from './vscode/statusBar';

export async function activate(context: vscode.ExtensionContext): Promise<{ endpoint(): string | undefined }> {
  const log = vscode.window.createOutputChannel('mcpx', { log: true });
  const host = new GatewayHost(log, context.globalStorageUri?.fsPath);
  context.subscriptions.push(log, host, statusBar(host));
  context.subscriptions.push(
    vscode.commands.registerCommand('mcpx.copyEndpoint', async () => {
      if (!host.endpoint) return void vscode.window.showWarningMessage('mcpx: the gateway is not running, so there is no endpoint to copy.');
      await vscode.env.clipboard.writeText(host.endpoint);
      vscode.window.showInformationMessage(`mcpx: copied ${host.endpoint}`);
    }),
  );
  try {
    await host.start();
  } catch (e) {
    log.error((e as Error).message);
    vscode.window.showErrorMessage((e as Error).message);
  }
  return { endpoint: () => host.endpoint };
}

export function deactivate(): void {
  // Everything is in context.subscriptions: VS Code disposes it, which stops the gateway.
}
