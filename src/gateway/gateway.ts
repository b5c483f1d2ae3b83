// The gateway: the Provider the server serves. Configured upstreams behind one surface — through the
// gateway's own tools (src/gateway/tools/), prompts as <server>_<prompt>, resources as
// mcpx://<server>/<uri> — or, for the servers named in mcp.passthrough, under their own names
// (docs/gateway.md "The surface", "Pass-through"). Its parts are built in one pass (compose.ts).
import type { Config } from '../config/file';
import { ALLOW_ALL, type Permissions } from '../config/permissions';
import type { Settings } from '../config/settings';
import { CODES, ProtocolError, isTypedError, resourceNotFound } from '../protocol/errors';
import type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  ParamsOf,
  ReadResourceResult,
} from '../protocol/methods';
import { APP_HOST_CAPABILITIES } from '../protocol/extensions';
import type { JsonObject } from '../protocol/jsonrpc';
import type { Principal } from '../protocol/principal';
import type {
  CallContext,
  ListKind,
  Provider,
  ProviderCapabilities,
  ToolHandle,
  UnrelatedLog,
} from '../server/provider';
import { stopTracing } from '../telemetry/trace';
import type { SignInState } from '../upstream/auth/authorizer';
import type { ActivityLog } from './activity/log';
import type { CallPath } from './activity/record';
import { extensionSet } from './call/capabilities';
import { type GatewayOptions, type GatewayParts, composeGateway } from './compose';
import type { RunView } from './exec/runs';
import type { GatewayEvent, GatewayFacade, Question, ServerListKind, UpstreamStatus, WatchRow } from './editorPort';
import type { ConfigDiff } from './reload';
import { type Running, applyConfig } from './applyConfig';
import type { Approver, Grant } from './permissions/approval';
import type { PinKind } from './pins/store';
import type { PinReview, PinView } from './pins/pins';
import type { ProfileSummary, Profiles } from './profiles/profiles';
import { type Found, searchOffered } from './search/find';
import { ToolApi } from './surface/httpApi';
import { declared } from './surface/declared';
import { ToolSurface } from './surface/tools';
import { ARTIFACT_PREFIX, type Artifacts, artifactsOf } from './surface/artifacts';
import type { Watch } from './inbox/subscriptions';
import { NotOffered } from './call/offered';

/** How the server hears of a list change: its kind, and which endpoints' clients it concerns (a
 *  profile's name, or undefined for the default endpoint). */
type ListChangeListener = (kind: ListKind, reaches: (profile: string | undefined) => boolean) => void;

export type { GatewayOptions } from './compose';

/** The editor's extension set (it renders apps), keyed once rather than on every list it shows. */
const EDITOR_EXT = extensionSet({ clientCapabilities: APP_HOST_CAPABILITIES });

export class Gateway implements Provider, GatewayFacade {
  /** The parts, built in dependency order (compose.ts). */
  private readonly p: GatewayParts;
  /** The server's announcer of list changes (onListChanged): to the clients of the endpoints `reaches`
   *  says; a no-op until it registers one. */
  private announce: ListChangeListener = () => undefined;
  /** The server's sink of log messages no call took (onLog); a no-op until it registers one. */
  private unrelatedLog: (entry: UnrelatedLog) => void = () => undefined;
  /** Reloads, one after the other. */
  private reloading: Promise<unknown> = Promise.resolve();

  /** Large results kept for their client (docs/gateway.md "Artifacts"). */
  private readonly artifacts: Artifacts;
  /** What a client of each endpoint sees and calls of the tools. */
  private readonly surface: ToolSurface;

  constructor(
    readonly config: Config,
    readonly settings: Settings,
    readonly opts: GatewayOptions = {},
  ) {
    this.p = composeGateway(config, settings, opts, {
      changed: (kind, server) => this.changed(kind, server),
      unrelatedLog: (entry) => this.unrelatedLog(entry),
    });
    this.artifacts = artifactsOf(config, settings, this.p.log, opts.shared?.artifacts);
    this.surface = new ToolSurface(this.p, this.artifacts);
  }

  /** A list changed — a server's (`server`), or the gateway's own — told to each endpoint it concerns
   *  (docs/gateway.md "Profiles": a profile's clients hear of its own servers only). */
  private changed(kind: ListKind, server?: string): void {
    this.announce(kind, this.p.profiles.reaches(kind, server));
  }

