// A team's replica of the gateway (docs/team.md): with store.url set, `mcpx daemon` opens the store and
// makes here everything it shares through it — tasks and background calls, pins, grants, sealed sign-ins,
// the activity stream, questions, artifacts, list changes, the requestState key and the endpoint secret —
// handed to the gateway (GatewayOptions), the server and the listener (app/team.ts TeamPorts) through the
// ports they already take. Without store.url nothing here runs: one person's gateway is as it was.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { TeamPorts } from '../app/team';
import { newSecret } from '../config/secret';
import type { Settings } from '../config/settings';
import type { Gateway, GatewayOptions } from '../gateway/gateway';
import { isObject } from '../protocol/jsonrpc';
import { stateReplica } from '../server/states';
import { openStore } from '../store/open';
import type { Store } from '../store/store';
import type { Affinity, Peer } from '../transport/forward';
import { StoreActivity } from './activity';
import { SharedArtifacts, SharedQuestions, tasksElsewhere } from './board';
import { SharedGrantStore } from './grants';
import { SharedLists } from './lists';
import { SharedPinStore } from './pins';
import { REPLICA_ID, Replicas, newReplicaId } from './replicas';
import { SealedSecretStore, Sealer, sharedSecret } from './sealed';
import { SharedTasks } from './tasks';

export interface TeamOptions {
  settings: Settings;
  log(line: string): void;
  /** How long the store may take to answer at start (tests shorten it). */
  connectTimeoutMs?: number;
}

/** The team of the store settings name, or undefined for one gateway (store.url empty). Refuses, naming
 *  the setting, what cannot make a team: no store.key, a store that does not answer, a key that does not
 *  open the store's secrets, auth.issuer without auth.audience. */
export async function openTeam(o: TeamOptions): Promise<Team | undefined> {
  const { settings } = o;
  const url = settings.get<string>('store.url');
  if (!url) return undefined;
  const sealer = new Sealer(settings.get<string>('store.key'));
  if (settings.get<string>('auth.issuer') && !settings.get<string>('auth.audience'))
    throw new Error(
      'with store.url and auth.issuer set, set auth.audience too: the URL of /mcp as clients reach it through the load balancer (a replica sees requests relayed by the others)',
    );
  const store = await openStore({
    url,
    prefix: settings.get<string>('store.prefix'),
    log: o.log,
    connectTimeoutMs: o.connectTimeoutMs,
  });
  try {
    return await new Team(store, sealer, o).open();
  } catch (e) {
    await store.close();
    throw e;
  }
}

export class Team {
  readonly id = newReplicaId();
  private readonly tasks: SharedTasks;
  private readonly pins: SharedPinStore;
  private readonly grants: SharedGrantStore;
  private readonly lists: SharedLists;
  private readonly questions: SharedQuestions;
  private replicas?: Replicas;
  private key?: Buffer;

  constructor(
    readonly store: Store,
    private readonly sealer: Sealer,
    private readonly o: TeamOptions,
  ) {
    const log = o.log;
    this.tasks = new SharedTasks({
      store,
      replica: this.id,
      keepMs: () => o.settings.duration('proto.askTTL'),
      alive: async (id) => (await this.replicas?.peer(id)) !== undefined,
      log,
    });
    this.pins = new SharedPinStore(store, log);
    this.grants = new SharedGrantStore(store, log);
    this.lists = new SharedLists(store, this.id, log);
    this.questions = new SharedQuestions(store, this.id, log);
  }

  async open(): Promise<this> {
    await Promise.all([this.pins.open(), this.grants.open(), this.lists.open()]);
    const key = await sharedSecret(this.store, this.sealer, 'request-state', () =>
      randomBytes(32).toString('base64url'),
    );
    this.key = Buffer.from(key, 'base64url');
    return this;
  }

  /** What the gateway shares through the store: pins, grants, sign-ins and the rest (GatewayOptions). */
  gatewayOptions(): Pick<GatewayOptions, 'pins' | 'permissions' | 'auth' | 'shared'> {
    const log = this.o.log;
    return {
      pins: this.pins,
      permissions: { grants: this.grants },
      auth: { store: new SealedSecretStore(this.store, this.sealer, log) },
      shared: {
        activity: new StoreActivity(this.store, () => this.o.settings.get<number>('activity.maxBytes'), log),
        questions: (event, q, identity) => this.questions.told(event, q, identity),
        artifacts: new SharedArtifacts(this.store, log),
        lists: this.lists,
      },
    };
  }

