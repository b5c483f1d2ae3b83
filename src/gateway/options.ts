// What a host gives the gateway it makes (headless, the editor, a team's replica, a test): where its state
// lives, the person, sign-ins, permissions, activity, pins, the chain's additions, what a team shares.
import type { JsonObject } from '../protocol/jsonrpc';
import type { SignInPort } from '../upstream/auth/authorizer';
import type { SecretStore } from '../upstream/auth/store';
import type { ActivitySink } from './activity/record';
import type { Step } from './call/chain';
import type { PersonPort } from './inbox/questions';
import type { Approver, GrantStore } from './permissions/approval';
import type { PinStore } from './pins/store';
import type { SharedParts } from './shared';

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
  /** The call chain's steps as built, given to the host to add to (a guardrail, a test's recorder): what
   *  it returns is the chain (docs/gateway.md "The call chain"). */
  steps?: (steps: readonly Step[]) => readonly Step[];
  /** A team's replica: what it shares through the store besides pins, grants and sign-ins
   *  (gateway/shared.ts; docs/team.md). */
  shared?: SharedParts;
}
