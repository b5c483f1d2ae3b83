// mcpx: Show Upstream Log… — a server's own log (the output channel `mcpx: <server>`).
import { type ServerArg, serverOf } from './ask';
import { gatewayCommand } from './command';

export const showUpstreamLog = gatewayCommand(async (d, g, arg?: ServerArg) => {
  const server = await serverOf(arg, g, d.window);
  if (server) d.upstreamLogs.channel(server).show(true);
});
