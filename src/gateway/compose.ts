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
import type { CallContext, ListKind, UnrelatedLog } from '../server/provider';
import { type Tracer, startTracing } from '../telemetry/trace';
import { Authorizers } from '../upstream/auth/registry';
import { FileSecretStore, MemorySecretStore } from '../upstream/auth/store';
import { EraCache } from '../upstream/eras';
import { Pool } from '../upstream/pool';
import { ActivityLog } from './activity/log';
import { Broker } from './inbox/broker';
import { Calls } from './call/inFlight';
import { AppUris } from './surface/apps';
import { Skills } from './surface/skills';
import { MCPX_CAPABILITIES, extensionSet } from './call/capabilities';
import { ClientSignIns } from './call/signIn';
import { Catalogue } from './catalogue/catalogue';
import { type OwnSkills, ownSkills } from './catalogue/localSkills';
import { OWN_SKILLS } from '../config/skills';
import { EventBus } from './events';
import { Exec } from './exec/exec';
import { UpstreamInbox } from './inbox/inbox';
import { type ChainParts, buildChain } from './call/build';
import type { Entries } from './call/entries';
import { Lists } from './surface/lists';
import { Prompts } from './surface/prompts';
import { Resources } from './surface/resources';
import type { Approver } from './permissions/approval';
import { askerOf } from './permissions/brokerApprover';
import { Gate } from './permissions/gate';
import { FileGrantStore, MemoryGrantStore } from './permissions/grants';
import { type PinMode, Pins } from './pins/pins';
import { FilePinStore, MemoryPinStore } from './pins/store';
import { printable } from '../kit/printable';
import { type Asked, UrlQuestions, routeQuestion } from './inbox/questions';
import { screenList } from './catalogue/screen';
import { Subscriptions } from './inbox/subscriptions';
import { Profiles } from './profiles/profiles';
import type { GatewayOptions } from './options';
import { GatewayTools } from './tools';
import { Guards } from './guardrails/guards';
import { screenedQuestion } from './guardrails/sampling';

export type { GatewayOptions } from './options';

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
  /** Questions nobody on the wire can take wait here (src/gateway/inbox/broker.ts). */
  readonly broker: Broker;
  readonly pool: Pool;
  /** Every HTTP upstream's sign-in (src/upstream/auth/). */
  readonly authorizers: Authorizers;
  readonly catalogue: Catalogue;
  /** Upstream requests on behalf of calls, and the calls in flight per (server, scope). */
  readonly calls: Calls;
  /** Resource subscriptions and the upstream listen streams (src/gateway/inbox/subscriptions.ts). */
  readonly subscriptions: Subscriptions;
  /** The prompts and resources each endpoint's client sees (src/gateway/surface/). */
  readonly prompts: Prompts;
  readonly resources: Resources;
  /** The skills each endpoint's client sees (src/gateway/surface/skills.ts; SEP-2640). */
  readonly skills: Skills;
  /** What each endpoint offers: the default one and each profile's (src/gateway/profiles/). */
  readonly profiles: Profiles;
  /** Every call to an upstream, from every entry (src/gateway/call/). */
  readonly entries: Entries;
  /** mcpx_exec's runs (src/gateway/exec/). */
  readonly exec: Exec;
  /** The gateway's own tools (src/gateway/tools/). */
  readonly tools: GatewayTools;
  /** What upstreams send unasked (src/gateway/inbox/inbox.ts). */
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

/** What every part is built with: the configuration, the settings, the host's options, and the log (each
 *  line printable) and events every part reports to. */
interface Base {
  readonly config: Config;
  readonly settings: Settings;
  readonly opts: GatewayOptions;
  readonly log: (line: string) => void;
  readonly events: EventBus;
}

/** Build the gateway's parts; `announce` tells the gateway's own clients of a list change (of a server's
 *  list, or of the gateway's own where `server` is absent), and of a log message no call took. */
