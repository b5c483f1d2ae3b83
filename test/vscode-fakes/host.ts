// A stand-in for the gateway host (src/vscode/ports.ts HostPort) and a small hand-written
// GatewayFacade (src/gateway/editorPort.ts): the servers, lists and questions a test gives, every call
// recorded, its event listeners counted (a run must leave none behind).
import type {
  Found,
  Grant,
  Permissions,
  BackgroundTasks,
  CallContext,
  GatewayEvent,
  GatewayFacade,
  PinReview,
  PinView,
  Question,
  RunView,
  SignInState,
  UpstreamStatus,
  WatchRow,
} from '../../src/gateway/editorPort';
import { Settings } from '../../src/config/settings';
import { ActivityLog } from '../../src/gateway/activity/log';
import type { JsonObject } from '../../src/protocol/jsonrpc';
import type { CallToolResult, GetPromptResult, ReadResourceResult } from '../../src/protocol/methods';
import { Emitter } from '../../src/vscode/lifetimes';
import type { HostPort, TaskEntry, TaskList } from '../../src/vscode/ports';

type Listener = (e: GatewayEvent & { at: number }) => void;

export interface FakeGatewayOptions {
  servers?: UpstreamStatus[];
  /** A server's tools, prompts or resources; a string: listing them fails with it. */
  lists?: Record<string, Partial<Record<'tools' | 'prompts' | 'resources' | 'skills', JsonObject[] | string>>>;
  signIn?: Record<string, SignInState>;
  questions?: Question[];
  runs?: RunView[];
  watches?: WatchRow[];
  /** What a tools/call through the gateway does; by default it echoes its arguments. */
  callTool?: (name: string, args: JsonObject, ctx: CallContext) => Promise<CallToolResult>;
  /** Why a restart fails, per server. */
  failsToStart?: Record<string, string>;
  /** Pins: each server's view and the reviews of what is held (acceptPins takes them away). */
  pins?: { views: PinView[]; reviews: PinReview[] };
}

export class FakeGateway implements GatewayFacade {
  readonly config = {
    servers: [],
    roots: [],
    settings: {},
    issues: [],
    source: 'test',
  } as unknown as GatewayFacade['config'];
  readonly settings = new Settings();
  /** A real feed, in memory: a test appends the records it shows. */
  readonly activity = new ActivityLog({ settings: new Settings(), defs: () => [], log: () => undefined });
  /** Every call made to it, as [method, ...args]. */
  readonly calls: unknown[][] = [];
  readonly answers: Array<[string, JsonObject]> = [];
  private readonly listeners = new Set<Listener>();

  constructor(readonly o: FakeGatewayOptions = {}) {}

  /** How many listen to its events now. */
  get listening(): number {
    return this.listeners.size;
  }

  emit(e: GatewayEvent): void {
    for (const l of [...this.listeners]) l({ ...e, at: Date.now() });
  }

