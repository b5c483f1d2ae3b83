// VS Code's `mcpx.<key>` settings as a layer of the one registry.
import * as vscode from 'vscode';
import { SETTINGS } from '../../config/settings';

/** Values the user (or workspace) set explicitly; defaults stay with the registry. */
export function vscodeLayer(): Record<string, unknown> {
  const cfg = vscode.workspace.getConfiguration('mcpx');
  const out: Record<string, unknown> = {};
  for (const def of SETTINGS) {
    const i = cfg.inspect(def.key);
    const v = i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
    if (v !== undefined) out[def.key] = v;
  }
  return out;
}
