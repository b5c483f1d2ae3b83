// mcpx: Restart Upstream… — a server stopped, then started for the editor; how it went is said.
import { EDITOR_IDENTITY } from '../editorCall';
import { type ServerArg, serverOf } from './ask';
import { gatewayCommand } from './command';

export const restartUpstream = gatewayCommand(async (d, g, arg?: ServerArg) => {
  const server = await serverOf(arg, g, d.window);
  if (!server) return;
  await g.restartServer(server, EDITOR_IDENTITY).then(
    () => d.window.showInformationMessage(`mcpx: ${server} restarted.`),
    (e: Error) => d.window.showErrorMessage(`mcpx: ${server} did not start: ${e.message}`),
  );
});