  servers(): UpstreamStatus[] {
    return this.o.servers ?? [];
  }
  async stopServer(server: string): Promise<void> {
    this.calls.push(['stopServer', server]);
  }
  async restartServer(server: string, identity: string): Promise<void> {
    this.calls.push(['restartServer', server, identity]);
    const why = this.o.failsToStart?.[server];
    if (why) throw new Error(why);
  }
  async serverList(
    server: string,
    kind: 'tools' | 'prompts' | 'resources' | 'skills',
    identity: string,
  ): Promise<JsonObject[]> {
    this.calls.push(['serverList', server, kind, identity]);
    const list = this.o.lists?.[server]?.[kind] ?? [];
    if (typeof list === 'string') throw new Error(list);
    return list;
  }
  async callTool(name: string, args: JsonObject, ctx: CallContext): Promise<CallToolResult> {
    this.calls.push(['callTool', name, args, ctx.identity]);
    return this.o.callTool
      ? this.o.callTool(name, args, ctx)
      : { content: [{ type: 'text', text: JSON.stringify(args) }] };
  }
  searchTools(): Promise<Found> {
    return Promise.reject(new Error('not faked: searchTools (the tool picker is tested over a real Gateway)'));
  }
  async listResources(): Promise<JsonObject[]> {
    return [];
  }
  async readResource(uri: string): Promise<ReadResourceResult> {
    return { contents: [{ uri, text: '' }] };
  }
  async listPrompts(): Promise<JsonObject[]> {
    return [];
  }
  async getPrompt(): Promise<GetPromptResult> {
    return { messages: [] };
  }
  questions(): Question[] {
    return this.o.questions ?? [];
  }
  answer(id: string, result: JsonObject): string | undefined {
    this.answers.push([id, result]);
    return undefined;
  }
  runs(): RunView[] {
    return this.o.runs ?? [];
  }
  watches(): WatchRow[] {
    return this.o.watches ?? [];
  }
  onEvent(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  signInState(server: string): SignInState {
    return this.o.signIn?.[server] ?? 'not-needed';
  }
  async signIn(server: string, identity: string): Promise<void> {
    this.calls.push(['signIn', server, identity]);
  }
  async signOut(server: string): Promise<string | undefined> {
    this.calls.push(['signOut', server]);
    return undefined;
  }
  setRoots(): void {}
  setApprover(): void {}
  permissions(): Permissions {
    return { default: 'allow', askTimeoutMs: 120_000, rules: [] };
  }
  grants(): readonly Grant[] {
    return [];
  }
  async revokeGrant(): Promise<boolean> {
    return false;
  }
  /** Pins: what the test gives (none by default); accepting takes the held definitions away. */
  pinViews(server?: string): PinView[] {
    return (this.o.pins?.views ?? []).filter((v) => !server || v.server === server);
  }
  pinReviews(server: string, name?: string): PinReview[] {
    return (this.o.pins?.reviews ?? []).filter((r) => r.server === server && (!name || r.name === name));
  }
  acceptPins(server: string, name?: string): string[] {
    this.calls.push(['acceptPins', server, name]);
    const p = this.o.pins;
    if (!p) return [];
    const taken = p.reviews.filter((r) => r.server === server && (!name || r.name === name)).map((r) => r.name);
    p.reviews = p.reviews.filter((r) => !(r.server === server && taken.includes(r.name)));
    p.views = p.views.map((v) =>
      v.server === server ? { ...v, held: v.held.filter((h) => !taken.includes(h.name)) } : v,
    );
    return taken;
  }
  resetPins(): boolean {
    return false;
  }
  async profileSummaries(): Promise<[]> {
    return [];
  }
  async close(): Promise<void> {}
}

/** The server's task store with the tasks a test gives; its watchers counted. */
export function fakeTaskList(tasks: TaskEntry[] = []): TaskList & { watchers: number } {
  const watchers = new Set<() => void>();
  return {
    list: () => tasks,
    find: (id) => tasks.find((t) => t.id === id),
    onChange: (fn) => {
      watchers.add(fn);
      return () => watchers.delete(fn);
    },
    get watchers() {
      return watchers.size;
    },
  };
}

/** The 2026-07-28 background calls a test gives. */
export function fakeBackground(
  list: ReturnType<BackgroundTasks['list']> = [],
): BackgroundTasks & { cancelled: string[] } {
  const cancelled: string[] = [];
  return {
    list: () => list,
    cancel: (id) => {
      cancelled.push(id);
      return true;
    },
    cancelled,
  };
}

export interface FakeHost extends HostPort {
  gateway?: GatewayFacade;
  whyStopped: string;
  endpoint?: string;
  bareEndpoint?: string;
  secret?: string;
  tasks?: TaskList;
  background?: BackgroundTasks;
  /** The credentials stored, by name. */
  readonly stored: Record<string, string>;
  /** Tells the views and commands that something changed. */
  changed(): void;
}

export function fakeHost(o: Partial<Omit<FakeHost, 'stored' | 'changed' | 'onDidChange'>> = {}): FakeHost {
  const changes = new Emitter();
  const stored: Record<string, string> = {};
  return {
    whyStopped: 'it was stopped',
    referencedSecrets: () => [],
    definedIn: () => undefined,
    secrets: { store: async (k: string, v: string) => void (stored[k] = v) },
    ...o,
    stored,
    onDidChange: changes.event,
    changed: () => changes.fire(),
  };
}
