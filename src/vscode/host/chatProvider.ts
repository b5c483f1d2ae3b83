// VS Code's chat gets mcpx with no configuration: a server definition provider offering the chat's own
// endpoint (chatEndpoint.ts: the servers VS Code does not run itself), refreshed as the gateway comes and
// goes.
import * as vscode from 'vscode';
import type { GatewayHost } from './gatewayHost';

export function chatDefinitions(host: GatewayHost, log: vscode.LogOutputChannel): vscode.McpServerDefinitionProvider {
  return {
    onDidChangeMcpServerDefinitions: host.onDidChangeDefinitions,
    provideMcpServerDefinitions: async () => {
      const url = await host
        .editorEndpoint()
        .catch((e: Error) => void log.error(`the endpoint for VS Code's chat: ${e.message}`));
      return url ? [new vscode.McpHttpServerDefinition('mcpx', vscode.Uri.parse(url))] : [];
    },
  };
}
