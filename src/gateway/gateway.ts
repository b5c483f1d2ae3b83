// The gateway: the Provider the server serves. Configured upstreams behind one surface — through the
// gateway's own tools, prompts as <server>_<prompt>, resources as mcpx://<server>/<uri> — or, for the
// servers named in mcp.passthrough, under their own names (docs/gateway.md "The surface", "Pass-through").
// It is the composition of its parts, built in dependency order in the constructor.
import { join } from 'node:path';
import type { Config } from '../config/file';
import { policyFrom } from '../config/policy';
import type { ServerDef } from '../config/servers';
import type { Settings } from '../config/settings';
import { VERSION } from '../config/version';
import { CODES, ProtocolError, invalidParams } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { codecOfEra } from '../protocol/eras';
import { INPUT_ERROR_AS_RESULT, inSpan } from '../protocol/revisions';
import type {
  CallContext,
  ListKind,
  Provider,
  ProviderCapabilities,
  TaskSupport,
  ToolHandle,
} from '../server/provider';
import { EraCache } from '../upstream/eras';
import type { SignInPort, SignInState } from '../upstream/auth/authorizer';
import { Authorizers } from '../upstream/auth/registry';
import { FileSecretStore, MemorySecretStore, type SecretStore } from '../upstream/auth/store';
import { Pool } from '../upstream/pool';
import { Broker } from './broker';
import { Calls } from './calls';
import { MCPX_CAPABILITIES, narrowed } from './capabilities';
import { Catalogue } from './catalogue';
import { EventBus } from './events';
import { PREAMBLE, declarationsFor } from './exec/declarations';
import { Exec } from './exec/exec';
import type { RunView } from './exec/runs';
import type { GatewayEvent, GatewayFacade, Question, ServerListKind, UpstreamStatus, WatchRow } from './facade';
import { UpstreamInbox } from './inbox';
import { printable } from './printable';
import { safeName, toolAllowed } from './names';
import { Namespaces } from './namespaces';
import { passedThrough, screenList } from './screen';
import { type Asked, type PersonPort, routeQuestion } from './questions';
import { Subscriptions } from './subscriptions';
import { PassthroughTools, findTools } from './toolIndex';
import { FIXED_NAMES, FIXED_TOOLS, jsonResult } from './tools';
import { rewriteUris } from './uris';
import { schemaMismatch } from './validate';

export interface GatewayOptions {
  log?: (line: string) => void;
  /** Where <state>/upstream-eras.json lives; none keeps the era cache in memory only. */
  stateDir?: string;
  clientInfo?: JsonObject;
  /** A question's deadline at the broker (elicit.ttl, 120 s; tests shorten it). */
  questionTtlMs?: number;
  /** The person, through the host (VS Code implements it; headless has none). */
  person?: PersonPort;
  /** Signing in to upstreams (docs/gateway.md "Signing in to upstreams"): where sign-ins are kept and who
   *  signs in. Headless default: `<state>/oauth-tokens.json` and nobody (a call that needs a sign-in
   *  fails at once, naming `mcpx auth login`). */
  auth?: { store?: SecretStore; person?: SignInPort; fixHint?: string };
  /** Told the pid of each mcpx_exec child once its sandbox is up (tests check it is gone after). */
  execStarted?: (pid: number) => void;
}

/** What fixes a missing sign-in headless. */
const HEADLESS_FIX = 'run `mcpx auth login {server}` and try again';

export class Gateway implements Provider, GatewayFacade {
  private readonly log: (line: string) => void;
  private readonly events: EventBus;
  private readonly defs: ReadonlyMap<string, ServerDef>;
  private readonly passthrough: readonly string[];
  /** Questions nobody on the wire can take wait here (src/gateway/broker.ts). */
  private readonly broker: Broker;
  private readonly pool: Pool;
  /** Every HTTP upstream's sign-in (src/upstream/auth/). */
  private readonly authorizers: Authorizers;
  private readonly catalogue: Catalogue;
  /** Upstream requests on behalf of calls, and the calls in flight per (server, scope). */
  private readonly calls: Calls;
  /** Resource subscriptions and the upstream listen streams (src/gateway/subscriptions.ts). */
  private readonly subscriptions: Subscriptions;
  /** Prompts, resources and completion by server (src/gateway/namespaces.ts). */
  private readonly namespaces: Namespaces;
  private readonly passthroughTools: PassthroughTools;
  /** mcpx_exec's runs (src/gateway/exec/). */
  private readonly exec: Exec;
  /** What upstreams send unasked (src/gateway/inbox.ts). */
  private readonly inbox: UpstreamInbox;
  /** The server's announcer of list changes (onListChanged); a no-op until it registers one. */
  private changed: (kind: ListKind) => void = () => undefined;

