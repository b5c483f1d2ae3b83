// Composition shared by the headless CLI and the extension: one McpServer on one HTTP listener.
import { type Policy, policyFrom } from '../config/policy';
import { endpointsFile, newSecret, secretFile } from '../config/secret';
import type { Settings } from '../config/settings';
import { VERSION } from '../config/version';
import type { BackgroundTasks, TaskBoard } from '../gateway/editorPort';
import type { Provider } from '../server/provider';
import { McpServer, type ServerInfo } from '../server/server';
import { healthRoute, protocolRoute, tasksRoute } from './routes';
import { type TeamPorts, readyRoute, teamRoute } from './team';
import { whoamiRoute } from './whoami';
import { HttpTransport, type Route } from '../transport/http';

const SERVER_INFO: ServerInfo = { name: 'mcpx', title: 'mcpx gateway', version: VERSION };

export interface Listening {
  /** The bare endpoint, without the secret: what may be shown or logged. */
  url: string;
  /** The endpoint that works: /mcp/<secret> while transport.secret is on (docs/security.md "The endpoint
   *  secret"). Hand it to clients; never log it. */
  endpoint: string;
  /** The endpoint secret, when transport.secret is on. */
  secret?: string;
  port: number;
  address: string;
  server: McpServer;
  /** The 2026-07-28 background calls (the editor's Tasks view lists them). */
  background: BackgroundTasks;
  /** Every task of this server, both eras (the Tasks view, /v1/tasks). */
  tasks: TaskBoard;
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
  /** The install's endpoint secret (src/config/secret.ts); without one, a fresh secret for this listener. */
  secret?: string;
  /** The state directory whose endpoints.json the 401 names. */
  stateDir?: string;
  /** Where tasks are journalled to outlive a restart (server/taskJournal.ts): the state directory. */
  journalDir?: string;
  /** The journal's file within journalDir: the daemon's tasks.jsonl by default; an editor window claims
   *  its own (vscode/host/editorJournal.ts), one writer per file. */
  journalFile?: string;
  /** A team's replica (docs/team.md): its tasks in the store, its sessions and work found across the
   *  replicas. */
  team?: TeamPorts;
}): Promise<Listening> {
  const policy = policyFrom(opts.settings);
  const server = new McpServer({
    provider: opts.provider,
    settings: opts.settings,
    policy,
    serverInfo: SERVER_INFO,
    stateDir: opts.journalDir,
    journalFile: opts.journalFile,
    records: opts.team?.records,
    log: opts.log,
  });
  const team = opts.team;
  const secret = opts.settings.get<boolean>('transport.secret') ? (opts.secret ?? newSecret()) : undefined;
  if (secret) opts.provider.endpointSecret?.(secret);
  if (!secret)
    opts.log?.(
      'WARNING: transport.secret is off: anything that can reach the port (other local users, any web page) runs tools as you.',
    );
  const http: HttpTransport = new HttpTransport({
    server,
    settings: opts.settings,
    affinity: team?.affinity,
    routes: [
      healthRoute(VERSION, () => http.sessionCount),
      readyRoute(team ? team.ready : () => ({ ok: true })),
      ...(team ? [teamRoute(team, (id) => !!(server.tasks.find(id) ?? server.rounds.background.get(id)))] : []),
      protocolRoute(policy),
      whoamiRoute(),
      tasksRoute(
        server.tasks,
        opts.settings,
        (id) => http.sessionIdentity(id),
        server.rounds.background,
        team?.tasksElsewhere,
      ),
      ...(opts.routes ?? []),
    ],
    log: opts.log,
    secret,
    whereIsTheSecret: whereIsTheSecret(opts.stateDir),
  });
  const a = await http.listen(
    opts.port ?? opts.settings.get<number>('port'),
    opts.address ?? opts.settings.get<string>('address'),
  );
  return {
    ...a,
    endpoint: secret ? `${a.url}/${secret}` : a.url,
    secret,
    server,
    background: server.rounds.background,
    tasks: server.tasks,
    http,
    close: async () => {
      // Listen streams end first (their results written), then the sockets close.
      server.close();
      await new Promise((r) => setImmediate(r));
      await http.close();
    },
  };
}

/** Where a client that was refused (401) finds the URL with the secret; never the secret itself. */
function whereIsTheSecret(stateDir: string | undefined): string {
  const file = stateDir ? endpointsFile(stateDir) : '<state>/endpoints.json';
  return `The URL with the secret is in ${file} (written by the editor), behind "mcpx: Copy Endpoint" in VS Code, and on the line "mcpx listening on …" that mcpx daemon prints; the secret alone is ${stateDir ? secretFile(stateDir) : '<state>/endpoint-secret'} (owner-only)`;
}

/** Loopback addresses, for the warning about binding beyond them. */
function isLoopback(address: string): boolean {
  return address === 'localhost' || address === '::1' || address.startsWith('127.');
}

/** What a gateway listening on `address` warns of, or undefined on loopback (docs/security.md "The threat
 *  model": loopback is the boundary the endpoint secret guards; beyond it anyone on the network tries it). */
export function beyondLoopback(address: string): string | undefined {
  if (isLoopback(address)) return undefined;
  return `WARNING: listening on ${address}, beyond loopback: anything that can reach this port can run tools as you.`;
}
