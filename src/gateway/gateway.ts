// The gateway: the Provider the server serves. Configured upstreams behind one surface — through the
// gateway's own tools, prompts as <server>_<prompt>, resources as mcpx://<server>/<uri> — or, for the
// servers named in mcp.passthrough, under their own names (seeds 001 §2.5).
import { join } from 'node:path';
import type { Config } from '../config/file';
import { type Policy, policyFrom } from '../config/policy';
import type { ServerDef } from '../config/servers';
import type { Settings } from '../config/settings';
import { CODES, ProtocolError, invalidParams } from '../protocol/errors';
import { type JsonObject, type Notification, isObject } from '../protocol/jsonrpc';
import { INPUT_ERROR_AS_RESULT, inSpan } from '../protocol/revisions';
import { type LogLevel, atLeastLevel, isLogLevel } from '../protocol/meta';
import type { CallContext, ListKind, Provider, ProviderCapabilities } from '../server/provider';
import type { ClientHooks } from '../upstream/client';
import { EraCache } from '../upstream/eras';
import { Pool, entryKey } from '../upstream/pool';
import { Broker } from './broker';
import { type PersonPort, routeQuestion } from './questions';
import { ProgressRelay } from './relay';
import { EventBus } from './events';
import { Catalogue, INVALIDATES } from './catalogue';
import { Namespaces } from './namespaces';
import { Subscriptions } from './subscriptions';
import type { Watches } from './watches';
import { safeName, toolAllowed } from './names';
import { FIXED_NAMES, FIXED_TOOLS, jsonResult } from './tools';
import { rewriteUris } from './uris';
import { prepareValidation, schemaMismatch } from './validate';

export interface GatewayOptions {
  log?: (line: string) => void;
  /** Where <state>/upstream-eras.json lives; none keeps the era cache in memory only. */
  stateDir?: string;
  clientInfo?: JsonObject;
  /** A question's deadline at the broker (elicit.ttl, 120 s; tests shorten it). */
  questionTtlMs?: number;
  /** The person, through the host (VS Code implements it; headless has none). */
  person?: PersonPort;
}

export type { PersonPort };


/** Trace context passed upstream unchanged (seeds 001 §4.4). */
const TRACE_KEYS = ['traceparent', 'tracestate', 'baggage'];

/** What mcpx itself can answer when an upstream asks; declared to upstreams (seeds 001 §6, #210):
 *  roots always; elicitation and sampling because a question always has an answerer — the calling
 *  client where it declared the capability, else the broker, which any answerer can reach until the
 *  question's deadline. Spelled per revision by the edge (downgradeClientCapabilities). */
const MCPX_CAPABILITIES: JsonObject = { roots: { listChanged: true }, elicitation: { form: {}, url: {} }, sampling: {} };

export class Gateway implements Provider {
  readonly pool: Pool;
  readonly catalogue: Catalogue;
  readonly policy: Policy;
  private readonly defs: Map<string, ServerDef>;
  readonly passthrough: string[];
  readonly broker: Broker;
  readonly events = new EventBus();
  private readonly log: (line: string) => void;
  /** Calls in flight per (server, scope): who a question arriving there belongs to (seeds 001 §3.4). */
  private readonly calls = new Map<string, Set<CallContext>>();
  private readonly progress = new ProgressRelay();

