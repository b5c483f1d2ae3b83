// The getting-started walkthrough (package.json contributes.walkthroughs; its pages in
// media/walkthrough/), opened from the empty views' welcome content or the palette.
import * as vscode from 'vscode';

const WALKTHROUGH = 'mcpx.mcpx#gettingStarted';

export function registerWalkthrough(): vscode.Disposable {
  return vscode.commands.registerCommand('mcpx.openWalkthrough', () =>
    vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false),
  );
}
