// The gateway's parts, built in one pass in dependency order, each given what it needs when it is made:
// no part is made first and completed later. The one cycle — what upstreams send (their questions,
// notifications, state changes) reaches parts built on the pool — is the pool's hooks: functions that
// reach the inbox, which is built last with every part it feeds. The pool opens no connection before its
// first request, and nothing is requested before this function returns.
import { join } from 'node:path';
import type { Config } from '../config/file';
import { policyFrom } from '../config/policy';
import { rootPaths } from '../config/sandbox';
import type { ServerDef } from '../config/servers';
import type { Settings } from '../config/settings';
import { VERSION } from '../config/version';
import type { JsonObject } from '../protocol/jsonrpc';
import type { ListKind, UnrelatedLog } from '../server/provider';
import { type Tracer, startTracing } from '../telemetry/trace';
import type { SignInPort } from '../upstream/auth/authorizer';
import { Authorizers } from '../upstream/auth/registry';
import { FileSecretStore, MemorySecretStore, type SecretStore } from '../upstream/auth/store';
import { EraCache } from '../upstream/eras';
import { Pool } from '../upstream/pool';
import { ActivityLog } from './activity/log';
import { Broker } from './broker';
import { Calls } from './calls';
import { AppUris } from './apps';
import { MCPX_CAPABILITIES, extensionSet } from './capabilities';
import { ClientSignIns } from './signInClient';
import { Catalogue } from './catalogue';
import { EventBus } from './events';
import { Exec } from './exec/exec';
import { Forwarder } from './forward';
import { UpstreamInbox } from './inbox';
import { Namespaces } from './namespaces';
import type { ActivitySink } from './activity/record';
import type { Approver, GrantStore } from './permissions/approval';
import { BrokerApprover } from './permissions/brokerApprover';
import { Gate } from './permissions/gate';
import { FileGrantStore, MemoryGrantStore } from './permissions/grants';
import { type PinMode, Pins } from './pins/pins';
import { FilePinStore, MemoryPinStore, type PinStore } from './pins/store';
import { printable } from '../kit/printable';
import { type Asked, type PersonPort, UrlQuestions, routeQuestion } from './questions';
import { screenList } from './screen';
import type { SharedParts } from './shared';
import { Subscriptions } from './subscriptions';
import { Profiles } from './profiles/profiles';
import { GatewayTools } from './tools';

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
  /** Permissions (docs/gateway.md "Permissions"): who asks the person (headless default: the broker,
   *  `mcpx elicit`; the host may also set one later with Gateway.setApprover), and where "always allow"
   *  is kept (headless default: `<state>/permission-grants.json`, 0600; memory without a state
   *  directory). */
  permissions?: { approver?: Approver; grants?: GrantStore; activity?: ActivitySink };
  /** Where this gateway writes its activity log: `<state>/activity` (activity/files.ts activityDir) and
   *  its writer name — `daemon`, `editor-<hash>` (editorWriter), `standalone-<pid>` — one writer per
   *  file. None: the records are kept in memory only (docs/gateway.md "Activity"). */
  activity?: { dir: string; writer: string };
  /** Where tool pins are kept (docs/gateway.md "Pins"); default `<state>/tool-pins.json` (0600), memory
   *  without a state directory. */
  pins?: PinStore;
  /** A team's replica: what it shares through the store besides pins, grants and sign-ins
   *  (gateway/shared.ts; docs/team.md). */
  shared?: SharedParts;
}

/** What fixes a missing sign-in headless. */
const HEADLESS_FIX = 'run `mcpx auth login {server}` and try again';