  constructor(
    readonly config: Config,
    readonly settings: Settings,
    readonly opts: GatewayOptions = {},
  ) {
    this.log = opts.log ?? (() => undefined);
    this.broker = new Broker(opts.questionTtlMs, opts.stateDir ? join(opts.stateDir, 'questions') : undefined, (state, q) =>
      this.events.emit({ type: 'question', server: q.server, id: q.id, method: q.method, state }),
    );
    this.policy = policyFrom(settings);
    this.defs = new Map(config.servers.filter((s) => !s.disabled).map((s) => [s.name, s]));
    this.passthrough = settings.get<string[]>('mcp.passthrough');
    for (const p of this.passthrough) {
      if (!this.defs.has(p)) this.log(`mcp.passthrough names ${JSON.stringify(p)}, which is not a configured server; ignored`);
    }
    this.passthrough = this.passthrough.filter((p) => this.defs.has(p));
    this.pool = new Pool(this.defs, {
      eras: new EraCache(opts.stateDir ? join(opts.stateDir, 'upstream-eras.json') : undefined),
      policy: this.policy,
      settings,
      clientInfo: opts.clientInfo ?? { name: 'mcpx', version: '0.1.0' },
      capabilities: MCPX_CAPABILITIES,
      hooks: (def, scope) => this.hooks(def, scope),
      log: this.log,
      onStateChange: (st) => {
        this.events?.emit({ type: 'server.state', server: st.name, state: st.state, ...(st.lastError && st.state === 'failed' ? { error: st.lastError } : {}) });
        // A (re)started upstream may offer other lists than the one before it.
        if (st.state === 'starting') {
          this.catalogue?.invalidate(st.name);
          // Its tools' arguments are checked soon: the validator is built while the process starts.
          setImmediate(prepareValidation);
        }
        this.subscriptions?.onState(st);
      },
    });
    this.catalogue = new Catalogue(this.pool);
    this.subscriptions = new Subscriptions({
      pool: this.pool,
      catalogue: this.catalogue,
      defs: this.defs,
      passthrough: this.passthrough,
      events: this.events,
      log: this.log,
      ackTimeoutMs: () => settings.duration('pool.probeTimeout'),
      notified: (server, scope, n) => this.notified(server, scope, n),
    });
    this.namespaces = new Namespaces({
      defs: this.defs,
      passthrough: this.passthrough,
      catalogue: this.catalogue,
      pool: this.pool,
      log: this.log,
      upstream: (server, ctx, method, params) => this.upstream(server, ctx, method, params),
      narrowed: (ctx) => this.narrowed(ctx),
    });
  }

  /** Resource subscriptions and the upstream listen streams (src/gateway/subscriptions.ts). */
  private readonly subscriptions: Subscriptions;
  private readonly namespaces: Namespaces;
  get watches(): Watches {
    return this.subscriptions.watches;
  }
  listening(): Promise<void> {
    return this.subscriptions.listening();
  }
  subscribe(uri: string, deliver: (uri: string) => void): Promise<{ deliverable: boolean; reason?: string; release(): void }> {
    return this.subscriptions.subscribe(uri, deliver);
  }

  private hooks(def: ServerDef, scope: string): ClientHooks {
    return {
      // One function answers an upstream's questions in both eras (seeds 001 §4.1).
      onRequest: (method, params, signal) => this.question(def, scope, method, params, signal),
      onNotification: (n) => this.notified(def.name, scope, n),
      log: this.log,
    };
  }

  /** What an upstream sends unasked (legacy push, or a 2026-07-28 listen stream): caches, relays, events. */
  private notified(server: string, scope: string, n: Notification): void {
    const p = n.params ?? {};
    const kinds = INVALIDATES[n.method];
    if (kinds) {
      this.catalogue.invalidate(server, kinds);
      const kind = n.method.split('/')[1] as ListKind;
      this.events.emit({ type: 'list.changed', server, list: kind });
      // Relayed where the list shown really changes: tools only for a pass-through server.
      if (kind !== 'tools' || this.passthrough.includes(server)) this.changed?.(kind);
    }
    switch (n.method) {
      case 'notifications/progress':
        this.progress.relay(p);
        if (typeof p.progress === 'number') this.events.emit({ type: 'progress', server, progress: p.progress, ...(typeof p.total === 'number' ? { total: p.total } : {}) });
        break;
      case 'notifications/resources/updated':
        this.watches.updated(server, p);
        this.events.emit({ type: 'resource.updated', server, uri: String(p.uri) });
        break;
      case 'notifications/elicitation/complete':
        // The out-of-band step of a URL elicitation is done (2025-11-25): whoever shows it may stop waiting.
        if (typeof p.elicitationId === 'string') this.events.emit({ type: 'elicitation.complete', server, elicitationId: p.elicitationId });
        break;
      case 'notifications/message':
        this.events.emit({ type: 'server.log', server, level: String(p.level), data: p.data, ...(typeof p.logger === 'string' ? { logger: p.logger } : {}) });
        this.relayLog(entryKey(server, scope), p);
        break;
    }
  }

