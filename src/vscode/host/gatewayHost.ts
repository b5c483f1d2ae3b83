// Runs one gateway in the extension host: on mcpx.port, or the next free port if it is taken. Its servers
// come from the user setting mcpx.servers and the workspace's .vscode/mcp.json (sources.ts); a change to
// either — or to a gateway setting, a credential, the workspace's trust — is applied to the running
// gateway in place (applyChange.ts); only a change of its listener (port, address) restarts it. Each gateway is one run (lifetimes.ts): what the editor hangs on it ends with it. The workspace
// folders are its roots; <state>/endpoints.json names its endpoint for tools outside VS Code.
import * as vscode from 'vscode';
import { type Listening, listen } from '../../app/app';
import { gatewayRoutes } from '../../app/routes';
import type { Config } from '../../config/file';
import { defaultStateDir } from '../../config/file';
import { endpointSecret } from '../../config/secret';
import { SETTINGS, Settings, envLayer } from '../../config/settings';
import { VERSION } from '../../config/version';
import type { BackgroundTasks, GatewayFacade, PersonPort, SignInPort, TaskBoard } from '../../gateway/editorPort';
import { activityDir, editorWriter } from '../../gateway/activity/files';
import { Gateway } from '../../gateway/gateway';
import type { Approver, GrantStore } from '../../gateway/permissions/approval';
import { type Disposable, Emitter, type Lifetimes, disposable } from '../lifetimes';
import type { GatewayRun, HostPort } from '../ports';
import { applyChange } from './applyChange';
import { ChatEndpoint } from './chatEndpoint';
import { type EditorJournal, claimEditorJournal } from './editorJournal';
import { publishEndpoint } from './endpoints';
import { relayRuns } from './runRelay';
import { isSignInKey, secretStore } from './secretStore';
import { vscodeLayer } from './settings';
import { ConfigSources, roots } from './sources';

const PORT_TRIES = 20;

export interface HostOptions {
  readonly life: Lifetimes<GatewayRun>;
  readonly log: vscode.LogOutputChannel;
  /** Where the gateway keeps its state (the era cache); the extension's global storage. */
  readonly stateDir?: string;
  readonly person?: PersonPort;
  readonly secrets?: vscode.SecretStorage;
  /** Signing in to upstreams: the person's part (src/vscode/signIn.ts). */
  readonly signIn?: SignInPort;
  /** The editor's prompt for an `ask` and the workspace's "always allow" (src/vscode/permissions/), for
   *  both gateways: VS Code's chat asks the person the same way. */
  readonly permissions?: { readonly approver: Approver; readonly grants: GrantStore };
}

export class GatewayHost implements HostPort, Disposable {
  private listening?: Listening;
  /** The running gateway as this host made it: what a change of configuration is applied to. */
  private running?: Gateway;
  /** The running gateway, as the editor may use it (src/gateway/editorPort.ts). */
  gateway?: GatewayFacade;
  /** Why the gateway is not running, when it is not. */
  whyStopped = 'it has not started yet';
  private readonly changed = new Emitter();
  /** The gateway started or stopped, or something it shows changed (any event but a log line). */
  readonly onDidChange = this.changed.event;
  private readonly lines = new Emitter<string>();
  /** Every line the gateway logs (an upstream's stderr among them, as `[server] line`). */
  readonly onLogLine = this.lines.event;
  private readonly definitions = new Emitter();
  /** The endpoint offered to VS Code's chat came or went. */
  readonly onDidChangeDefinitions = this.definitions.event;
  private readonly sources: ConfigSources;
  private readonly chat: ChatEndpoint;
  private readonly subs: Disposable[];
  /** The port this window holds: a reload keeps it, so the endpoint agents were given stays true. */
  private port?: number;
  /** This window's task journal, claimed while the gateway runs (editorJournal.ts). */
  private journal?: EditorJournal;

  constructor(private readonly o: HostOptions) {
    const host = this;
    this.sources = new ConfigSources(o.log, o.secrets);
    this.chat = new ChatEndpoint({
      life: o.life,
      log: (l) => o.log.info(l),
      inWorkspace: (server) => this.sources.inWorkspace(server),
      gateway: (servers, settings) =>
        this.makeGateway(
          // The same permissions as the main gateway's, read through at each call (the gate reads
          // config.permissions per call), so a reload of the main one's rules applies here too: VS Code's
          // chat is a client like any other. Its Approver and grants are the main one's (makeGateway).
          {
            servers,
            roots: roots(),
            settings: {},
            issues: [],
            source: 'mcpx.servers',
            get permissions() {
              return host.running?.config.permissions;
            },
            // And its guardrails: what reaches VS Code's chat is screened as any client's.
            get guardrails() {
              return host.running?.config.guardrails;
            },
            // The main one's profiles, read through likewise: mcpx.chatProfile names one of them.
            get profiles() {
              return host.running?.config.profiles;
            },
          },
          settings,
          (l) => o.log.info(`[editor view] ${l}`),
        ),
      listen: (gateway, settings) => this.listenOn(gateway, settings, 0),
    });
    relayRuns(o.life, this.changed);
    this.subs = [this.sources, ...this.reloadTriggers()];
  }

