// mcpx: Stop Upstream… — a server's connections stopped; the next use starts it again.
import { type ServerArg, serverOf } from './ask';
import { gatewayCommand } from './command';

export const stopUpstream = gatewayCommand(async (d, g, arg?: ServerArg) => {
  const server = await serverOf(arg, g, d.window);
  if (server) await g.stopServer(server);
});
