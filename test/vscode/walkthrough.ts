// The getting-started walkthrough.
import * as vscode from 'vscode';
import { drive, shotTaken, test } from './harness';

export const walkthrough = test('Editor polish: the getting-started walkthrough opens', async () => {
  await vscode.commands.executeCommand('mcpx.openWalkthrough');
  await vscode.commands.executeCommand('notifications.hideList');
  const t0 = Date.now();
  drive({ see: ['.gettingStartedContainer', 'Get started with mcpx'], shot: 'walkthrough' });
  await shotTaken('walkthrough', t0);
  await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
});