  capabilities(profile?: string): ProviderCapabilities {
    const { profiles, passthrough } = this.p;
    const offered = profile !== undefined && profiles.has(profile) ? profiles.named(profile) : undefined;
    // The default endpoint: wherever mcp.passthrough names a server, configured now or by a later reload
    // (the setting itself waits for the next start).
    const listsTools = offered
      ? offered.view.listed().length > 0
      : this.settings.get<string[]>('mcp.passthrough').length > 0;
    return declared(listsTools, passthrough);
  }

  onListChanged(listener: ListChangeListener): void {
    this.announce = listener;
  }

  /** Whether `name` is a configured profile (its endpoint /mcp/<secret>/<name>; docs/gateway.md
   *  "Profiles"). */
  hasProfile(name: string): boolean {
    return this.p.profiles.has(name);
  }

  profileAccess(name: string, principal?: Principal): ReturnType<Profiles['access']> {
    return this.p.profiles.access(name, principal);
  }

  /** The configured profiles, for /v1/profiles and `mcpx profiles` (GatewayFacade). */
  get profiles(): Profiles {
    return this.p.profiles;
  }

  /** Each profile with its counts of servers and tools (its servers started to list them). */
  profileSummaries(identity: string): Promise<ProfileSummary[]> {
    return this.p.profiles.summaries(
      identity,
      this.p.tools.definitions(this.p.profiles.default.view).map((t) => String(t.name)),
    );
  }

  onLog(listener: (entry: UnrelatedLog) => void): void {
    this.unrelatedLog = listener;
  }

  /** Every call's record: the call gate appends (ActivitySink); the editor, /v1/activity and `mcpx
   *  activity` read (docs/gateway.md "Activity"). */
  get activity(): ActivityLog {
    return this.p.activity;
  }

  listening(): Promise<void> {
    return this.p.subscriptions.listening();
  }

  /** A request's own identity (2026-07-28, or legacy HTTP outside a session) ended with its call: its instances of `scope: "identity"`
   *  servers stop now rather than after pool.idleTimeout (docs/security.md "Bounds"). */
  identityEnded(identity: string): void {
    void this.p.pool.release(identity);
  }

  /** A listener's endpoint secret: masked in the activity log like every configured secret
   *  (docs/security.md "Secrets in output and logs"). */
  endpointSecret(secret: string): void {
    this.p.secrets.add(secret);
  }

  /** A watch through the call chain: a profile's client watches only the resources its profile offers
   *  (docs/gateway.md "Profiles"), and none a rule denies reading. A URI naming no configured server is
   *  not quoted in the log: it may be anything its watcher wrote. */
  async subscribe(uri: string, deliver: (uri: string) => void, ctx: CallContext): Promise<Watch> {
    try {
      return await this.p.entries.watch(uri, deliver, ctx);
    } catch (e) {
      if (!isTypedError(e)) throw e;
      return this.p.subscriptions.unwatched(uri, e.message, e instanceof NotOffered && e.unnamed ? 'a watch' : uri);
    }
  }

  /** mcpx's own roots changed (the editor's workspace folders): asked-for roots answer with the new ones
   *  at once; legacy upstreams are told with notifications/roots/list_changed (mcpx declares
   *  roots.listChanged). A 2026-07-28 upstream asks again on its next request: there is nothing to tell. */
  setRoots(roots: Array<{ uri: string; name?: string }>): void {
    this.config.roots.splice(0, this.config.roots.length, ...roots);
    for (const c of this.p.pool.runningClients())
      c.codec.client.rootsChanged(
        () =>
          void c
            .notify('notifications/roots/list_changed')
            .catch((e: Error) => this.p.log(`[${c.name}] roots/list_changed: ${e.message}`)),
      );
  }

  // ---- tools ---------------------------------------------------------------------------------
  listTools(ctx: CallContext): Promise<JsonObject[]> {
    return this.surface.list(ctx);
  }

  /** A list holds what an identity-scoped server lists: tools only in pass-through (gateway mode's are its
   *  own), the others in either mode (docs/protocol.md "Cache hints on lists"). */
  listsPerCaller(method: string): boolean {
    const servers = method === 'tools/list' ? this.p.passthrough : [...this.p.defs.keys()];
    return servers.some((s) => this.p.defs.get(s)?.scope === 'identity');
  }

  resolveTool(name: string, ctx: CallContext): ToolHandle | undefined | Promise<ToolHandle | undefined> {
    return this.surface.resolve(name, ctx);
  }

  private toolApi?: ToolApi;
  /** The HTTP API's tools and calls (app/api.ts; docs/gateway.md "The HTTP API"). */
  get api(): ToolApi {
    const { catalogue, entries, profiles } = this.p;
    this.toolApi ??= new ToolApi({ catalogue, entries, profiles });
    return this.toolApi;
  }

