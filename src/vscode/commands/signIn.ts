// mcpx: Sign In to Server… — the person chose it, so the sign-in goes straight to the browser (no second
// question; src/vscode/signIn.ts), then the server reconnects (docs/gateway.md "Signing in to upstreams").
import { EDITOR_IDENTITY } from '../editorCall';
import { type ServerArg, serverOf } from './ask';
import { gatewayCommand } from './command';

export const signIn = gatewayCommand(async (d, g, arg?: ServerArg) => {
  const server = await serverOf(arg, g, d.window);
  if (!server) return;
  d.signIn.approve(server);
  await d.window.withProgress(
    { location: d.kit.ProgressLocation.Notification, title: `mcpx: signing in to ${server} in the browser…` },
    () =>
      g.signIn(server, EDITOR_IDENTITY).then(
        () => d.window.showInformationMessage(`mcpx: signed in to ${server}.`),
        (e: Error) => {
          d.log.error(`[${server}] signing in failed: ${e.message}`);
          return d.window.showErrorMessage(`mcpx: signing in to ${server} failed: ${e.message}`);
        },
      ),
  );
});
