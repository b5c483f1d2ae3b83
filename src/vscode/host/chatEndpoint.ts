// VS Code's own MCP support: VS Code runs the servers of the workspace's .vscode/mcp.json itself. mcpx
// offers its chat a second, narrower gateway with only the servers VS Code does not already run (those of
// mcpx.servers), so no server is offered twice; agents outside VS Code use the main endpoint, which has
// all of them. Started on the chat's first ask, it is per-run state: it closes when the run ends.
import type { ServerDef } from '../../config/servers';
import type { Settings } from '../../config/settings';
import type { Gateway } from '../../gateway/gateway';
import { type Lifetimes, disposable } from '../lifetimes';
import type { GatewayRun } from '../ports';

interface Listener {
  readonly url: string;
  readonly endpoint: string;
  close(): Promise<void>;
}

export interface ChatEndpointOptions {
  readonly life: Lifetimes<GatewayRun>;
  readonly log: (line: string) => void;
  /** Whether VS Code runs this server itself (the workspace file defines it). */
  inWorkspace(server: string): boolean;
  /** A gateway over these servers, with the main one's settings. */
  gateway(servers: ServerDef[], settings: Settings): Gateway;
  /** It listening on a free port. */
  listen(gateway: Gateway, settings: Settings): Promise<Listener>;
}

export class ChatEndpoint {
  private view?: { listening: Listener; gateway: Gateway };

  constructor(private readonly o: ChatEndpointOptions) {}

  /** The endpoint offered to VS Code's chat (the URL with the secret in its path); none while no gateway
   *  runs, or when VS Code runs every server itself. */
  async endpoint(): Promise<string | undefined> {
    const run = this.o.life.run;
    if (!run) return undefined;
    const { settings } = run.gateway;
    const userOnly = run.gateway.config.servers.filter((d) => !this.o.inWorkspace(d.name));
    if (userOnly.length === 0) return undefined;
    if (!this.view) {
      const gateway = this.o.gateway(userOnly, settings);
      const listening = await this.o.listen(gateway, settings);
      const view = (this.view = { listening, gateway });
      this.o.log(`VS Code's chat is offered ${listening.url} with ${userOnly.map((d) => d.name).join(', ')}`);
      // Held by the run that is current now (the one it was made for, unless that ended meanwhile).
      this.o.life.forRun(
        disposable(async () => {
          if (this.view === view) this.view = undefined;
          await listening.close();
          await gateway.close();
        }),
      );
    }
    return this.view?.listening.endpoint;
  }
}