  /** The endpoint secret every replica accepts (docs/security.md "The endpoint secret"): made by the
   *  first replica, sealed in the store. */
  endpointSecret(): Promise<string> {
    return sharedSecret(this.store, this.sealer, 'endpoint-secret', newSecret);
  }

  /** The listener's and the server's part, once the gateway exists: another replica's change of pins or
   *  lists reaches this gateway from now on. */
  ports(gateway: Gateway): TeamPorts {
    this.pins.changed = (server, kinds) => gateway.pinsChangedElsewhere(server, kinds);
    this.lists.changed = (kind, server) => gateway.listChangedElsewhere(kind, server);
    const affinity = new TeamAffinity(this.id, (id) => this.peer(id), this.tasks);
    return {
      records: { journal: this.tasks, key: this.key!, replica: this.id },
      affinity,
      questions: () => this.questions.list(),
      holdsQuestion: (id) => gateway.questions().some((q) => q.id === id),
      questionOwner: async (id) => this.elsewhere(await this.questions.owner(id)),
      taskOwner: async (id) => this.elsewhere(await this.tasks.ownerOf(id)),
      tasksElsewhere: (identity) => tasksElsewhere(this.store, this.id, identity),
      ready: () =>
        this.store.up
          ? { ok: true }
          : { ok: false, why: `the store (${this.store.where}) does not answer; reconnecting` },
    };
  }

  /** Announces this replica at the URL the others reach it at (store.advertise, else the listener's own
   *  address), and from now on looks for replicas that stopped. */
  async start(listening: { port: number; address: string }): Promise<void> {
    const url = advertised(this.o.settings.get<string>('store.advertise'), listening);
    this.replicas = new Replicas({
      store: this.store,
      id: this.id,
      url,
      ttlMs: this.o.settings.duration('store.replicaTtl'),
      log: this.o.log,
      reap: async (id) => {
        if (id === this.id) await this.tasks.flushed();
        await this.tasks.reap(id);
      },
    });
    await this.replicas.start();
    this.o.log(`team: replica ${this.id} on ${this.store.where}, reached by the others at ${url}`);
  }

  private peer(id: string): Promise<Peer | undefined> {
    return this.replicas?.peer(id) ?? Promise.resolve(undefined);
  }

  /** A live replica other than this one. */
  private async elsewhere(id: string | undefined): Promise<Peer | undefined> {
    return id === undefined || id === this.id ? undefined : this.peer(id);
  }

  /** Leaves the team — what this replica ran reads as failed on the others — and closes the store. */
  async stop(): Promise<void> {
    await this.replicas?.stop();
    await Promise.allSettled([this.pins.close(), this.grants.close(), this.lists.close()]);
    await this.store.close();
  }
}

/** Where the others reach this replica: store.advertise, else the listener's address (this host's name
 *  for a wildcard one). */
function advertised(setting: string, l: { port: number; address: string }): string {
  if (setting) return setting.replace(/\/+$/, '');
  const wildcard = l.address === '0.0.0.0' || l.address === '::';
  const host = wildcard ? hostname() : l.address.includes(':') ? `[${l.address}]` : l.address;
  return `http://${host}:${l.port}`;
}

/** Where a request's session or work lives (transport/forward.ts Affinity). */
class TeamAffinity implements Affinity {
  constructor(
    readonly replica: string,
    private readonly peer: (id: string) => Promise<Peer | undefined>,
    private readonly tasks: SharedTasks,
  ) {}

  async ownerOf(msg: { method: string; params?: unknown }): Promise<Peer | undefined> {
    const p = isObject(msg.params) ? msg.params : {};
    let owner = stateReplica(p.requestState);
    if (owner === undefined && msg.method.startsWith('tasks/') && typeof p.taskId === 'string')
      owner = await this.tasks.ownerOf(p.taskId).catch(() => undefined);
    return owner === undefined || owner === this.replica ? undefined : this.peer(owner);
  }

  async sessionOwner(id: string): Promise<Peer | 'gone' | undefined> {
    const owner = id.split('.')[0]!;
    if (!REPLICA_ID.test(owner) || owner === this.replica) return undefined;
    return (await this.peer(owner)) ?? 'gone';
  }
}
