// Runs one gateway in the extension host: on mcpx.port, or the next free port if it is taken. Its servers
// come from the user setting mcpx.servers and the workspace's .vscode/mcp.json (the workspace wins);
// a change to either rebuilds the gateway on the same port. The workspace folders are its roots.
// <state>/endpoints.json maps each window's workspace to its endpoint for tools outside VS Code.
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { type Listening, listen } from '../app/app';
import { gatewayRoutes } from '../app/routes';
import { VERSION } from '../config/version';
import { defaultStateDir, secretNames } from '../config/file';
import { endpointSecret, endpointsFile, privateDir, writePrivate } from '../config/secret';
import { type Source, mergeSources } from '../config/merge';
import { SETTINGS, Settings, envLayer } from '../config/settings';
import type { GatewayEvent } from '../gateway/events';
import type { BackgroundTasks, GatewayFacade, PersonPort, SignInPort, TaskBoard } from '../gateway/facade';
import { Gateway } from '../gateway/gateway';
import type { JsonObject } from '../protocol/jsonrpc';
import { vscodeLayer } from './settings';
import { isSignInKey, secretStore } from './secretStore';

const PORT_TRIES = 20;
const MAX_DETACHED_KEPT = 20;

/** A palette tool call sent to the background ("Run in background" on its progress notification). */
export interface DetachedCall {
  readonly id: string;
  readonly server: string;
  readonly tool: string;
  readonly startedAt: number;
  status: 'working' | 'completed' | 'failed' | 'cancelled';
  endedAt?: number;
  progress?: { progress: number; total?: number };
  /** The result, or the error's message, once it has finished. */
  outcome?: JsonObject | string;
  /** Cancels the call (its upstream work is aborted). */
  readonly abort: AbortController;
}