  /** A tool called from the editor (GatewayFacade), through the same lookup as a tools/call; its calls
   *  pass the permission check as the palette's (transport `editor`). */
  callTool(name: string, args: JsonObject, ctx: CallContext): Promise<CallToolResult> {
    return this.surface.callFromEditor(name, args, ctx);
  }

  /** Tool search for the editor's pickers (GatewayFacade): mcpx_search's, over the caller's endpoint. */
  searchTools(query: string, o: { server?: string; limit: number }, ctx: CallContext): Promise<Found> {
    return searchOffered({ catalogue: this.p.catalogue }, this.p.profiles.of(ctx), ctx.identity, { ...o, query });
  }

  // ---- permissions (src/gateway/permissions/; GatewayFacade) -----------------------------------
  /** The host's Approver (the editor's prompt); undefined: the broker again (`mcpx elicit`). */
  setApprover(approver: Approver | undefined): void {
    this.p.approver.current = approver;
  }
  /** The permissions in force (the config's block; none allows every call). */
  permissions(): Permissions {
    return this.config.permissions ?? ALLOW_ALL;
  }
  /** Every "always allow", and its revocation (false: no such grant). */
  grants(): readonly Grant[] {
    return this.p.gate.grants();
  }
  revokeGrant(id: string): Promise<boolean> {
    return this.p.gate.revoke(id);
  }

  // ---- pins (src/gateway/pins/; GatewayFacade, /v1/pins) ------------------------------------------
  /** Every configured or pinned server's pins and what is held. */
  pinViews(server?: string): PinView[] {
    const { pins, defs } = this.p;
    return server === undefined ? pins.views([...defs.keys()]) : [pins.view(server)];
  }
  /** The review of a server's held definitions (or the one named). */
  pinReviews(server: string, name?: string): PinReview[] {
    return this.p.pins.reviews(server, name);
  }
  /** Accept what is held (all of a server, or one name): pinned as it is now, and every client told. */
  acceptPins(server: string, name?: string): string[] {
    const { accepted, kinds } = this.p.pins.accept(server, name);
    this.pinsChanged(server, kinds);
    return accepted;
  }
  /** Forget a server's pins: what it lists next is pinned afresh, and every client told. */
  resetPins(server: string): boolean {
    const had = this.p.pins.reset(server);
    this.pinsChanged(server, ['tools', 'prompts', 'skills']);
    return had;
  }
  /** Another replica of the team changed `server`'s pins (accepted, reset): its lists are screened again
   *  and every client told (docs/team.md "Pins and grants"). */
  readonly pinsChangedElsewhere = (server: string, kinds: PinKind[]): void => this.pinsChanged(server, kinds);

  /** Another replica heard `server`'s list change: dropped here too and this replica's clients told
   *  (docs/team.md "Lists"). */
  listChangedElsewhere(kind: ListKind, server: string): void {
    this.p.catalogue.invalidate(server, kind === 'resources' ? ['resources', 'resourceTemplates'] : [kind]);
    this.changed(kind, server);
  }

  /** The lists fetched again and announced (each era's list-change notification, as a reload's): a
   *  server's tools are listed to clients in pass-through; its prompts in both modes. */
  private pinsChanged(server: string, kinds: PinKind[]): void {
    const lists = kinds.filter((k) => k !== 'apps');
    if (!lists.length) return;
    this.p.catalogue.invalidate(server, lists);
    if (kinds.includes('tools')) this.changed('tools', server);
    if (kinds.includes('prompts')) this.changed('prompts', server);
  }

  // ---- prompts, resources, skills, completion (src/gateway/surface/, through the call chain) -----
  listPrompts(ctx: CallContext): Promise<JsonObject[]> {
    return this.p.prompts.list(ctx);
  }
  getPrompt(name: string, args: Record<string, string>, ctx: CallContext): Promise<GetPromptResult> {
    return this.p.entries.prompt(name, args, ctx);
  }
  /** The servers' resources, then the caller's own artifacts. */
  async listResources(ctx: CallContext): Promise<JsonObject[]> {
    return [...(await this.p.resources.list(ctx)), ...this.artifacts.list(ctx.identity)];
  }
  listResourceTemplates(ctx: CallContext): Promise<JsonObject[]> {
    return this.p.resources.templates(ctx);
  }
  /** An artifact is its own identity's alone: for any other, the era's resource-not-found error, as for
   *  one that never was (docs/gateway.md "Artifacts"). */
  async readResource(uri: string, ctx: CallContext): Promise<ReadResourceResult> {
    if (!uri.startsWith(ARTIFACT_PREFIX)) return this.p.entries.read(uri, ctx);
    const read = this.artifacts.read(uri, ctx.identity) ?? (await this.artifacts.readShared(uri, ctx.identity));
    if (!read) throw resourceNotFound(uri);
    return read;
  }
  /** Skills (SEP-2640; docs/gateway.md "Skills"): skills/get through the call chain. */
  listSkills(ctx: CallContext): Promise<JsonObject[]> {
    return this.p.skills.list(ctx);
  }
  getSkill(uri: string, ctx: CallContext): Promise<JsonObject> {
    return this.p.entries.skill(uri, ctx);
  }
  complete(params: ParamsOf<'completion/complete'>, ctx: CallContext, path?: CallPath): Promise<CompleteResult> {
    return this.p.entries.complete(params, ctx, path);
  }