  constructor(
    readonly config: Config,
    readonly settings: Settings,
    readonly opts: GatewayOptions = {},
  ) {
    // The parts, each after what it needs. Every line logged may quote an upstream (its stderr, a name,
    // an error): written printable, one line each (printable.ts).
    const sink = opts.log;
    const log = sink ? (line: string) => sink(printable(line)) : () => undefined;
    const events = new EventBus();
    const broker = new Broker(
      opts.questionTtlMs,
      opts.stateDir ? join(opts.stateDir, 'questions') : undefined,
      (state, q) => events.emit({ type: 'question', server: q.server, id: q.id, method: q.method, state }),
      () => ({
        perIdentity: settings.get<number>('limits.questionsPerIdentity'),
        total: settings.get<number>('limits.inflight'),
      }),
    );
    const defs = new Map(config.servers.filter((s) => !s.disabled).map((s) => [s.name, s]));
    const named = settings.get<string[]>('mcp.passthrough');
    for (const p of named)
      if (!defs.has(p)) log(`mcp.passthrough names ${JSON.stringify(p)}, which is not a configured server; ignored`);
    const passthrough = named.filter((p) => defs.has(p));
    const ask = (q: Asked) =>
      routeQuestion(
        { native: settings.get<boolean>('proto.native'), person: opts.person, broker, roots: config.roots, log },
        q,
      );
    // What upstreams send and ask, and their state changes, reach the parts built on the pool through
    // the inbox (src/gateway/inbox.ts), which is given those parts below, once they exist.
    const inbox = new UpstreamInbox({ events, passthrough, ask, changed: (kind) => this.changed(kind), log });
    const authorizers = new Authorizers({
      store: opts.auth?.store ?? (opts.stateDir ? FileSecretStore.inState(opts.stateDir) : new MemorySecretStore()),
      person: opts.auth?.person,
      log,
      signInTimeoutMs: settings.duration('auth.signInTimeout'),
      stepUpRetries: settings.get<number>('auth.stepUpRetries'),
      fixHint: opts.auth?.fixHint ?? HEADLESS_FIX,
      onChange: (server, state) => events.emit({ type: 'server.signIn', server, state }),
    });
    const pool = new Pool(defs, {
      auth: authorizers,
      eras: new EraCache(opts.stateDir ? join(opts.stateDir, 'upstream-eras.json') : undefined),
      policy: policyFrom(settings),
      settings,
      clientInfo: opts.clientInfo ?? { name: 'mcpx', version: VERSION },
      capabilities: MCPX_CAPABILITIES,
      hooks: (def, scope) => inbox.hooks(def, scope),
      log,
      onStateChange: (st) => inbox.state(st),
    });
    const catalogue = new Catalogue(pool, (server, kind, items) =>
      screenList(server, kind, items, passthrough.includes(server), log),
    );
    const calls = new Calls({ pool, settings, passthrough, ask });
    const subscriptions = new Subscriptions({
      pool,
      catalogue,
      defs,
      passthrough,
      events,
      log,
      ackTimeoutMs: () => settings.duration('pool.probeTimeout'),
      notified: (server, scope, n) => inbox.notified(server, scope, n, pool.def(server)),
    });
    inbox.attach({ catalogue, calls, subscriptions });
    this.inbox = inbox;
    this.log = log;
    this.events = events;
    this.defs = defs;
    this.passthrough = passthrough;
    this.broker = broker;
    this.pool = pool;
    this.authorizers = authorizers;
    this.catalogue = catalogue;
    this.calls = calls;
    this.subscriptions = subscriptions;
    this.namespaces = new Namespaces({
      defs,
      passthrough,
      catalogue,
      pool,
      log,
      upstream: (server, ctx, method, params) => calls.request(server, ctx, method, params),
      narrowed,
    });
    this.passthroughTools = new PassthroughTools({ defs, passthrough, catalogue, log });
    this.exec = new Exec({
      settings,
      call: (server, tool, args, ctx, timeoutMs) => this.callThrough(server, tool, args, ctx, timeoutMs),
      servers: () => [...defs.keys()],
      tools: (server, identity) => catalogue.list(server, 'tools', identity),
      read: (uri, ctx) => this.namespaces.readResource(uri, ctx),
      prompt: (name, args, ctx) => this.namespaces.getPrompt(name, args, ctx),
    });
  }