export function composeGateway(
  config: Config,
  settings: Settings,
  opts: GatewayOptions,
  announce: { changed: (kind: ListKind, server?: string) => void; unrelatedLog: (entry: UnrelatedLog) => void },
): GatewayParts {
  // Every line logged may quote an upstream (its stderr, a name, an error): written printable, one line
  // each (kit/printable.ts).
  const sink = opts.log;
  const log = sink ? (line: string) => sink(printable(line)) : () => undefined;
  const b: Base = { config, settings, opts, log, events: new EventBus() };
  const tracer = telemetry(settings, log);
  const { defs, passthrough } = serversOf(b);
  const questions = questionsOf(b);
  const approval = askerOf(opts.permissions?.approver, questions.broker);
  const guards = Guards.of(config, approval.asker, log);
  // A sampling request and its answer screened on their way (docs/gateway.md "Guardrails").
  const ask = (q: Asked) => screenedQuestion(guards, q, questions.ask);
  // The cycle's one end (see the top of this file): the inbox, built last, reached once a connection exists.
  let inbox: UpstreamInbox | undefined;
  const upstreams = upstreamsOf(b, defs, (): UpstreamInbox => inbox!);
  const { pool, authorizers } = upstreams;
  // mcpx's own skills, listed by the catalogue and asked by the calls as a server's are.
  const maxFileBytes = () => settings.get<number>('skills.maxFileBytes');
  const own = ownSkills({ dirs: () => config.skills?.dirs ?? [], maxFileBytes, log });
  const listing = listingOf(b, { defs, passthrough, pool, guards, own });
  const calls = new Calls({
    pool,
    settings,
    passthrough,
    own,
    ask,
    signIns: new ClientSignIns({ authorizers, pool, log }),
  });
  const subscriptions = new Subscriptions({
    pool,
    catalogue: listing.catalogue,
    defs,
    passthrough,
    events: b.events,
    log,
    ackTimeoutMs: () => settings.duration('pool.probeTimeout'),
    notified: (server, scope, n) => inbox!.notified(server, scope, n, pool.def(server)),
  });
  const calling = callingOf(b, { ...listing, ...approval, guards, defs, passthrough, pool, calls, subscriptions });
  const ownTools = ownToolsOf(b, { ...listing, defs, passthrough, pool, entries: calling.entries });
  inbox = new UpstreamInbox({
    events: b.events,
    catalogue: listing.catalogue,
    calls,
    subscriptions,
    ask,
    ...announce,
    // A list change an upstream announces is every replica's (docs/team.md "Lists").
    changed: (kind, server) => {
      if (server === undefined || opts.shared?.lists?.heard(kind, server) !== false) announce.changed(kind, server);
    },
    urls: questions.urls,
    log,
  });
  return {
    log,
    events: b.events,
    defs,
    passthrough,
    tracer,
    ...questions,
    ...upstreams,
    ...listing,
    calls,
    subscriptions,
    ...calling,
    approver: approval.approver,
    ...ownTools,
    inbox,
  };
}

/** The running servers and the pass-through ones among them: one map and one list every part reads, which
 *  a reload changes in place. */
function serversOf({ config, settings, log }: Base) {
  const defs = new Map(config.servers.filter((s) => !s.disabled).map((s) => [s.name, s]));
  const named = settings.get<string[]>('mcp.passthrough');
  for (const p of named)
    if (!defs.has(p)) log(`mcp.passthrough names ${JSON.stringify(p)}, which is not a configured server; ignored`);
  return { defs, passthrough: named.filter((p) => defs.has(p)) };
}

/** Who answers an upstream's question: the calling client, the person, else the broker. */
function questionsOf({ config, settings, opts, log, events }: Base) {
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
  const urls = new UrlQuestions(() => settings.duration('proto.askTTL'));
  const ask = (q: Asked) =>
    routeQuestion(
      { native: settings.get<boolean>('proto.native'), person: opts.person, broker, roots: config.roots, log, urls },
      q,
    );
  return { broker, urls, ask };
}

/** The upstreams: their sign-ins and the pool of their connections, whose hooks reach `inbox`. */
function upstreamsOf(
  { config, settings, opts, log, events }: Base,
  defs: Map<string, ServerDef>,
  inbox: () => UpstreamInbox,
) {
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
    hooks: (def, scope) => inbox().hooks(def, scope),
    log,
    onStateChange: (st) => inbox().state(st),
    roots: () => rootPaths(config.roots),
  });
  return { authorizers, pool };
}

