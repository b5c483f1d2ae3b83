// The editor's MCP Apps (the AppsPort): which tools have an app, per server, as the editor last listed
// them — the Activity and Tasks views ask synchronously for each row (Show App is offered only on an app
// tool's call), and a server not seen yet is listed in the background, the views told once it is — and
// the opening of a call's app (appPanel.ts, given). Bounded: one entry per server, listed again when
// older than FRESH_MS. No `vscode` here: the unit tests drive it in plain Node.
import type { GatewayFacade } from '../../gateway/editorPort';
import type { JsonObject } from '../../protocol/jsonrpc';
import { EDITOR_IDENTITY } from '../editorCall';
import { type Disposable, Emitter } from '../lifetimes';
import type { AppCall, AppsPort } from '../ports';
import { appResourceUri } from './appMeta';

const FRESH_MS = 30_000;
/** Servers remembered at most (a server's name comes from the configuration, but bound it all the same). */
const MAX_SERVERS = 256;

interface Listed {
  readonly at: number;
  /** Each app tool's definition by name. */
  readonly apps: ReadonlyMap<string, JsonObject>;
}

export class AppTools implements AppsPort, Disposable {
  private readonly servers = new Map<string, Listed>();
  private readonly listing = new Set<string>();
  private readonly changed = new Emitter();
  /** A server's app tools became known. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly gateway: () => GatewayFacade | undefined,
    private readonly opener: (g: GatewayFacade, call: AppCall) => Promise<unknown>,
  ) {}

  async open(g: GatewayFacade, call: AppCall): Promise<void> {
    await this.opener(g, call);
  }

  /** Whether this tool of this server has an app, as far as is known now; an unknown or stale server, if
   *  running, is listed in the background (onDidChange fires once it is). */
  has(server: string, tool: string): boolean {
    const listed = this.servers.get(server);
    // Only a running server is listed for a row: drawing a view never starts an upstream.
    if ((!listed || Date.now() - listed.at > FRESH_MS) && this.running(server)) void this.list(server);
    return listed?.apps.has(tool) ?? false;
  }

  /** The tool's definition when it has an app, listed now if not known. */
  async definition(server: string, tool: string): Promise<JsonObject | undefined> {
    const listed = this.servers.get(server) ?? (await this.list(server));
    return listed.apps.get(tool) ?? (await this.list(server)).apps.get(tool);
  }

  /** Remembers what a caller listed itself (the palette's tool list). */
  learn(server: string, tools: readonly JsonObject[]): void {
    const apps = new Map(tools.filter((t) => appResourceUri(t)).map((t) => [String(t.name), t] as const));
    const before = this.servers.get(server);
    this.servers.delete(server);
    this.servers.set(server, { at: Date.now(), apps });
    if (this.servers.size > MAX_SERVERS) this.servers.delete(this.servers.keys().next().value!);
    if (!before || before.apps.size !== apps.size || [...apps.keys()].some((k) => !before.apps.has(k)))
      this.changed.fire();
  }

  private running(server: string): boolean {
    return (
      this.gateway()
        ?.servers()
        .some((s) => s.name === server && s.state === 'running') ?? false
    );
  }

  private async list(server: string): Promise<Listed> {
    const g = this.gateway();
    if (!g || this.listing.has(server)) return this.servers.get(server) ?? { at: 0, apps: new Map() };
    this.listing.add(server);
    try {
      // A server that cannot be listed counts as having no app until FRESH_MS passes (no retry per row).
      this.learn(server, await g.serverList(server, 'tools', EDITOR_IDENTITY).catch(() => []));
    } finally {
      this.listing.delete(server);
    }
    return this.servers.get(server)!;
  }

  dispose(): void {
    this.changed.dispose();
    this.servers.clear();
  }
}