  get secrets(): vscode.SecretStorage | undefined {
    return this.o.secrets;
  }

  /** A rebuild when what the gateway is made of changes; the roots follow the workspace folders. */
  private reloadTriggers(): Disposable[] {
    const reload = () => void this.reload();
    const watcher = vscode.workspace.createFileSystemWatcher('**/.vscode/mcp.json');
    return [
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.gateway?.setRoots(roots())),
      // Servers or a gateway setting changed. (mcpx.sampling.models and mcpx.autoStart are read where they
      // are used; they need no rebuild.)
      vscode.workspace.onDidChangeConfiguration(
        (e) =>
          (e.affectsConfiguration('mcpx.servers') ||
            e.affectsConfiguration('mcpx.permissions') ||
            e.affectsConfiguration('mcpx.guardrails') ||
            SETTINGS.some((d) => e.affectsConfiguration(`mcpx.${d.key}`))) &&
          reload(),
      ),
      vscode.workspace.onDidGrantWorkspaceTrust(reload),
      // A credential the config refers to changed. A sign-in is not config (the gateway that stored it
      // uses it as it is).
      ...(this.o.secrets ? [this.o.secrets.onDidChange((e) => !isSignInKey(e.key) && reload())] : []),
      watcher,
      watcher.onDidChange(reload),
      watcher.onDidCreate(reload),
      watcher.onDidDelete(reload),
    ];
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

  /** The background calls of 2026-07-28 clients (the server's task store), for the Tasks view. */
  get background(): BackgroundTasks | undefined {
    return this.listening?.background;
  }

  /** Every task of this gateway, both eras (the server's task store), for the Tasks view. */
  get tasks(): TaskBoard | undefined {
    return this.listening?.tasks;
  }

  /** Where the person's permission rules come from (none: no source has a block). */
  get permissionsFrom(): string | undefined {
    return this.sources.permissionsFrom;
  }

  definedIn(server: string): vscode.Uri | undefined {
    return this.sources.definedIn(server);
  }

  referencedSecrets(): string[] {
    return this.sources.referencedSecrets();
  }

  /** The endpoint offered to VS Code's chat, started on first ask; none when VS Code runs them all. */
  editorEndpoint(): Promise<string | undefined> {
    return this.chat.endpoint();
  }