  capabilities(): ProviderCapabilities {
    // Gateway mode's own tools never change; the namespaced prompts and resources change with their
    // upstreams. In pass-through the tools are the upstreams' and change with them (2025-11-25
    // server/tools "List Changed Notification").
    return {
      tools: true,
      prompts: true,
      resources: true,
      completions: true,
      logging: true,
      listChanged: { tools: this.passthrough.length > 0, prompts: true, resources: true },
      tasks: true,
    };
  }

  onListChanged(listener: (kind: ListKind) => void): void {
    this.changed = listener;
  }

  listening(): Promise<void> {
    return this.subscriptions.listening();
  }

  /** A request's own identity (2026-07-28, or legacy HTTP outside a session) ended with its call: its instances of `scope: "identity"`
   *  servers stop now rather than after pool.idleTimeout (docs/security.md "Bounds"). */
  identityEnded(identity: string): void {
    void this.pool.release(identity);
  }

  subscribe(
    uri: string,
    deliver: (uri: string) => void,
  ): Promise<{ deliverable: boolean; reason?: string; release(): void }> {
    return this.subscriptions.subscribe(uri, deliver);
  }

  /** mcpx's own roots changed (the editor's workspace folders): asked-for roots answer with the new ones
   *  at once; legacy upstreams are told with notifications/roots/list_changed (mcpx declares
   *  roots.listChanged). A 2026-07-28 upstream asks again on its next request: there is nothing to tell. */
  setRoots(roots: Array<{ uri: string; name?: string }>): void {
    this.config.roots.splice(0, this.config.roots.length, ...roots);
    for (const c of this.pool.runningClients()) {
      if (codecOfEra(c.era).client.rootsListChanged)
        void c
          .notify('notifications/roots/list_changed')
          .catch((e: Error) => this.log(`[${c.name}] roots/list_changed: ${e.message}`));
    }
  }

  // ---- tools ---------------------------------------------------------------------------------

  async listTools(ctx: CallContext): Promise<JsonObject[]> {
    const pt = await this.passthroughTools.index(ctx.identity);
    const upstream = [...pt.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([shown, e]) => ({ ...e.tool, name: shown }));
    // A gateway tool an upstream also names is hidden over MCP: the upstream wins.
    return [...upstream, ...FIXED_TOOLS.filter((t) => !pt.has(String(t.name)))];
  }

  /** The tool a call names, looked up once: a pass-through server's as it listed it (its
   *  execution.taskSupport: 2025-11-25 upstreams list it, a 2026-07-28 upstream's is unknown until it
   *  answers a call with a task), else a fixed tool; in pass-through mode a name nobody lists is still
   *  forwarded to the first pass-through server, which says whether it exists. */
  resolveTool(name: string, ctx: CallContext): ToolHandle | undefined | Promise<ToolHandle | undefined> {
    if (!this.passthrough.length) return this.fixedHandle(name);
    return this.passthroughTools.index(ctx.identity).then((index) => {
      const hit = index.get(name);
      if (hit)
        return toolHandle(name, hit.tool, async (args, c) =>
          passedThrough(hit.server, 'tools/call', await this.forwardCall(hit.server, hit.name, args, c, hit.tool)),
        );
      const server = this.passthrough[0]!;
      return (
        this.fixedHandle(name) ?? {
          name,
          call: async (args, c) =>
            passedThrough(server, 'tools/call', await this.forwardCall(server, name, args, c, undefined)),
        }
      );
    });
  }

  private fixedHandle(name: string): ToolHandle | undefined {
    if (!FIXED_NAMES.has(name)) return undefined;
    return toolHandle(name, FIXED_TOOLS.find((t) => t.name === name)!, (args, c) => this.fixedTool(name, args, c));
  }

  /** A tool called from the editor (GatewayFacade), through the same lookup as a tools/call. */
  async callTool(name: string, args: JsonObject, ctx: CallContext): Promise<JsonObject> {
    const tool = await this.resolveTool(name, ctx);
    if (!tool) throw invalidParams(`no tool named ${JSON.stringify(name)}`);
    return tool.call(args, ctx);
  }