  /** mcpx's own roots changed (the editor's workspace folders): asked-for roots answer with the new ones
   *  at once; legacy upstreams are told with notifications/roots/list_changed (mcpx declares
   *  roots.listChanged). A 2026-07-28 upstream asks again on its next request: there is nothing to tell. */
  setRoots(roots: Array<{ uri: string; name?: string }>): void {
    this.config.roots.splice(0, this.config.roots.length, ...roots);
    for (const c of this.pool.runningClients()) {
      if (c.era === 'legacy') void c.notify('notifications/roots/list_changed').catch((e: Error) => this.log(`[${c.name}] roots/list_changed: ${e.message}`));
    }
  }

  /** Who answers a question an upstream asks (src/gateway/questions.ts). */
  private question(def: ServerDef, scope: string, method: string, params: JsonObject, signal: AbortSignal, known?: CallContext, inputKey?: string): Promise<JsonObject> {
    const calls = this.calls.get(entryKey(def.name, scope));
    // A 2026-07-28 upstream's question is the result of one request: its call is known. A legacy wire
    // request arrives on the connection and is attributed only when nobody else is on it.
    const owner = known ?? (calls?.size === 1 && this.pool.inflightOn(def.name, scope) === 1 ? [...calls][0]! : undefined);
    const why = calls && calls.size > 1 ? 'several calls share the connection' : 'no call in flight';
    return routeQuestion(
      { native: this.settings.get<boolean>('proto.native'), person: this.opts.person, broker: this.broker, roots: this.config.roots, log: this.log },
      { server: def.name, method, params, signal, owner, unowned: why, inputKey },
    );
  }

  /** A log message names no request: it goes to every call in flight on that connection whose host asked
   *  for its level (CallContext.log filters; no level, no messages). */
  private relayLog(key: string, p: JsonObject): void {
    if (!isLogLevel(p.level)) return;
    for (const ctx of this.calls.get(key) ?? []) ctx.log(p.level, p.data, typeof p.logger === 'string' ? p.logger : undefined);
  }

  /** Run an upstream request on behalf of a call, registered as in flight on its (server, scope). */
  private async upstream(server: string, ctx: CallContext, method: string, params: JsonObject, requestedTimeoutMs?: number): Promise<JsonObject> {
    const def = this.pool.def(server);
    const scope = this.pool.scopeOf(def, ctx.identity);
    const key = entryKey(server, scope);
    let set = this.calls.get(key);
    if (!set) this.calls.set(key, (set = new Set()));
    set.add(ctx);
    // The host's progressToken is replaced upstream by one of mcpx's own, unique on that connection.
    const meta = this.forwardMeta(ctx);
    const token = this.progress.track(ctx);
    if (token) meta.progressToken = token;
    // Upstream logs at the host's level, or the gateway's own if that is more verbose.
    const own = this.settings.get<string>('log.level');
    const logLevel: LogLevel | undefined = ctx.logLevel && isLogLevel(own) && atLeastLevel(ctx.logLevel, own) ? own : ctx.logLevel;
    try {
      return await this.pool.request(server, ctx.identity, method, params, {
        signal: ctx.signal,
        meta,
        logLevel,
        onQuestion: (m, p, sig, inputKey) => this.question(def, scope, m, p, sig, ctx, inputKey),
        // Pass-through: the client's own declarations, narrowed (seeds 001 §2.5). Through the gateway's
        // tools mcpx is the client, and declares what it can answer.
        clientCapabilities: this.passthrough.includes(server) ? this.narrowed(ctx) : undefined,
        requestedTimeoutMs,
      });
    } finally {
      if (token) this.progress.release(token);
      set.delete(ctx);
      if (set.size === 0) this.calls.delete(key);
    }
  }

  capabilities(): ProviderCapabilities {
    // Gateway mode's own tools never change; the namespaced prompts and resources change with their
    // upstreams. In pass-through the tools are the upstreams' and change with them (seeds 001 §2.2).
    return { tools: true, prompts: true, resources: true, completions: true, logging: true, listChanged: { tools: this.passthrough.length > 0, prompts: true, resources: true } };
  }

  private changed?: (kind: ListKind) => void;
  onListChanged(listener: (kind: ListKind) => void): void {
    this.changed = listener;
  }

  /** /v1/questions: the broker's pending questions, and answering one (what `mcpx elicit` uses). */

  // ---- tools ---------------------------------------------------------------------------------

