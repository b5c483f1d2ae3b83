// What the editor (src/vscode/) may do with a gateway, and the types it needs for that: it lists the
// upstreams and their lists, restarts and stops them, calls tools, reads resources and gets prompts on
// the person's behalf, answers the questions waiting at the broker, shows the watches and the events.
// The editor sees only this; the Gateway implements it. Types that live in the layers below the gateway
// (server/, upstream/) are re-exported here, so the editor imports nothing from them.
import type { Config } from '../config/file';
import type { Permissions } from '../config/permissions';
import type { Settings } from '../config/settings';
import type { JsonObject } from '../protocol/jsonrpc';
import type { CallToolResult, GetPromptResult, ReadResourceResult } from '../protocol/methods';
import type { CallContext } from '../server/provider';
import type { SignInPort, SignInRequest, SignInState } from '../upstream/auth/authorizer';
import type { SecretStore } from '../upstream/auth/store';
import type { UpstreamStatus } from '../upstream/pool';
import type { ActivityHistory } from './activity/log';
import type { ActivityFeed } from './activity/record';
import type { Question } from './inbox/broker';
import type { GatewayEvent } from './events';
import type { RunView } from './exec/runs';
import type { Approver, Grant } from './permissions/approval';
import type { PinReview, PinView } from './pins/pins';
import type { ProfileSummary } from './profiles/profiles';
import type { WatchRow } from './inbox/watches';
import type { Found } from './search/find';

export type { ActivityFilter, ActivityRecord } from './activity/record';
export type {
  CallContext,
  Grant,
  Permissions,
  GatewayEvent,
  Question,
  PinReview,
  PinView,
  Found,
  ProfileSummary,
  RunView,
  SecretStore,
  SignInPort,
  SignInRequest,
  SignInState,
  UpstreamStatus,
  WatchRow,
};
export type { PersonPort } from './inbox/questions';

/** A list a server offers, as the server itself lists it. */
export type ServerListKind = 'tools' | 'prompts' | 'resources' | 'skills';

export interface GatewayFacade {
  /** What it was built from: its server definitions and roots. */
  readonly config: Config;
  readonly settings: Settings;

  /** Each configured server's connection state (one row per scope started; a row "stopped" if none). */
  servers(): UpstreamStatus[];
  /** Stop a server's connections; the next use starts it again. */
  stopServer(server: string): Promise<void>;
  /** Stop a server, then start it for `identity`; rejects with the reason it did not start. */
  restartServer(server: string, identity: string): Promise<void>;
  /** A server's tools, prompts or resources under its own names (started if needed). */
  serverList(server: string, kind: ServerListKind, identity: string): Promise<JsonObject[]>;

  /** The gateway's surface, as any client sees it. */
  callTool(name: string, args: JsonObject, ctx: CallContext): Promise<CallToolResult>;
  /** Tool search over what the caller's endpoint offers (docs/gateway.md "Tool search"): with a query,
   *  mcpx_search's ranking (no hits, `weak`, when none matches well); an empty one, every offered tool.
   *  No call is made, so none is recorded. */
  searchTools(query: string, o: { server?: string; limit: number }, ctx: CallContext): Promise<Found>;
  listResources(ctx: CallContext): Promise<JsonObject[]>;
  readResource(uri: string, ctx: CallContext): Promise<ReadResourceResult>;
  listPrompts(ctx: CallContext): Promise<JsonObject[]>;
  getPrompt(name: string, args: Record<string, string>, ctx: CallContext): Promise<GetPromptResult>;

  /** The questions waiting at the broker for any answerer. */
  questions(): Question[];
  /** Answer one; the reason it was refused (it then still waits), or undefined when it went upstream. */
  answer(id: string, result: JsonObject): string | undefined;

  /** The mcpx_exec scripts running now, each with the calls it has made so far. */
  runs(): RunView[];

  /** Every agent's calls (docs/gateway.md "Activity"): the last records in memory, with their arguments
   *  and results cut (the Activity view), and what the log on disk holds. */
  readonly activity: ActivityFeed & ActivityHistory;

  /** Resources watched upstream: URI, server, watchers, last update. */
  watches(): WatchRow[];
  /** Every gateway event as it happens; returns the unsubscribe. */
  onEvent(listener: (e: GatewayEvent & { at: number }) => void): () => void;

  /** A server's sign-in state (docs/gateway.md "Signing in to upstreams"). */
  signInState(server: string): SignInState;
  /** Sign in to a server now, through the host's SignInPort, then reconnect it. */
  signIn(server: string, identity: string): Promise<void>;
  /** Forget a server's sign-in, revoking where possible; a note when revoking did not work. */
  signOut(server: string): Promise<string | undefined>;

  /** Permissions (docs/gateway.md "Permissions"): the host's Approver — the editor's prompt — asked
   *  before any call an `ask` rule holds (undefined: the broker again, `mcpx elicit`); the rules in force;
   *  every "always allow" kept in the GrantStore, and its revocation (false: no such grant). */
  setApprover(approver: Approver | undefined): void;
  permissions(): Permissions;
  grants(): readonly Grant[];
  revokeGrant(id: string): Promise<boolean>;

  /** mcpx's own roots changed (the workspace folders). */
  setRoots(roots: Array<{ uri: string; name?: string }>): void;
  /** Stop it: every upstream, the broker's questions, the subscriptions. */
  close(): Promise<void>;

  /** Pins (docs/gateway.md "Pins"): each server's pinned tools and prompts and what is held (all
   *  configured or pinned servers, or the one named); a `pins.held` event (onEvent) says when something
   *  becomes held. */
  pinViews(server?: string): PinView[];
  /** The review of a server's held definitions (or the one named): the pinned and the new form as stable
   *  pretty JSON, the description wrapped into lines, and their unified diff. */
  pinReviews(server: string, name?: string): PinReview[];
  /** Accept what is held (the server's all, or the one named): the names accepted; clients are told. */
  acceptPins(server: string, name?: string): string[];
  /** Forget a server's pins (false: none kept); what it lists next is pinned afresh. */
  resetPins(server: string): boolean;

  /** Profiles (docs/gateway.md "Profiles"): each configured profile with its mode, its servers and its
   *  counts of tools (listing starts its servers). */
  profileSummaries(identity: string): Promise<ProfileSummary[]>;
}

/** One background call of a 2026-07-28 client (a call running on between its retries), for a person. */
interface BackgroundTask {
  readonly id: string;
  /** The tool, prompt or resource it names. */
  readonly label: string;
  readonly status: 'waiting for input' | 'running' | 'completed' | 'failed';
  readonly startedAt: number;
  /** Rounds of questions so far. */
  readonly rounds: number;
  readonly progress?: { progress: number; total?: number };
  /** The finished call's result, or its error's message; undefined while it runs. */
  readonly outcomeForShow: JsonObject | string | undefined;
}

/** The server's tasks (both eras): the editor's Tasks view, /v1/tasks and `mcpx tasks` read them; each
 *  task's `call` is its work, `info` whose it is, `cancel()` ends it. */
export type { Task as TaskView, Tasks as TaskBoard } from '../server/tasks';

/** The server's store of background calls, as the editor's Tasks view sees it. */
export interface BackgroundTasks {
  list(): BackgroundTask[];
  /** Cancel one: its upstream work is aborted and it leaves the store. */
  cancel(id: string): boolean;
  /** Told when a call comes or goes. */
  onChange?: () => void;
}