  /** Input validation failed: a protocol error up to 2025-06-18, an isError result from 2025-11-25. */
  private inputError(ctx: CallContext, message: string): JsonObject {
    if (!inSpan(ctx.rev, INPUT_ERROR_AS_RESULT)) throw invalidParams(message);
    return { content: [{ type: 'text', text: message }], isError: true };
  }

  private async fixedTool(name: string, args: JsonObject, ctx: CallContext): Promise<JsonObject> {
    const def = FIXED_TOOLS.find((t) => t.name === name)!;
    const bad = schemaMismatch(def.inputSchema, args);
    if (bad) return this.inputError(ctx, `Invalid arguments for ${name}: ${bad}`);
    switch (name) {
      case 'mcpx_call':
        return this.callThrough(
          String(args.server),
          String(args.tool),
          isObject(args.arguments) ? args.arguments : {},
          ctx,
          typeof args.timeoutSec === 'number' ? args.timeoutSec * 1000 : undefined,
        );
      case 'mcpx_exec':
        return this.exec.run(args, ctx, this.opts.execStarted);
      case 'mcpx_servers':
        return jsonResult({ servers: this.serverStatuses() });
      case 'mcpx_tools': {
        const servers = typeof args.server === 'string' ? [this.pool.def(args.server).name] : [...this.defs.keys()];
        return jsonResult(
          await findTools(
            { defs: this.defs, passthrough: this.passthrough, catalogue: this.catalogue },
            servers,
            ctx.identity,
            typeof args.query === 'string' ? args.query : undefined,
          ),
        );
      }
      case 'mcpx_describe': {
        const server = String(args.server);
        const all = await this.catalogue.list(server, 'tools', ctx.identity);
        // The whole server, for a script that will call several of its tools (docs/exec.md "Typed functions").
        if (args.tool === undefined)
          return jsonResult({
            server,
            tools: all.map((t) => String(t.name)),
            typescript: `${PREAMBLE}\n${declarationsFor(server, all)}`,
          });
        const tool = all.find((t) => t.name === args.tool);
        if (!tool) throw invalidParams(`server ${server} has no tool named ${JSON.stringify(args.tool)}`);
        return jsonResult({
          server,
          tool: { ...tool, qualifiedName: safeName(`${server}_${String(tool.name)}`) },
          // What an mcpx_exec script is given, typed (docs/exec.md "Typed functions").
          typescript: `${PREAMBLE}\n${declarationsFor(server, [tool])}`,
        });
      }
    }
    throw invalidParams(`no tool named ${JSON.stringify(name)}`);
  }

  /** mcpx_call's path, also every call of an mcpx_exec script: the server's allow/deny filter, then the
   *  upstream call (forwardCall), its URIs rewritten in gateway mode. */
  private async callThrough(
    server: string,
    tool: string,
    args: JsonObject,
    ctx: CallContext,
    timeoutMs: number | undefined,
  ): Promise<JsonObject> {
    const d = this.pool.def(server);
    if (!toolAllowed(tool, d.tools))
      throw invalidParams(`tool ${JSON.stringify(tool)} of ${server} is not allowed by its tools filter`);
    const listed = (await this.catalogue.list(server, 'tools', ctx.identity)).find((t) => t.name === tool);
    const result = await this.forwardCall(server, tool, args, ctx, listed, timeoutMs);
    return this.passthrough.includes(server) ? result : rewriteUris(server, result);
  }

  serverStatuses(): JsonObject[] {
    const issues = this.config.issues;
    return this.pool.statuses().map((s) => ({
      ...s,
      passthrough: this.passthrough.includes(s.name),
      ...(issues.some((i) => i.path.includes(`.${s.name}.`))
        ? { configIssues: issues.filter((i) => i.path.includes(`.${s.name}.`)) }
        : {}),
    })) as unknown as JsonObject[]; // UpstreamStatus is plain JSON
  }

  /** The upstream call: arguments checked against the input schema first, the result against the
   *  output schema after; the result is the upstream's own (a JSON-RPC error stays that error). */
  private async forwardCall(
    server: string,
    tool: string,
    args: JsonObject,
    ctx: CallContext,
    listed: JsonObject | undefined,
    requestedTimeoutMs?: number,
  ): Promise<JsonObject> {
    if (listed) {
      const bad = schemaMismatch(listed.inputSchema, args);
      if (bad) return this.inputError(ctx, `Invalid arguments for ${server}/${tool}: ${bad}`);
    }
    const result = await this.calls.request(
      server,
      ctx,
      'tools/call',
      { name: tool, arguments: args },
      requestedTimeoutMs,
      taskSupportOf(listed),
    );
    if (listed && 'outputSchema' in listed && 'structuredContent' in result && !result.isError) {
      const bad = schemaMismatch(listed.outputSchema, result.structuredContent);
      if (bad) {
        const warning = `structuredContent of ${server}/${tool} does not match its outputSchema: ${bad}`;
        this.log(`[${server}] ${warning}`);
        return {
          ...result,
          _meta: { ...(isObject(result._meta) ? result._meta : {}), 'dev.mcpx/warnings': [warning] },
        };
      }
    }
    return result;
  }