/** The gateway's parts, as the Gateway holds them. */
export interface GatewayParts {
  readonly log: (line: string) => void;
  readonly events: EventBus;
  /** The running servers; a reload (Gateway.reload) changes this map and the list below in place, so
   *  every part given them sees the new configuration. */
  readonly defs: Map<string, ServerDef>;
  readonly passthrough: string[];
  /** Questions nobody on the wire can take wait here (src/gateway/broker.ts). */
  readonly broker: Broker;
  readonly pool: Pool;
  /** Every HTTP upstream's sign-in (src/upstream/auth/). */
  readonly authorizers: Authorizers;
  readonly catalogue: Catalogue;
  /** Upstream requests on behalf of calls, and the calls in flight per (server, scope). */
  readonly calls: Calls;
  /** Resource subscriptions and the upstream listen streams (src/gateway/subscriptions.ts). */
  readonly subscriptions: Subscriptions;
  /** Prompts, resources and completion by server (src/gateway/namespaces.ts). */
  readonly namespaces: Namespaces;
  /** What each endpoint offers: the default one and each profile's (src/gateway/profiles/). */
  readonly profiles: Profiles;
  /** An upstream tool's call with the gateway's checks (src/gateway/forward.ts). */
  readonly forward: Forwarder;
  /** mcpx_exec's runs (src/gateway/exec/). */
  readonly exec: Exec;
  /** The gateway's own tools (src/gateway/tools/). */
  readonly tools: GatewayTools;
  /** What upstreams send unasked (src/gateway/inbox.ts). */
  readonly inbox: UpstreamInbox;
  /** Spans exported while telemetry.otlpEndpoint is set (docs/gateway.md "Telemetry"). */
  readonly tracer?: Tracer;
  /** The permission check every call passes (src/gateway/permissions/gate.ts). */
  readonly gate: Gate;
  /** The Approver the host set (Gateway.setApprover), asked before the broker's. */
  readonly approver: { current?: Approver };
  /** Every call's record (src/gateway/activity/): the call gate appends to it; the feed reads it. */
  readonly activity: ActivityLog;
  /** The endpoint secrets of the listeners serving this gateway (Gateway.endpointSecret): masked in the
   *  activity log like every configured secret. */
  readonly secrets: Set<string>;
  /** Tool and prompt definitions pinned, and what is held (src/gateway/pins/). */
  readonly pins: Pins;
}

/** Build the gateway's parts; `announce` tells the gateway's own clients of a list change (of a server's
 *  list, or of the gateway's own where `server` is absent), and of a log message no call took. */
