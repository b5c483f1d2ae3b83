// VS Code's own MCP support: VS Code runs the servers of the workspace's .vscode/mcp.json itself. mcpx
// offers its chat a second, narrower gateway with only the servers VS Code does not already run (those of
// mcpx.servers), so no server is offered twice; agents outside VS Code use the main endpoint, which has
// all of them. Started on the chat's first ask, it is per-run state: it closes when the run ends. With
// mcpx.chatProfile naming a profile, the chat is offered that profile's endpoint of it (docs/gateway.md
// "Profiles"): the profile's tools, of the servers VS Code does not run itself.
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
  /** The profile the last endpoint given named (undefined: the default set). */
  private given?: string;
  /** A chatProfile naming no profile is said once, not on every ask. */
  private warned?: string;

  constructor(private readonly o: ChatEndpointOptions) {}

  /** The profile mcpx.chatProfile names, where the running configuration has it. */
  private profile(run: GatewayRun): string | undefined {
    const wanted = run.gateway.settings.get<string>('chatProfile');
    if (!wanted) return undefined;
    if (run.gateway.config.profiles?.has(wanted)) return wanted;
    if (this.warned !== wanted)
      this.o.log(
        `mcpx.chatProfile names ${JSON.stringify(wanted)}, which is no configured profile: VS Code's chat gets the default set`,
      );
    this.warned = wanted;
    return undefined;
  }

  /** Whether the endpoint would now name another profile than the one last given (mcpx.chatProfile or
   *  the profiles block changed): VS Code is then told its definitions changed. */
  get stale(): boolean {
    const run = this.o.life.run;
    return run !== undefined && this.profile(run) !== this.given;
  }

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
    const profile = this.profile(run);
    this.given = profile;
    const endpoint = this.view?.listening.endpoint;
    return endpoint && profile ? `${endpoint}/${profile}` : endpoint;
  }
}