  /** Resolves true when an upstream says a URL elicitation's step is complete; false if `signal` ends
   *  first, or the run does. */
  waitElicitation(server: string, elicitationId: string, signal: AbortSignal): Promise<boolean> {
    const g = this.gateway;
    if (!g || signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      let settled = false;
      let held: Disposable | undefined;
      const finish = (v: boolean) => {
        if (settled) return;
        settled = true;
        off();
        signal.removeEventListener('abort', onAbort);
        held?.dispose();
        resolve(v);
      };
      const off = g.onEvent((e) => {
        if (e.type === 'elicitation.complete' && e.server === server && e.elicitationId === elicitationId) finish(true);
      });
      const onAbort = () => finish(false);
      signal.addEventListener('abort', onAbort, { once: true });
      held = this.o.life.forRun(disposable(() => finish(false)));
    });
  }

  /** A gateway as this host makes one: its sign-ins in SecretStorage, the person asked in the editor. */
  private makeGateway(config: Config, settings: Settings, log: (line: string) => void): Gateway {
    return new Gateway(config, settings, {
      log,
      stateDir: this.o.stateDir,
      person: this.o.person,
      auth: {
        store: this.o.secrets ? secretStore(this.o.secrets) : undefined,
        person: this.o.signIn,
        fixHint: 'choose Sign In on "{server}" in the mcpx Upstreams view (or run mcpx: Sign In to Server…)',
      },
      clientInfo: { name: 'mcpx-vscode', version: VERSION },
      ...(this.o.permissions ? { permissions: { ...this.o.permissions } } : {}),
      // Beside the daemon's, in the headless state directory, so `mcpx activity` reads both.
      activity: { dir: activityDir(defaultStateDir(process.env)), writer: editorWriter(journalKey()) },
    });
  }

  private listenOn(gateway: Gateway, settings: Settings, port: number, journal?: EditorJournal): Promise<Listening> {
    return listen({
      provider: gateway,
      settings,
      port,
      routes: gatewayRoutes(gateway),
      log: (l) => this.o.log.error(l),
      // The install's endpoint secret, shared with `mcpx daemon` and `mcpx elicit` through the headless
      // state directory, while transport.secret is on.
      secret: settings.get<boolean>('transport.secret') ? endpointSecret(defaultStateDir(process.env)) : undefined,
      stateDir: defaultStateDir(process.env),
      ...(journal ? { journalDir: defaultStateDir(process.env), journalFile: journal.name } : {}),
    });
  }

  /** Resolves with the endpoint that works (with the secret). */
  async start(): Promise<string> {
    if (this.listening) return this.listening.endpoint;
    const config = await this.sources.load();
    const settings = hostSettings();
    const gateway = this.makeGateway(config, settings, (l) => {
      this.o.log.info(l);
      this.lines.fire(l);
    });
    // Tasks outlive a window reload: this workspace's journal, read back as the server starts.
    const journal = await claimEditorJournal(defaultStateDir(process.env), journalKey(), (l) => this.o.log.warn(l));
    let listening: Listening;
    try {
      listening = await this.listenFrom(gateway, settings, this.port ?? settings.get<number>('port'), journal);
    } catch (e) {
      journal?.lock.release();
      throw e;
    }
    this.journal = journal;
    // A run still closing (a stop under way) ends before this one begins.
    if (this.o.life.run) await this.o.life.end();
    this.listening = listening;
    this.gateway = gateway;
    this.running = gateway;
    this.port = Number(new URL(listening.url).port);
    this.o.life.begin({ gateway, tasks: listening.tasks, background: listening.background });
    this.o.log.info(
      `gateway listening on ${listening.url} with ${config.servers.length} upstream(s): ${config.servers.map((s) => s.name).join(', ') || 'none'}`,
    );
    this.publish(listening.endpoint, listening.secret);
    this.changed.fire();
    this.definitions.fire();
    return listening.endpoint;
  }

  /** Listening on `first`, or the next free port of PORT_TRIES; the gateway closed if none is. */
  private async listenFrom(
    gateway: Gateway,
    settings: Settings,
    first: number,
    journal?: EditorJournal,
  ): Promise<Listening> {
    let lastError: unknown;
    for (let port = first; port < first + PORT_TRIES; port++) {
      try {
        return await this.listenOn(gateway, settings, port, journal);
      } catch (e) {
        lastError = e;
        if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || first === 0) break;
      }
    }
    await gateway.close();
    this.whyStopped = `it could not listen on ports ${first}..${first + PORT_TRIES - 1}: ${(lastError as Error)?.message}`;
    throw new Error(`mcpx ${this.whyStopped}`);
  }

  /** A source changed: applied in place (applyChange.ts), or — where the listener must change — the
   *  gateway restarted on the same port. */
  async reload(): Promise<void> {
    const gateway = this.running;
    if (!this.listening || !gateway) return;
    let settings: Settings;
    try {
      settings = hostSettings();
    } catch (e) {
      void vscode.window.showErrorMessage(`mcpx: ${(e as Error).message}; the running configuration is kept`);
      return;
    }
    await applyChange(gateway, await this.sources.load(), settings, {
      restart: async () => {
        await this.stop();
        await this.start().catch((e: Error) => this.o.log.error(e.message));
      },
      log: (l) => this.o.log.info(l),
      showError: (m) => void vscode.window.showErrorMessage(m),
    });
    // mcpx.chatProfile (or the profile it names) changed: VS Code asks for the chat's endpoint again.
    if (this.chat.stale) this.definitions.fire();
    this.changed.fire();
  }

  async stop(reason = 'it was stopped'): Promise<void> {
    this.whyStopped = reason;
    // Already stopped (deactivate, then dispose): nothing to close, publish or announce again.
    if (!this.listening && !this.gateway && !this.o.life.run) return;
    const l = this.listening;
    const g = this.gateway;
    this.listening = undefined;
    this.gateway = undefined;
    this.running = undefined;
    await l?.close();
    // The server closed its journal: the next start (this window's, or the reloaded window's) takes it.
    this.journal?.lock.release();
    this.journal = undefined;
    await g?.close();
    // Then the run's own: what listened to it (its last events heard), the chat's gateway.
    await this.o.life.end();
    this.definitions.fire();
    this.publish(undefined);
    this.changed.fire();
  }

  private publish(url: string | undefined, secret?: string): void {
    const problem = publishEndpoint(workspaceKey(), url, secret);
    if (problem) this.o.log.warn(problem);
  }

  dispose(): void {
    void this.stop('the extension is deactivating');
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
    this.lines.dispose();
    this.definitions.dispose();
  }
}

/** The workspace as endpoints.json names it: its folders (a stdio shim finds the window by its folder). */
function workspaceKey(): string {
  return vscode.workspace.workspaceFolders?.map((f) => f.uri.fsPath).join(',') || '(no folder)';
}

/** The workspace as the task journal and the activity log name it: its .code-workspace file when it has one — the same after
 *  a folder is added or removed, which a reload then reopens —, else its folders. */
function journalKey(): string {
  return vscode.workspace.workspaceFile?.toString() ?? workspaceKey();
}

/** The gateway's settings as the editor reads them: mcpx.* over the defaults, MCPX_* over those. */
function hostSettings(): Settings {
  return new Settings([
    { source: 'vscode', values: vscodeLayer() },
    { source: 'env', values: envLayer(process.env) },
  ]);
}
