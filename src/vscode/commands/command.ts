// What a command is given (Deps: the editor's ports and the extension's parts), and the two kinds of
// command: one that acts on the running gateway — while none runs it says why instead (docs/commands.md)
// — and one that works without it. commands/table.ts lists every command with its module.
import type { ActivityFilter, GatewayFacade, PersonPort } from '../../gateway/editorPort';
import type { PaletteCalls } from '../paletteCalls';
import type {
  AppsPort,
  Clipboard,
  EditorCommands,
  EditorConfig,
  EditorWindow,
  HostPort,
  Kit,
  McpJsonFile,
  RegistryPort,
  ResultsPort,
} from '../ports';

export interface Deps {
  readonly window: EditorWindow;
  readonly commands: EditorCommands;
  readonly clipboard: Clipboard;
  readonly config: EditorConfig;
  readonly kit: Kit;
  readonly host: HostPort;
  readonly person: PersonPort;
  /** The Activity view's filter (views/activity.ts). */
  readonly activity: { setFilter(filter: ActivityFilter): void };
  readonly palette: PaletteCalls;
  readonly results: ResultsPort;
  /** MCP Apps: a call of an app tool opens its app (src/vscode/apps/). */
  readonly apps: AppsPort;
  /** mcpx's own log. */
  readonly log: { show(): void; error(line: string): void };
  /** Signing in to upstreams (src/vscode/signIn.ts): the person chose Sign In on a server. */
  readonly signIn: { approve(server: string): void };
  /** Each upstream's own log (views/upstreamLogs.ts). */
  readonly upstreamLogs: { channel(server: string): { show(preserveFocus?: boolean): void } };
  /** The workspace's .vscode/mcp.json; undefined with no folder open. */
  mcpJson(): McpJsonFile | undefined;
  /** This extension's folder (the `mcpx` launcher runs its dist/cli.js). */
  readonly extensionPath: string;
  /** Installing from an MCP Registry (commands/fromRegistry.ts). */
  readonly registry: RegistryPort;
  /** Held tool definitions reviewed in the diff editor (src/vscode/pins.ts). */
  readonly pins: { review(g: GatewayFacade, server: string, name?: string): Promise<string[]> };
}

type Args = never[];

/** A command that works with or without a gateway. */
export interface Command {
  readonly needsGateway?: false;
  run(d: Deps, ...args: Args): unknown;
}

/** A command that acts on the running gateway. */
export interface GatewayCommand {
  readonly needsGateway: true;
  run(d: Deps, g: GatewayFacade, ...args: Args): unknown;
}

export const command = (run: Command['run']): Command => ({ run });
export const gatewayCommand = (run: GatewayCommand['run']): GatewayCommand => ({ needsGateway: true, run });

/** What a command says when it needs the gateway and none runs. */
export const notRunning = (host: { whyStopped: string }): string =>
  `mcpx: the gateway is not running: ${host.whyStopped}.`;

/** Runs a command as VS Code would, with the arguments the palette, a menu or a caller gave. */
export function invoke(c: Command | GatewayCommand, d: Deps, args: unknown[]): unknown {
  if (!c.needsGateway) return (c.run as (d: Deps, ...a: unknown[]) => unknown)(d, ...args);
  const g = d.host.gateway;
  if (!g) return void d.window.showWarningMessage(notRunning(d.host));
  return (c.run as (d: Deps, g: GatewayFacade, ...a: unknown[]) => unknown)(d, g, ...args);
}
