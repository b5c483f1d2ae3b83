// mcpx: Sign Out of Server… — the sign-in forgotten, its tokens revoked where the server allows.
import { type ServerArg, serverOf } from './ask';
import { gatewayCommand } from './command';

export const signOut = gatewayCommand(async (d, g, arg?: ServerArg) => {
  const server = await serverOf(arg, g, d.window);
  if (!server) return;
  const note = await g.signOut(server).catch((e: Error) => e.message);
  void d.window.showInformationMessage(
    `mcpx: signed out of ${server}${note ? ` (its tokens were not revoked: ${note})` : '; its tokens were revoked'}.`,
  );
});