/** What the servers list, screened and pinned, and what each endpoint offers of it. */
function listingOf(
  { config, settings, opts, log, events }: Base,
  d: { defs: Map<string, ServerDef>; passthrough: string[]; pool: Pool; guards: Guards; own: OwnSkills },
) {
  const { defs, passthrough } = d;
  const pins = new Pins({
    store: opts.pins ?? (opts.stateDir ? FilePinStore.inState(opts.stateDir) : new MemoryPinStore()),
    // Read per fetch: a reload changes both.
    mode: (server) =>
      (server === OWN_SKILLS ? config.skills : defs.get(server))?.pins ?? settings.get<PinMode>('pins.mode'),
    newTools: () => settings.get<'allow' | 'hold'>('pins.newTools'),
    log,
    held: (server, names) => events.emit({ type: 'pins.held', server, ...names }),
  });
  // Screened as fetched, then the guardrails' descriptions (a withheld tool is never pinned), then pinned.
  const catalogue = new Catalogue(
    d.pool,
    async (server, kind, items) =>
      pins.apply(
        server,
        kind,
        await d.guards.listed(server, kind, screenList(server, kind, items, passthrough.includes(server), log)),
      ),
    d.own,
  );
  const profiles = new Profiles({ config, defs, passthrough, catalogue, log });
  return { pins, catalogue, profiles };
}

/** The calls: the permission gate, the activity log, the prompts and resources a client sees, and the
 *  call chain every entry calls through. */
function callingOf(
  { config, settings, opts, log }: Base,
  d: Omit<ChainParts, 'prompts' | 'apps' | 'skills' | 'gate' | 'records' | 'log'> & {
    defs: Map<string, ServerDef>;
    asker: () => Approver;
  },
) {
  const { defs, passthrough, profiles, catalogue } = d;
  // Every call's record (activity/log.ts): the chain's `recorded` step appends to it.
  // The endpoint secrets of the listeners serving this gateway (Gateway.endpointSecret): masked in the
  // activity log like every configured secret.
  const secrets = new Set<string>();
  const activity = new ActivityLog({
    settings,
    defs: () => defs.values(),
    secrets: () => secrets,
    log,
    file: opts.activity,
    shared: opts.shared?.activity,
  });
  const gate = new Gate({
    // Read per call: a reload replaces config.permissions (Gateway.apply).
    permissions: () => config.permissions,
    // A profile's own rules, on top (docs/gateway.md "Profiles").
    profilePermissions: (ctx) =>
      ctx.profile === undefined ? undefined : config.profiles?.get(ctx.profile)?.permissions,
    approver: d.asker,
    grants:
      opts.permissions?.grants ?? (opts.stateDir ? FileGrantStore.inState(opts.stateDir) : new MemoryGrantStore()),
  });
  const lists = new Lists({ profiles, catalogue, passthrough, log });
  const prompts = new Prompts({ lists, passthrough });
  // Tools that cannot be listed (a name two servers offer) leave every ui:// URI as written.
  const apps = (ctx: CallContext) => {
    const { view, passthroughTools } = profiles.of(ctx);
    return passthroughTools.index(ctx.identity, extensionSet(ctx)).then(
      (index) => AppUris.of(index, view.listed()),
      () => AppUris.of(new Map(), view.listed()),
    );
  };
  const resources = new Resources({ lists, passthrough, apps });
  const skills = new Skills({ lists, profiles, passthrough });
  const records = opts.permissions?.activity ?? activity;
  const entries = buildChain({ ...d, prompts, apps, skills, gate, records, log, steps: opts.steps });
  return { activity, secrets, gate, prompts, resources, skills, entries };
}

/** The gateway's own tools, mcpx_exec's runs among them. */
function ownToolsOf(
  { config, settings, opts }: Base,
  d: {
    defs: Map<string, ServerDef>;
    passthrough: string[];
    pool: Pool;
    catalogue: Catalogue;
    profiles: Profiles;
    entries: Entries;
  },
) {
  const { profiles, catalogue, entries } = d;
  const exec = new Exec({
    settings,
    call: (server, tool, args, ctx, timeoutMs) => entries.tool(server, tool, args, ctx, { timeoutMs }),
    // A script sees the servers and tools its caller's endpoint offers (docs/gateway.md "Profiles").
    servers: (ctx) => profiles.of(ctx).view.servers(),
    tools: async (server, ctx) => {
      const { view } = profiles.of(ctx);
      return (await catalogue.list(server, 'tools', ctx.identity)).filter((t) => view.allows(server, String(t.name)));
    },
    read: (uri, ctx) => entries.read(uri, ctx),
    prompt: (name, args, ctx) => entries.prompt(name, args, ctx),
  });
  const tools = new GatewayTools({
    ...d,
    config,
    exec,
    // Read when a run starts: a test sets it on the gateway's options after construction.
    execStarted: (pid) => opts.execStarted?.(pid),
  });
  return { exec, tools };
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