export function composeGateway(
  config: Config,
  settings: Settings,
  opts: GatewayOptions,
  announce: { changed: (kind: ListKind, server?: string) => void; unrelatedLog: (entry: UnrelatedLog) => void },
): GatewayParts {
  const { changed, unrelatedLog } = announce;
  // Every line logged may quote an upstream (its stderr, a name, an error): written printable, one line
  // each (kit/printable.ts).
  const sink = opts.log;
  const log = sink ? (line: string) => sink(printable(line)) : () => undefined;
  const events = new EventBus();
  const tracer = telemetry(settings, log);
  const broker = new Broker(
    opts.questionTtlMs,
    opts.stateDir ? join(opts.stateDir, 'questions') : undefined,
    (state, q, identity) => {
      events.emit({ type: 'question', server: q.server, id: q.id, method: q.method, state });
      opts.shared?.questions?.(state, q, identity);
    },
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
  // Every call's record (activity/log.ts): the call gate appends to it.
  const secrets = new Set<string>();
  const activity = new ActivityLog({
    settings,
    defs: () => defs.values(),
    secrets: () => secrets,
    log,
    file: opts.activity,
    shared: opts.shared?.activity,
  });
  const urls = new UrlQuestions(() => settings.duration('proto.askTTL'));
  const ask = (q: Asked) =>
    routeQuestion(
      { native: settings.get<boolean>('proto.native'), person: opts.person, broker, roots: config.roots, log, urls },
      q,
    );
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
    // The cycle's two ends (see the top of this file): called once a connection exists.
    hooks: (def, scope) => inbox.hooks(def, scope),
    log,
    onStateChange: (st) => inbox.state(st),
    roots: () => rootPaths(config.roots),
  });
  const pins = new Pins({
    store: opts.pins ?? (opts.stateDir ? FilePinStore.inState(opts.stateDir) : new MemoryPinStore()),
    // Read per fetch: a reload changes both.
    mode: (server) => defs.get(server)?.pins ?? settings.get<PinMode>('pins.mode'),
    newTools: () => settings.get<'allow' | 'hold'>('pins.newTools'),
    log,
    held: (server, names) => events.emit({ type: 'pins.held', server, ...names }),
  });
  const catalogue = new Catalogue(pool, (server, kind, items) =>
    pins.apply(server, kind, screenList(server, kind, items, passthrough.includes(server), log)),
  );
  const profiles = new Profiles({ config, defs, passthrough, catalogue, log });
  const calls = new Calls({ pool, settings, passthrough, ask, signIns: new ClientSignIns({ authorizers, pool, log }) });
  const approver: { current?: Approver } = { current: opts.permissions?.approver };
  const brokerApprover = new BrokerApprover(broker);
  const gate = new Gate({
    // Read per call: a reload replaces config.permissions (Gateway.apply).
    permissions: () => config.permissions,
    // A profile's own rules, on top (docs/gateway.md "Profiles").
    profilePermissions: (ctx) =>
      ctx.profile === undefined ? undefined : config.profiles?.get(ctx.profile)?.permissions,
    approver: () => approver.current ?? brokerApprover,
    grants:
      opts.permissions?.grants ?? (opts.stateDir ? FileGrantStore.inState(opts.stateDir) : new MemoryGrantStore()),
    activity: opts.permissions?.activity ?? activity,
  });
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
  const namespaces = new Namespaces({
    defs,
    passthrough,
    profiles,
    catalogue,
    pool,
    log,
    upstream: (server, ctx, method, params) => calls.request(server, ctx, method, params),
    // Tools that cannot be listed (a name two servers offer) leave every ui:// URI as written.
    apps: (ctx) => {
      const { view, passthroughTools } = profiles.of(ctx);
      return passthroughTools.index(ctx.identity, extensionSet(ctx)).then(
        (index) => AppUris.of(index, view.listed()),
        () => AppUris.of(new Map(), view.listed()),
      );
    },
    gate,
    pins,
  });
  const forward = new Forwarder({ pool, catalogue, calls, passthrough, profiles, gate, pins, log });
  const exec = new Exec({
    settings,
    call: (server, tool, args, ctx, timeoutMs) => forward.through(server, tool, args, ctx, timeoutMs),
    // A script sees the servers and tools its caller's endpoint offers (docs/gateway.md "Profiles").
    servers: (ctx) => profiles.of(ctx).view.servers(),
    tools: async (server, ctx) => {
      const { view } = profiles.of(ctx);
      return (await catalogue.list(server, 'tools', ctx.identity)).filter((t) => view.allows(server, String(t.name)));
    },
    read: (uri, ctx) => namespaces.readResource(uri, ctx),
    prompt: (name, args, ctx) => namespaces.getPrompt(name, args, ctx),
  });
  const tools = new GatewayTools({
    config,
    defs,
    passthrough,
    pool,
    catalogue,
    forward,
    exec,
    profiles,
    // Read when a run starts: a test sets it on the gateway's options after construction.
    execStarted: (pid) => opts.execStarted?.(pid),
  });
  // A list change an upstream announces is every replica's (docs/team.md "Lists").
  const listChanged = (kind: ListKind, server?: string) => {
    if (server === undefined || opts.shared?.lists?.heard(kind, server) !== false) changed(kind, server);
  };
  const inbox = new UpstreamInbox({
    events,
    catalogue,
    calls,
    subscriptions,
    ask,
    changed: listChanged,
    unrelatedLog,
    urls,
    log,
  });
  return {
    log,
    events,
    defs,
    passthrough,
    broker,
    pool,
    authorizers,
    catalogue,
    calls,
    subscriptions,
    namespaces,
    profiles,
    forward,
    exec,
    tools,
    inbox,
    tracer,
    gate,
    approver,
    activity,
    secrets,
    pins,
  };
}

/** The tracer, where telemetry.otlpEndpoint names a receiver: OpenTelemetry is loaded then and only then.
 *  A setting that is no URL, or a bundle that cannot load, leaves telemetry off and says why. */
function telemetry(settings: Settings, log: (line: string) => void): Tracer | undefined {
  const endpoint = settings.get<string>('telemetry.otlpEndpoint');
  if (!endpoint) return undefined;
  if (!URL.canParse(endpoint)) {
    log(`telemetry.otlpEndpoint ${JSON.stringify(endpoint)} is not a URL; telemetry is off`);
    return undefined;
  }
  try {
    return startTracing({
      endpoint,
      serviceName: settings.get<string>('telemetry.serviceName'),
      serviceVersion: VERSION,
      maxQueue: settings.get<number>('telemetry.maxQueue'),
      log,
    });
  } catch (e) {
    log(`telemetry: OpenTelemetry could not be loaded (${(e as Error).message}); telemetry is off`);
    return undefined;
  }
}