  /** Pass-through tools: name shown -> (server, upstream name, tool). Two servers offering one name
   *  fail the list with an error naming both (seeds 001 §2.5). */
  private async passthroughTools(identity: string): Promise<Map<string, { server: string; name: string; tool: JsonObject }>> {
    // An upstream that cannot start is left out of the list (and logged); its names still forward,
    // and the call says why it failed. The rest of the surface stays usable.
    const lists = await Promise.all(
      this.passthrough.map((server) =>
        this.catalogue.list(server, 'tools', identity).catch((e: Error) => {
          this.log(`[${server}] tools unavailable: ${e.message}`);
          return [] as JsonObject[];
        }),
      ),
    );
    // The index is rebuilt only when one of the lists it was built from changed.
    const cached = this.toolIndex;
    if (cached && cached.lists.length === lists.length && cached.lists.every((l, i) => l === lists[i])) return cached.index;
    const out = new Map<string, { server: string; name: string; tool: JsonObject }>();
    for (const [i, server] of this.passthrough.entries()) {
      const def = this.defs.get(server)!;
      for (const tool of lists[i]!) {
        const name = String(tool.name);
        if (!toolAllowed(name, def.tools)) continue;
        const shown = safeName(name);
        const other = out.get(shown);
        if (other) throw new ProtocolError(CODES.InternalError, `tool ${JSON.stringify(shown)} is offered by both ${other.server} and ${server}; rename or filter one (tools.deny)`);
        out.set(shown, { server, name, tool });
      }
    }
    this.toolIndex = { lists, index: out };
    return out;
  }

  private toolIndex?: { lists: JsonObject[][]; index: Map<string, { server: string; name: string; tool: JsonObject }> };

  async listTools(ctx: CallContext): Promise<JsonObject[]> {
    const pt = await this.passthroughTools(ctx.identity);
    const upstream = [...pt.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([shown, e]) => ({ ...e.tool, name: shown }));
    // A gateway tool an upstream also names is hidden over MCP: the upstream wins.
    return [...upstream, ...FIXED_TOOLS.filter((t) => !pt.has(String(t.name)))];
  }

  async callTool(name: string, args: JsonObject, ctx: CallContext): Promise<JsonObject> {
    const pt = this.passthrough.length ? await this.passthroughTools(ctx.identity) : new Map();
    const hit = pt.get(name);
    if (hit) return this.forwardCall(hit.server, hit.name, args, ctx, hit.tool);
    if (FIXED_NAMES.has(name)) return this.fixedTool(name, args, ctx);
    // Names a pass-through server does not list are still forwarded: it says whether they exist.
    if (this.passthrough.length) return this.forwardCall(this.passthrough[0]!, name, args, ctx, undefined);
    throw invalidParams(`no tool named ${JSON.stringify(name)}`);
  }

