// The narrow ports the editor's commands and views reach VS Code and the gateway through. Each is a
// slice of a `vscode` API (its types only: nothing here loads `vscode`), so a command or a view takes
// the real one in the extension host (editorPorts.ts) and a small hand-written fake in the unit tests
// (test/vscode-fakes/), which run in plain Node. The gateway is reached through GatewayFacade
// (src/gateway/editorPort.ts) as the host holds it.
import type * as vscode from 'vscode';
import type { BackgroundTasks, GatewayFacade, TaskView } from '../gateway/editorPort';
import type { JsonObject } from '../protocol/jsonrpc';
import type { Event } from './lifetimes';

/** What the commands show and ask through. */
export type EditorWindow = Pick<
  typeof vscode.window,
  | 'showQuickPick'
  | 'createQuickPick'
  | 'showInputBox'
  | 'showInformationMessage'
  | 'showWarningMessage'
  | 'showErrorMessage'
  | 'withProgress'
  | 'createQuickPick'
  | 'showTextDocument'
  | 'activeTextEditor'
>;
export type EditorCommands = Pick<typeof vscode.commands, 'executeCommand'>;
export type Clipboard = Pick<vscode.Clipboard, 'writeText'>;
/** The settings the commands read and write (mcpx.servers, VS Code's mcp.servers). */
export type EditorConfig = Pick<typeof vscode.workspace, 'getConfiguration' | 'openTextDocument'>;
/** The classes and enums the commands and views build with: VS Code's, or a test's stand-ins. */
export type Kit = Pick<
  typeof vscode,
  | 'TreeItem'
  | 'TreeItemCollapsibleState'
  | 'ThemeIcon'
  | 'ThemeColor'
  | 'ProgressLocation'
  | 'ConfigurationTarget'
  | 'Selection'
  | 'Range'
>;
export type Memento = Pick<vscode.Memento, 'get' | 'update'>;

/** A task of the server (either era), as the Tasks view and its commands read it. */
export type TaskEntry = Pick<
  TaskView,
  'id' | 'status' | 'statusMessage' | 'createdAt' | 'updatedAt' | 'terminal' | 'cancel'
> & {
  readonly info: Pick<TaskView['info'], 'label' | 'client' | 'era'>;
  readonly call: Pick<TaskView['call'], 'id' | 'progress' | 'finished'>;
};

/** The server's task store, as the editor reads it. */
export interface TaskList {
  list(identity: undefined): TaskEntry[];
  find(id: string): TaskEntry | undefined;
  onChange(fn: () => void): () => void;
}

/** One gateway run: what exists while a gateway listens (src/vscode/lifetimes.ts). */
export interface GatewayRun {
  readonly gateway: GatewayFacade;
  readonly tasks: TaskList;
  readonly background: BackgroundTasks;
}

/** The gateway as the views and commands see it: the one running (or why none runs), its endpoint, its
 *  task stores, and an event when any of that changes. */
export interface GatewayState {
  readonly gateway?: GatewayFacade;
  readonly whyStopped: string;
  /** The endpoint that works, secret included: for clients and the clipboard, never for a log. */
  readonly endpoint?: string;
  /** The endpoint without the secret: what may be shown. */
  readonly bareEndpoint?: string;
  readonly secret?: string;
  readonly tasks?: TaskList;
  readonly background?: BackgroundTasks;
  readonly onDidChange: Event<void>;
}

/** What the commands need of the host beyond the gateway's state: the server definitions' sources and
 *  the credentials kept in SecretStorage. */
export interface HostPort extends GatewayState {
  /** The ${secret:NAME} names the sources refer to. */
  referencedSecrets(): string[];
  /** The workspace's mcp.json when it defines the server; undefined: the user setting does. */
  definedIn(server: string): vscode.Uri | undefined;
  readonly secrets?: Pick<vscode.SecretStorage, 'store'>;
  /** Where the person's permission rules come from; undefined: no source has a `permissions` block. */
  readonly permissionsFrom?: string;
}

/** The workspace's .vscode/mcp.json, for Add Server…. */
export interface McpJsonFile {
  readonly path: string;
  /** Its text; undefined when there is no such file yet. */
  read(): Promise<string | undefined>;
  write(text: string): Promise<void>;
}

/** Where results go: a read-only editor (src/vscode/results.ts). */
export interface ResultsPort {
  show(title: string, result: JsonObject): Promise<void>;
  /** A value as a read-only JSON document. */
  showJson(title: string, value: unknown): Promise<void>;
}

/** A tool call whose app is to be shown: its server, the tool's definition (with `_meta.ui`), the
 *  arguments it was called with and, once it has finished, its result. */
export interface AppCall {
  readonly server: string;
  readonly tool: JsonObject;
  readonly input: JsonObject;
  readonly result?: JsonObject;
}

/** MCP Apps in the editor (src/vscode/apps/). */
export interface AppsPort {
  /** Whether this tool of this server has an app, as far as is known now (the views' rows ask). */
  has(server: string, tool: string): boolean;
  /** What `has` says changed. */
  readonly onDidChange: Event<void>;
  /** The tool's definition when it has an app (listed if not known). */
  definition(server: string, tool: string): Promise<JsonObject | undefined>;
  /** Remembers a server's tools as a caller listed them. */
  learn(server: string, tools: readonly JsonObject[]): void;
  /** Opens the app of a call; rejects with the reason it cannot. */
  open(g: GatewayFacade, call: AppCall): Promise<void>;
}

/** What installing from an MCP Registry needs of the host (commands/fromRegistry.ts). */
export interface RegistryPort {
  /** Where installed servers' files and the registry's cache live (the gateway's state directory). */
  readonly stateDir: string;
  /** Undefined when the platform's sandbox runs here; else why not. */
  sandboxAvailable(): Promise<string | undefined>;
}
