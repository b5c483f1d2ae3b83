// The real ports (ports.ts) in the extension host: VS Code's own objects, and the workspace's mcp.json.
import * as vscode from 'vscode';
import type { Deps } from './commands/command';
import type { McpJsonFile } from './ports';

/** The workspace's .vscode/mcp.json; undefined with no folder open. */
function mcpJsonFile(): McpJsonFile | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) return undefined;
  const uri = vscode.Uri.joinPath(folder.uri, '.vscode', 'mcp.json');
  return {
    path: uri.fsPath,
    read: async () => {
      try {
        return Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
      } catch (e) {
        // Not there yet (the file system's own error); any other failure is the caller's to report.
        if (e instanceof vscode.FileSystemError) return undefined;
        throw e;
      }
    },
    write: async (text) => {
      await vscode.workspace.fs.writeFile(uri, Buffer.from(text));
    },
  };
}

/** What every command is given (commands/command.ts): VS Code's window, commands, clipboard, settings and
 *  classes, with the extension's parts. */
export function commandDeps(
  parts: Omit<Deps, 'window' | 'commands' | 'clipboard' | 'config' | 'kit' | 'mcpJson'>,
): Deps {
  return {
    window: vscode.window,
    commands: vscode.commands,
    clipboard: vscode.env.clipboard,
    config: vscode.workspace,
    kit: vscode,
    mcpJson: mcpJsonFile,
    ...parts,
  };
}