export class GatewayHost implements vscode.Disposable {
  private listening?: Listening;
  /** The running gateway, as the editor may use it (src/gateway/facade.ts). */
  gateway?: GatewayFacade;
  /** Why the gateway is not running, when it is not. */
  whyStopped = 'it has not started yet';
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  /** Every event of whichever gateway runs (it is rebuilt on a config change), log lines included. */
  private readonly events = new vscode.EventEmitter<GatewayEvent>();
  readonly onEvent = this.events.event;
  /** Every line the gateway logs (an upstream's stderr among them, as `[server] line`). */
  private readonly lines = new vscode.EventEmitter<string>();
  readonly onLogLine = this.lines.event;
  private readonly subs: vscode.Disposable[] = [];
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('mcpx');

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly stateDir: string | undefined,
    private readonly person?: PersonPort,
    readonly secrets?: vscode.SecretStorage,
    /** Signing in to upstreams: the person's part (src/vscode/signIn.ts). */
    private readonly signIn?: SignInPort,
  ) {
    this.subs.push(
      this.diagnostics,
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.gateway?.setRoots(roots())),
      // Servers or a gateway setting changed: rebuild. (mcpx.sampling.models and mcpx.autoStart are read
      // where they are used; they need no rebuild.)
      vscode.workspace.onDidChangeConfiguration(
        (e) =>
          (e.affectsConfiguration('mcpx.servers') || SETTINGS.some((d) => e.affectsConfiguration(`mcpx.${d.key}`))) &&
          void this.reload(),
      ),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.reload()),
    );
    // A credential the config refers to changed: rebuild. A sign-in is not config (the gateway that
    // stored it uses it as it is).
    if (secrets) this.subs.push(secrets.onDidChange((e) => !isSignInKey(e.key) && void this.reload()));
    const watcher = vscode.workspace.createFileSystemWatcher('**/.vscode/mcp.json');
    this.subs.push(
      watcher,
      watcher.onDidChange(() => void this.reload()),
      watcher.onDidCreate(() => void this.reload()),
      watcher.onDidDelete(() => void this.reload()),
    );
  }

  /** Sign-ins in SecretStorage, the person asked through the editor; the fix a failed call names. */
  private auth() {
    return {
      store: this.secrets ? secretStore(this.secrets) : undefined,
      person: this.signIn,
      fixHint: 'choose Sign In on "{server}" in the mcpx Upstreams view (or run mcpx: Sign In to Server…)',
    };
  }

  /** The endpoint that works, with the secret (docs/security.md "The endpoint secret"): for clients, the
   *  clipboard and endpoints.json; never for a log. */
  get endpoint(): string | undefined {
    return this.listening?.endpoint;
  }

  /** The endpoint without the secret: what may be shown and logged. */
  get bareEndpoint(): string | undefined {
    return this.listening?.url;
  }

  /** The endpoint secret alone (for an Authorization header), while transport.secret is on; never for a log. */
  get secret(): string | undefined {
    return this.listening?.secret;
  }

  /** The install's endpoint secret, shared with `mcpx daemon` and `mcpx elicit` through the headless
   *  state directory; undefined while transport.secret is off. */
  private secretFor(settings: Settings): string | undefined {
    return settings.get<boolean>('transport.secret') ? endpointSecret(defaultStateDir(process.env)) : undefined;
  }

  /** Resolves true when an upstream says a URL elicitation's step is complete; false if `signal` ends
   *  first (or the gateway stops). */
  waitElicitation(server: string, elicitationId: string, signal: AbortSignal): Promise<boolean> {
    const g = this.gateway;
    if (!g || signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const off = g.onEvent((e) => {
        if (e.type === 'elicitation.complete' && e.server === server && e.elicitationId === elicitationId) finish(true);
      });
      const onStop = this.onDidChange(() => !this.gateway && finish(false));
      const finish = (v: boolean) => {
        off();
        onStop.dispose();
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      };
      const onAbort = () => finish(false);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The background calls of 2026-07-28 clients (the server's task store), for the Tasks view. */
  get background(): BackgroundTasks | undefined {
    return this.listening?.background;
  }

  /** Every task of this gateway, both eras (the server's task store), for the Tasks view. */
  get tasks(): TaskBoard | undefined {
    return this.listening?.tasks;
  }
  /** Stops the views hearing of the task store's changes (set while a gateway runs). */
  private offTasks?: () => void;

  /** Tool calls from the palette the person sent to the background: they run on in the editor, and the
   *  Tasks view lists them beside the gateway's tasks (newest last; the finished ones beyond 20 go). */
  readonly detached: DetachedCall[] = [];

  /** A detached call came, changed or went: the views refresh. */
  detachedChanged(): void {
    const finished = this.detached.filter((c) => c.status !== 'working');
    for (const c of finished.slice(0, Math.max(0, finished.length - MAX_DETACHED_KEPT)))
      this.detached.splice(this.detached.indexOf(c), 1);
    this.changed.fire();
  }

  /** The two sources as they stand: the user setting first, the workspace file last (it wins). */
  private sourceList(): Source[] {
    const list: Source[] = [
      {
        label: 'settings (mcpx.servers)',
        value: { servers: vscode.workspace.getConfiguration('mcpx').get('servers') ?? {} },
        workspace: false,
      },
    ];
    const file = this.workspaceFile();
    if (file) {
      try {
        list.push({
          label: file.fsPath,
          value: JSON.parse(readFileSync(file.fsPath, 'utf8')) as unknown,
          workspace: true,
        });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
          list.push({ label: file.fsPath, value: `not JSON: ${(e as Error).message}`, workspace: true });
      }
    }
    return list;
  }

  private workspaceFile(): vscode.Uri | undefined {
    const folder = vscode.workspace.workspaceFolders?.[0];
    return folder ? vscode.Uri.joinPath(folder.uri, '.vscode', 'mcp.json') : undefined;
  }

  /** The workspace's mcp.json when it defines the server in use; undefined: the user setting does. */
  definedIn(server: string): vscode.Uri | undefined {
    const file = this.workspaceFile();
    return file && this.fromWorkspace.has(server) ? file : undefined;
  }
  private fromWorkspace = new Set<string>();

  /** The ${secret:NAME} names the sources refer to (for mcpx: Set Secret…). */
  referencedSecrets(): string[] {
    return secretNames(this.sourceList().map((x) => x.value));
  }

  /** The servers of both sources, problems reported (a diagnostic on the file, a notification).
   *  Credentials come from SecretStorage through ${secret:NAME}; their values are never logged. */
  private async sources() {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const file = this.workspaceFile();
    const list = this.sourceList();
    this.diagnostics.clear();
    const secrets: Record<string, string> = {};
    for (const name of secretNames(list.map((x) => x.value))) {
      const v = await this.secrets?.get(name);
      if (v !== undefined) secrets[name] = v;
    }
    const merged = mergeSources(list, {
      env: process.env,
      workspaceFolder: folder?.uri.fsPath,
      trusted: vscode.workspace.isTrusted,
      secrets,
    });
    merged.config.roots = roots();
    const problems = [...merged.problems, ...merged.clashes];
    for (const p of problems) this.log.warn(p);
    if (merged.untrusted.length)
      this.log.warn(`not spawned until this workspace is trusted: ${merged.untrusted.join(', ')}`);
    const inFile = file ? problems.filter((p) => p.startsWith(file.fsPath)) : [];
    if (file && inFile.length) {
      this.diagnostics.set(
        file,
        inFile.map(
          (p) =>
            new vscode.Diagnostic(
              new vscode.Range(0, 0, 0, 0),
              p.slice(file.fsPath.length + 2),
              vscode.DiagnosticSeverity.Warning,
            ),
        ),
      );
    }
    if (problems.length)
      void vscode.window.showWarningMessage(
        `mcpx: ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more in the log)` : ''}`,
      );
    this.fromWorkspace = merged.fromWorkspace;
    return merged.config;
  }

  // ---- VS Code's own MCP support --------------------------------------------------------------
  // VS Code runs the servers of the workspace's .vscode/mcp.json itself. mcpx offers its chat a second,
  // narrower gateway with only the servers VS Code does not already run (those of mcpx.servers), so no
  // server is offered twice; agents outside VS Code use the main endpoint, which has all of them.
  private editorView?: { listening: Listening; gateway: GatewayFacade };
  private readonly definitions = new vscode.EventEmitter<void>();
  readonly onDidChangeDefinitions = this.definitions.event;

  /** The endpoint offered to VS Code's chat, started on first ask; none when VS Code runs them all. */
  async editorEndpoint(): Promise<string | undefined> {
    if (!this.listening || !this.gateway) return undefined;
    const { settings } = this.gateway;
    const userOnly = this.gateway.config.servers.filter((d) => !this.fromWorkspace.has(d.name));
    if (userOnly.length === 0) return undefined;
    if (!this.editorView) {
      const gateway = new Gateway(
        { servers: userOnly, roots: roots(), settings: {}, issues: [], source: 'mcpx.servers' },
        settings,
        {
          log: (l) => this.log.info(`[editor view] ${l}`),
          stateDir: this.stateDir,
          person: this.person,
          auth: this.auth(),
          clientInfo: { name: 'mcpx-vscode', version: VERSION },
        },
      );
      const listening = await listen({
        provider: gateway,
        settings,
        port: 0,
        routes: gatewayRoutes(gateway),
        log: (l) => this.log.error(l),
        secret: this.secretFor(settings),
        stateDir: defaultStateDir(process.env),
      });
      this.editorView = { listening, gateway };
      this.log.info(`VS Code's chat is offered ${listening.url} with ${userOnly.map((d) => d.name).join(', ')}`);
    }
    // VS Code's chat is given the URL with the secret in its path.
    return this.editorView.listening.endpoint;
  }

  /** Resolves with the endpoint that works (with the secret). */
  async start(): Promise<string> {
    if (this.listening) return this.listening.endpoint;
    const config = await this.sources();
    const settings = new Settings([
      { source: 'vscode', values: vscodeLayer() },
      { source: 'env', values: envLayer(process.env) },
    ]);
    const gateway = new Gateway(config, settings, {
      log: (l) => {
        this.log.info(l);
        this.lines.fire(l);
      },
      stateDir: this.stateDir,
      person: this.person,
      auth: this.auth(),
      clientInfo: { name: 'mcpx-vscode', version: VERSION },
    });
    const secret = this.secretFor(settings);
    const first = this.port ?? settings.get<number>('port');
    let lastError: unknown;
    for (let port = first; port < first + PORT_TRIES; port++) {
      try {
        this.listening = await listen({
          provider: gateway,
          settings,
          port,
          routes: gatewayRoutes(gateway),
          log: (l) => this.log.error(l),
          secret,
          stateDir: defaultStateDir(process.env),
        });
        break;
      } catch (e) {
        lastError = e;
        if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || first === 0) break;
      }
    }
    if (!this.listening) {
      await gateway.close();
      this.whyStopped = `it could not listen on ports ${first}..${first + PORT_TRIES - 1}: ${(lastError as Error)?.message}`;
      throw new Error(`mcpx ${this.whyStopped}`);
    }
    this.gateway = gateway;
    this.port = Number(new URL(this.listening.url).port);
    // What the views and the status bar show changes with every event but an upstream's log line.
    gateway.onEvent((e) => {
      this.events.fire(e);
      if (e.type !== 'server.log') this.changed.fire();
    });
    this.listening.background.onChange = () => this.changed.fire();
    this.offTasks = this.listening.tasks.onChange(() => this.changed.fire());
    this.log.info(
      `gateway listening on ${this.listening.url} with ${config.servers.length} upstream(s): ${config.servers.map((s) => s.name).join(', ') || 'none'}`,
    );
    this.publish(this.listening.endpoint, this.listening.secret);
    this.changed.fire();
    this.definitions.fire();
    return this.listening.endpoint;
  }

  /** The port this window holds: a reload keeps it, so the endpoint agents were given stays true. */
  private port?: number;

  /** A source changed: the gateway is rebuilt on the same port with the new servers. */
  async reload(): Promise<void> {
    if (!this.listening) return;
    this.log.info('server configuration changed: reloading the gateway');
    await this.stop();
    await this.start().catch((e: Error) => this.log.error(e.message));
  }

  async stop(reason = 'it was stopped'): Promise<void> {
    this.whyStopped = reason;
    // Already stopped (deactivate, then dispose): nothing to close, publish or announce again.
    if (!this.listening && !this.gateway && !this.editorView) return;
    this.offTasks?.();
    this.offTasks = undefined;
    const l = this.listening;
    const g = this.gateway;
    const view = this.editorView;
    this.listening = undefined;
    this.gateway = undefined;
    this.editorView = undefined;
    await l?.close();
    await g?.close();
    await view?.listening.close();
    await view?.gateway.close();
    this.definitions.fire();
    this.publish(undefined);
    this.changed.fire();
  }

  /** <state>/endpoints.json: workspace folder -> endpoint of the window serving it, with the secret, so
   *  the file is owner-only (0600; docs/security.md "The endpoint secret"). */
  private publish(url: string | undefined, secret?: string): void {
    const key = vscode.workspace.workspaceFolders?.map((f) => f.uri.fsPath).join(',') || '(no folder)';
    const dir = defaultStateDir(process.env);
    const file = endpointsFile(dir);
    try {
      privateDir(dir);
      let all: Record<string, unknown> = {};
      try {
        all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      } catch {
        // first window
      }
      if (url) all[key] = { url, ...(secret ? { secret } : {}), pid: process.pid, at: new Date().toISOString() };
      else delete all[key];
      writePrivate(file, JSON.stringify(all, null, 2));
    } catch (e) {
      this.log.warn(`could not write ${file}: ${(e as Error).message}`);
    }
  }

  dispose(): void {
    void this.stop('the extension is deactivating');
    for (const c of this.detached)
      if (c.status === 'working') c.abort.abort(new Error('the extension is deactivating'));
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
    this.events.dispose();
    this.lines.dispose();
    this.definitions.dispose();
  }
}

/** mcpx's roots: the workspace folders (2025-11-25 client/roots; docs/questions.md "Who answers": a
 *  calling client that declared roots is asked first). */
function roots(): Array<{ uri: string; name: string }> {
  return (vscode.workspace.workspaceFolders ?? []).map((f) => ({ uri: f.uri.toString(), name: f.name }));
}
