// What the person is asked before a call an `ask` rule holds, and what they can answer
// (docs/gateway.md "Permissions"). The gate asks an Approver: the editor's prompt in VS Code, the broker
// headless (`mcpx elicit`). An answer is bound to the exact call: identity, server, target and the digest
// of the canonical arguments.
import type { JsonObject } from '../../protocol/jsonrpc';
import type { ActivityFinding, ActivityRecord, CallPath } from '../activity/record';

export interface ApprovalRequest {
  readonly id: string;
  readonly kind: ActivityRecord['kind'];
  readonly client: ActivityRecord['client'];
  readonly path: CallPath;
  /** For a call inside an mcpx_exec script: the run's id. */
  readonly run?: string;
  readonly server: string;
  readonly target: string;
  readonly arguments: JsonObject;
  readonly argsDigest: string;
  /** The tool's annotations: the server's untrusted hints. */
  readonly annotations?: JsonObject;
  /** The rule that said ask (`permissions.rules[N]` or `default`). */
  readonly rule: string;
  /** When it is denied for want of an answer (permissions.askTimeout). */
  readonly deadline: number;
  /** The tool's pin state (ActivityRecord['pin']): `changed` tells the person its definition is not the
   *  one pinned. */
  readonly pin?: ActivityRecord['pin'];
  /** Set where a guardrail asks (docs/gateway.md "Guardrails"): what is held — `the result`, `the
   *  arguments`, `a sampling request` — and what was found in it (never the text). The answer passes it on
   *  (`once`; `session` and `always` are taken as once: a finding is not a tool to trust) or blocks it. */
  readonly screened?: { readonly what: string; readonly findings: readonly ActivityFinding[] };
}

/** "pass on the result (files/read)? Guardrails found secrets/aws, pii/email in it (guardrails.rules[0])" */
export function screenedQuestion(r: ApprovalRequest): string | undefined {
  if (!r.screened) return undefined;
  const found = r.screened.findings.map((f) => `${f.detector}/${f.kind}`);
  const rules = [...new Set(r.screened.findings.map((f) => f.rule))];
  return `pass on ${r.screened.what} (${r.server}/${r.target})? Guardrails found ${[...new Set(found)].join(', ')} in it (${rules.join(', ')})`;
}

/** What the person is asked to let a client do, per kind of call: "… wants to <verb> server/target". */
export const APPROVAL_VERBS: Readonly<Record<ActivityRecord['kind'], string>> = {
  tool: 'call',
  resource: 'read',
  prompt: 'get the prompt',
  completion: 'complete',
  skill: 'load the skill',
};

/** once: this call only; session: this tool for this client until the gateway stops; always: stored
 *  per workspace (headless: the state directory), listed and revocable. */
export type ApprovalAnswer = 'once' | 'session' | 'always' | 'deny';

export interface Approver {
  /** Resolves with the person's answer; the signal aborts when the call is cancelled or times out. */
  ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
}

/** An "always allow": this tool (or prompt, resource, completion: `kind`) of this server, for this client
 *  (its declared name, or its identity). A grant lets through only calls of its own kind: the prompt
 *  `s/x` allowed always is not the tool `s/x`. */
export interface Grant {
  readonly id: string;
  readonly kind: ActivityRecord['kind'];
  readonly server: string;
  /** The tool's or prompt's name, or the resource's URI (the gate's target). */
  readonly tool: string;
  readonly client: string;
  readonly createdAt: number;
}

/** Where "always allow" is kept: a 0600 file in the state directory headless, workspaceState in the
 *  editor. */
export interface GrantStore {
  list(): readonly Grant[];
  add(grant: Grant): Promise<void>;
  remove(id: string): Promise<boolean>;
}