  // ---- the editor's operations (GatewayFacade, src/gateway/editorPort.ts) ----------------------------
  servers(): UpstreamStatus[] {
    return this.p.pool.statuses();
  }
  stopServer(server: string): Promise<void> {
    return this.p.pool.stop(server);
  }
  async restartServer(server: string, identity: string): Promise<void> {
    await this.p.pool.stop(server);
    await this.p.pool.client(server, identity);
  }
  /** A server's list as the editor sees it: a pass-through server's as a host that renders apps (the
   *  editor's own calls declare the ui extension: vscode/editorCall.ts). */
  serverList(server: string, kind: ServerListKind, identity: string): Promise<JsonObject[]> {
    return this.p.catalogue.list(server, kind, identity, this.p.passthrough.includes(server) ? EDITOR_EXT : undefined);
  }
  questions(): Question[] {
    return this.p.broker.list();
  }
  answer(id: string, result: JsonObject): string | undefined {
    return this.p.broker.answer(id, result);
  }
  runs(): RunView[] {
    return this.p.exec.runs();
  }
  watches(): WatchRow[] {
    return this.p.subscriptions.watches.rows();
  }
  onEvent(listener: (e: GatewayEvent & { at: number }) => void): () => void {
    return this.p.events.on(listener);
  }

  /** A server's sign-in state: signed in, needs one, signing in, or not an OAuth server (yet). */
  signInState(server: string): SignInState {
    const def = this.p.defs.get(server);
    return (def && this.p.authorizers.for(def)?.status()) ?? 'not-needed';
  }

  /** Sign in to a server now (the person's part through the host's SignInPort), then reconnect it. */
  async signIn(server: string, identity: string): Promise<void> {
    const def = this.p.pool.def(server);
    const a = this.p.authorizers.for(def);
    if (!a) throw new ProtocolError(CODES.InvalidParams, `${server} is not an HTTP server that signs in with OAuth`);
    await a.ensureLoaded();
    await a.signIn();
    await this.restartServer(server, identity);
  }

  /** Forget a server's sign-in, revoking its tokens where the authorization server can; what went wrong
   *  revoking, if anything. */
  async signOut(server: string): Promise<string | undefined> {
    const def = this.p.pool.def(server);
    const note = await this.p.authorizers.for(def)?.signOut();
    await this.stopServer(server);
    return note;
  }

  /** Apply a new configuration in place (docs/gateway.md "Changing the configuration"). A configuration
   *  with any problem is refused whole with a ReloadError, and nothing changes. Otherwise added servers
   *  start as usual; a removed server's calls in flight fail naming the change and its instances stop
   *  before this resolves; a changed server's new calls go to a new instance while its old one finishes
   *  what it runs; kept servers, the listener, every session, stream, task and question are untouched.
   *  Settings apply live, but those of AT_NEXT_START. Clients are told of list changes (listChanged). */
  reload(config: Config, settings: Settings): Promise<ConfigDiff> {
    const running: Running = {
      config: this.config,
      settings: this.settings,
      parts: this.p,
      changed: (kind) => this.changed(kind),
      announce: (kind, reaches) => this.announce(kind, reaches),
      setRoots: (roots) => this.setRoots(roots),
    };
    const next = this.reloading.then(() => applyConfig(running, config, settings));
    this.reloading = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    await this.p.exec.close();
    this.p.subscriptions.close();
    this.p.inbox.close();
    this.p.broker.close();
    await this.p.pool.close();
    await this.p.activity.close();
    // Last: the spans of what the close ended are exported (bounded in time) before the tracer stops.
    if (this.p.tracer) await stopTracing(this.p.tracer);
  }
}
