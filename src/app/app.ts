// Composition shared by the headless CLI and the extension: one McpServer on one HTTP listener.
import { type Policy, policyFrom } from '../config/policy';
import type { Settings } from '../config/settings';
import { VERSION } from '../config/version';
import type { BackgroundTasks } from '../gateway/facade';
import type { Provider } from '../server/provider';
import { McpServer, type ServerInfo } from '../server/server';
import { protocolRoute } from './routes';
import { HttpTransport, type Route } from '../transport/http';

const SERVER_INFO: ServerInfo = { name: 'mcpx', title: 'mcpx gateway', version: VERSION };

export interface Listening {
  url: string;
  port: number;
  address: string;
  server: McpServer;
  /** The 2026-07-28 background calls (the editor's Tasks view lists them). */
  background: BackgroundTasks;
  http: HttpTransport;
  close(): Promise<void>;
}

export function makeServer(provider: Provider, settings: Settings, policy: Policy = policyFrom(settings)): McpServer {
  return new McpServer({ provider, settings, policy, serverInfo: SERVER_INFO });
}

/** Start the gateway's HTTP listener. `port` 0 picks a free one. */
export async function listen(opts: {
  provider: Provider;
  settings: Settings;
  port?: number;
  address?: string;
  routes?: Route[];
  log?: (line: string) => void;
}): Promise<Listening> {
  const policy = policyFrom(opts.settings);
  const server = makeServer(opts.provider, opts.settings, policy);
  const http = new HttpTransport({
    server,
    settings: opts.settings,
    routes: [protocolRoute(policy), ...(opts.routes ?? [])],
    log: opts.log,
  });
  const a = await http.listen(
    opts.port ?? opts.settings.get<number>('port'),
    opts.address ?? opts.settings.get<string>('address'),
  );
  return {
    ...a,
    server,
    background: server.rounds.background,
    http,
    close: async () => {
      // Listen streams end first (their results written), then the sockets close.
      server.close();
      await new Promise((r) => setImmediate(r));
      await http.close();
    },
  };
}

/** Loopback addresses, for the warning about binding beyond them. */
export function isLoopback(address: string): boolean {
  return address === 'localhost' || address === '::1' || address.startsWith('127.');
}
