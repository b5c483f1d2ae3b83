// Where the gateway's servers come from: the user setting mcpx.servers and the workspace's
// .vscode/mcp.json (the workspace wins on a name both define; config/merge.ts). Credentials come from
// SecretStorage through ${secret:NAME}; their values are never logged. Problems are reported as a
// diagnostic on the file and a notification. The workspace folders are mcpx's roots.
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import type { Config } from '../../config/file';
import { readJsonFile, secretNames } from '../../config/file';
import { type Source, mergeSources } from '../../config/merge';
import { isObject } from '../../protocol/jsonrpc';
import type { Disposable } from '../lifetimes';
import { withEditorRule } from '../permissions/editorRule';

export class ConfigSources implements Disposable {
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('mcpx');
  private fromWorkspace = new Set<string>();
  /** Where the person's permissions came from (the last source with a `permissions` block). */
  permissionsFrom?: string;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly secrets?: vscode.SecretStorage,
  ) {}

  /** The two sources as they stand: the user setting first, the workspace file last (it wins). */
  private list(): Source[] {
    const list: Source[] = [
      {
        label: 'settings (mcpx.servers, mcpx.permissions)',
        value: {
          servers: vscode.workspace.getConfiguration('mcpx').get('servers') ?? {},
          permissions: vscode.workspace.getConfiguration('mcpx').get('permissions'),
        },
        workspace: false,
      },
    ];
    const file = workspaceFile();
    if (file) {
      // Only a regular file, and a refusal that never quotes it (config/file.ts readJsonFile).
      const read = existsSync(file.fsPath) ? readJsonFile(file.fsPath) : undefined;
      if (read) list.push({ label: file.fsPath, value: 'value' in read ? read.value : read.problem, workspace: true });
    }
    return list;
  }

  /** The workspace's mcp.json when it defines the server in use; undefined: the user setting does. */
  definedIn(server: string): vscode.Uri | undefined {
    const file = workspaceFile();
    return file && this.fromWorkspace.has(server) ? file : undefined;
  }

  /** Whether the workspace's mcp.json defines the server in use (VS Code runs it itself). */
  inWorkspace(server: string): boolean {
    return this.fromWorkspace.has(server);
  }

  /** The ${secret:NAME} names the sources refer to (for mcpx: Set Secret…). */
  referencedSecrets(): string[] {
    return secretNames(this.list().map((x) => x.value));
  }

  /** The servers of both sources, problems reported. */
  async load(): Promise<Config> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const list = this.list();
    this.diagnostics.clear();
    const secrets: Record<string, string> = {};
    for (const name of secretNames(list.map((x) => x.value))) {
      const v = await this.secrets?.get(name);
      if (v !== undefined) secrets[name] = v;
    }
    const merged = mergeSources(list, {
      env: process.env,
      workspaceFolder: folder?.uri.fsPath,
      trusted: vscode.workspace.isTrusted,
      secrets,
    });
    merged.config.roots = roots();
    this.report([...merged.problems, ...merged.clashes], merged.untrusted);
    this.fromWorkspace = merged.fromWorkspace;
    this.permissionsFrom = list.filter((x) => isObject(x.value) && x.value.permissions !== undefined).at(-1)?.label;
    // The palette's rule after the person's (permissions/editorRule.ts).
    return { ...merged.config, permissions: withEditorRule(merged.config.permissions) };
  }

  /** To the log, as a diagnostic on the workspace file (the problems in it), and as a notification. */
  private report(problems: string[], untrusted: string[]): void {
    const file = workspaceFile();
    for (const p of problems) this.log.warn(p);
    if (untrusted.length) this.log.warn(`not spawned until this workspace is trusted: ${untrusted.join(', ')}`);
    const inFile = file ? problems.filter((p) => p.startsWith(file.fsPath)) : [];
    if (file && inFile.length) {
      this.diagnostics.set(
        file,
        inFile.map(
          (p) =>
            new vscode.Diagnostic(
              new vscode.Range(0, 0, 0, 0),
              p.slice(file.fsPath.length + 2),
              vscode.DiagnosticSeverity.Warning,
            ),
        ),
      );
    }
    if (problems.length)
      void vscode.window.showWarningMessage(
        `mcpx: ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more in the log)` : ''}`,
      );
  }

  dispose(): void {
    this.diagnostics.dispose();
  }
}

/** The first workspace folder's .vscode/mcp.json, whether or not it exists. */
function workspaceFile(): vscode.Uri | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder ? vscode.Uri.joinPath(folder.uri, '.vscode', 'mcp.json') : undefined;
}

/** mcpx's roots: the workspace folders (2025-11-25 client/roots; docs/questions.md "Who answers": a
 *  calling client that declared roots is asked first). */
export function roots(): Array<{ uri: string; name: string }> {
  return (vscode.workspace.workspaceFolders ?? []).map((f) => ({ uri: f.uri.toString(), name: f.name }));
}
