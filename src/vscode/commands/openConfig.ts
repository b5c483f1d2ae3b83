// mcpx: Open Server Config… — the file that defines the server (the workspace's mcp.json, or the user
// settings.json for mcpx.servers), opened at its entry.
import { type ServerArg, serverOf } from './ask';
import { gatewayCommand } from './command';

export const openConfig = gatewayCommand(async (d, g, arg?: ServerArg) => {
  const server = await serverOf(arg, g, d.window);
  if (!server) return;
  const where = d.host.definedIn(server);
  if (where) await d.window.showTextDocument(await d.config.openTextDocument(where));
  else await d.commands.executeCommand('workbench.action.openSettingsJson');
  const editor = d.window.activeTextEditor;
  if (!editor) return;
  // The entry itself: the first line that names it as a key.
  const line = editor.document
    .getText()
    .split('\n')
    .findIndex((l) => l.includes(`"${server}"`));
  if (line >= 0) {
    editor.selection = new d.kit.Selection(line, 0, line, 0);
    editor.revealRange(new d.kit.Range(line, 0, line, 0));
  }
});