  // ---- prompts, resources, completion (src/gateway/namespaces.ts) -------------------------------

  listPrompts(ctx: CallContext): Promise<JsonObject[]> {
    return this.namespaces.listPrompts(ctx);
  }
  getPrompt(name: string, args: Record<string, string>, ctx: CallContext): Promise<JsonObject> {
    return this.namespaces.getPrompt(name, args, ctx);
  }
  listResources(ctx: CallContext): Promise<JsonObject[]> {
    return this.namespaces.listResources(ctx);
  }
  listResourceTemplates(ctx: CallContext): Promise<JsonObject[]> {
    return this.namespaces.listResourceTemplates(ctx);
  }
  readResource(uri: string, ctx: CallContext): Promise<JsonObject> {
    return this.namespaces.readResource(uri, ctx);
  }
  complete(params: JsonObject, ctx: CallContext): Promise<JsonObject> {
    return this.namespaces.complete(params, ctx);
  }

  // ---- the editor's operations (GatewayFacade, src/gateway/facade.ts) ----------------------------

  servers(): UpstreamStatus[] {
    return this.pool.statuses();
  }
  stopServer(server: string): Promise<void> {
    return this.pool.stop(server);
  }
  async restartServer(server: string, identity: string): Promise<void> {
    await this.pool.stop(server);
    await this.pool.client(server, identity);
  }
  serverList(server: string, kind: ServerListKind, identity: string): Promise<JsonObject[]> {
    return this.catalogue.list(server, kind, identity);
  }
  questions(): Question[] {
    return this.broker.list();
  }
  answer(id: string, result: JsonObject): string | undefined {
    return this.broker.answer(id, result);
  }
  runs(): RunView[] {
    return this.exec.runs();
  }
  watches(): WatchRow[] {
    return this.subscriptions.watches.rows();
  }
  onEvent(listener: (e: GatewayEvent & { at: number }) => void): () => void {
    return this.events.on(listener);
  }

  /** A server's sign-in state: signed in, needs one, signing in, or not an OAuth server (yet). */
  signInState(server: string): SignInState {
    const def = this.defs.get(server);
    return (def && this.authorizers.for(def)?.status()) ?? 'not-needed';
  }

  /** Sign in to a server now (the person's part through the host's SignInPort), then reconnect it. */
  async signIn(server: string, identity: string): Promise<void> {
    const def = this.pool.def(server);
    const a = this.authorizers.for(def);
    if (!a) throw new ProtocolError(CODES.InvalidParams, `${server} is not an HTTP server that signs in with OAuth`);
    await a.ensureLoaded();
    await a.signIn();
    await this.restartServer(server, identity);
  }

  /** Forget a server's sign-in, revoking its tokens where the authorization server can; what went wrong
   *  revoking, if anything. */
  async signOut(server: string): Promise<string | undefined> {
    const def = this.pool.def(server);
    const note = await this.authorizers.for(def)?.signOut();
    await this.stopServer(server);
    return note;
  }

  async close(): Promise<void> {
    await this.exec.close();
    this.subscriptions.close();
    this.inbox.close();
    this.broker.close();
    await this.pool.close();
  }
}

/** A listed tool's handle: its task support and input schema as listed, and how it is called. */
function toolHandle(name: string, listed: JsonObject, call: ToolHandle['call']): ToolHandle {
  const s = taskSupportOf(listed);
  const taskSupport: TaskSupport | undefined =
    s === 'required' || s === 'optional' || s === 'forbidden' ? s : undefined;
  return { name, taskSupport, inputSchema: isObject(listed.inputSchema) ? listed.inputSchema : undefined, call };
}

/** A listed tool's execution.taskSupport, where it has one. */
function taskSupportOf(tool: JsonObject | undefined): string | undefined {
  const ex = tool?.execution;
  return isObject(ex) && typeof ex.taskSupport === 'string' ? ex.taskSupport : undefined;
}