  async toolInputSchema(name: string, ctx: CallContext): Promise<JsonObject | undefined> {
    const hit = this.passthrough.length ? (await this.passthroughTools(ctx.identity)).get(name) : undefined;
    const schema = hit?.tool.inputSchema ?? FIXED_TOOLS.find((t) => t.name === name)?.inputSchema;
    return isObject(schema) ? schema : undefined;
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
      case 'mcpx_call': {
        const server = String(args.server);
        const tool = String(args.tool);
        const d = this.pool.def(server);
        if (!toolAllowed(tool, d.tools)) throw invalidParams(`tool ${JSON.stringify(tool)} of ${server} is not allowed by its tools filter`);
        const listed = (await this.catalogue.list(server, 'tools', ctx.identity)).find((t) => t.name === tool);
        const timeout = typeof args.timeoutSec === 'number' ? args.timeoutSec * 1000 : undefined;
        const result = await this.forwardCall(server, tool, isObject(args.arguments) ? args.arguments : {}, ctx, listed, timeout);
        return this.passthrough.includes(server) ? result : rewriteUris(server, result);
      }
      case 'mcpx_servers':
        return jsonResult({ servers: this.serverStatuses() });
      case 'mcpx_tools':
        return jsonResult(await this.findTools(ctx, typeof args.query === 'string' ? args.query : undefined, typeof args.server === 'string' ? args.server : undefined));
      case 'mcpx_describe': {
        const server = String(args.server);
        const tool = (await this.catalogue.list(server, 'tools', ctx.identity)).find((t) => t.name === args.tool);
        if (!tool) throw invalidParams(`server ${server} has no tool named ${JSON.stringify(args.tool)}`);
        return jsonResult({ server, tool: { ...tool, qualifiedName: safeName(`${server}_${String(tool.name)}`) } });
      }
    }
    throw invalidParams(`no tool named ${JSON.stringify(name)}`);
  }

  serverStatuses(): JsonObject[] {
    const issues = this.config.issues;
    return this.pool.statuses().map((s) => ({
      ...s,
      passthrough: this.passthrough.includes(s.name),
      ...(issues.some((i) => i.path.includes(`.${s.name}.`)) ? { configIssues: issues.filter((i) => i.path.includes(`.${s.name}.`)) } : {}),
    })) as unknown as JsonObject[]; // UpstreamStatus is plain JSON
  }

  private async findTools(ctx: CallContext, query?: string, server?: string): Promise<JsonObject> {
    const servers = server ? [this.pool.def(server).name] : [...this.defs.keys()];
    const q = query?.toLowerCase();
    const tools: JsonObject[] = [];
    const errors: JsonObject[] = [];
    await Promise.all(
      servers.map(async (s) => {
        try {
          for (const t of await this.catalogue.list(s, 'tools', ctx.identity)) {
            const name = String(t.name);
            if (!toolAllowed(name, this.defs.get(s)!.tools)) continue;
            const text = `${name} ${String(t.title ?? '')} ${String(t.description ?? '')}`.toLowerCase();
            if (q && !text.includes(q)) continue;
            const shown = this.passthrough.includes(s) ? safeName(name) : safeName(`${s}_${name}`);
            tools.push({ server: s, tool: name, name: shown, ...(t.title ? { title: t.title } : {}), ...(t.description ? { description: t.description } : {}) });
          }
        } catch (e) {
          errors.push({ server: s, error: (e as Error).message });
        }
      }),
    );
    tools.sort((a, b) => String(a.name).localeCompare(String(b.name)));
    return errors.length ? { tools, errors } : { tools };
  }

  /** The upstream call: arguments checked against the input schema first, the result against the
   *  output schema after; the result is the upstream's own (a JSON-RPC error stays that error). */
  private async forwardCall(server: string, tool: string, args: JsonObject, ctx: CallContext, listed: JsonObject | undefined, requestedTimeoutMs?: number): Promise<JsonObject> {
    if (listed) {
      const bad = schemaMismatch(listed.inputSchema, args);
      if (bad) return this.inputError(ctx, `Invalid arguments for ${server}/${tool}: ${bad}`);
    }
    const result = await this.upstream(server, ctx, 'tools/call', { name: tool, arguments: args }, requestedTimeoutMs);
    if (listed && 'outputSchema' in listed && 'structuredContent' in result && !result.isError) {
      const bad = schemaMismatch(listed.outputSchema, result.structuredContent);
      if (bad) {
        const warning = `structuredContent of ${server}/${tool} does not match its outputSchema: ${bad}`;
        this.log(`[${server}] ${warning}`);
        return { ...result, _meta: { ...(isObject(result._meta) ? result._meta : {}), 'dev.mcpx/warnings': [warning] } };
      }
    }
    return result;
  }

  /** `_meta` carried upstream: trace context, unchanged. */
  private forwardMeta(ctx: CallContext): JsonObject {
    const meta: JsonObject = {};
    for (const k of TRACE_KEYS) if (k in ctx.meta) meta[k] = ctx.meta[k];
    return meta;
  }

  /** A client's capabilities narrowed to what mcpx itself has: never declare upstream what the client
   *  did not (seeds 001 §2.5). */
  private narrowed(ctx: CallContext): JsonObject {
    const out: JsonObject = {};
    for (const k of Object.keys(MCPX_CAPABILITIES)) {
      if (!(k in ctx.clientCapabilities)) continue;
      // roots: mcpx answers them itself (its own listChanged); elicitation and sampling: exactly what
      // the client declared (form vs url, tools, context), since the question may go to it.
      out[k] = k === 'roots' ? MCPX_CAPABILITIES[k] : ctx.clientCapabilities[k];
    }
    return out;
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

  async close(): Promise<void> {
    this.subscriptions.close();
    this.broker.close();
    await this.pool.close();
  }
}
