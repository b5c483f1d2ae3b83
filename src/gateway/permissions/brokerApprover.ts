// The headless Approver: an approval waits at the broker as a question of its own kind (`mcpx/approval`),
// listed by `mcpx elicit` and GET /v1/questions with the client, server, tool and arguments, answered by
// `mcpx elicit answer ID allow|deny|once|session|always` (POST /v1/questions/{id}). The broker's bounds
// apply (limits.questionsPerIdentity, limits.inflight); its deadline is the approval's own
// (permissions.askTimeout). The same question reaches the call's own client instead where a rule says
// `askVia: "client"` (clientApprover).
import { type JsonObject, isObject } from '../../protocol/jsonrpc';
import { declares } from '../../protocol/questions';
import type { CallContext } from '../../server/provider';
import { APPROVAL_METHOD, type Broker } from '../broker';
import { APPROVAL_VERBS, type ApprovalAnswer, type ApprovalRequest, type Approver } from './approval';

/** The question's params: what the person needs to decide, nothing the broker does not show. */
function approvalParams(r: ApprovalRequest): JsonObject {
  const who = r.client.name ?? r.client.identity;
  const via = r.path === 'mcpx_exec' ? ` from mcpx_exec run ${r.run}` : r.path === 'pass-through' ? '' : ` (${r.path})`;
  return {
    message: `${who} wants to ${APPROVAL_VERBS[r.kind]} ${r.server}/${r.target}${via} (${r.rule})`,
    kind: r.kind,
    client: { ...r.client },
    path: r.path,
    ...(r.run ? { run: r.run } : {}),
    server: r.server,
    target: r.target,
    arguments: r.arguments,
    argsDigest: r.argsDigest,
    ...(r.annotations ? { annotations: r.annotations } : {}),
    rule: r.rule,
  };
}

/** `allow` is `once`. */
const answerOf = (action: unknown): ApprovalAnswer =>
  action === 'session' || action === 'always' || action === 'deny' ? action : 'once';

export class BrokerApprover implements Approver {
  constructor(private readonly broker: Broker) {}
  async ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const answer = await this.broker.ask(
      request.server,
      APPROVAL_METHOD,
      approvalParams(request),
      signal,
      `an approval of ${request.rule} (docs/gateway.md "Permissions")`,
      request.client.identity,
      Math.max(1, request.deadline - Date.now()),
    );
    return answerOf(answer.action);
  }
}

/** The schema of the form a client is asked with (askVia: "client"). */
const FORM: JsonObject = {
  type: 'object',
  properties: {
    decision: {
      type: 'string',
      title: 'Decision',
      description: 'once, session (this tool for this client until the gateway stops), always, or deny',
      enum: ['once', 'session', 'always', 'deny'],
    },
  },
  required: ['decision'],
};

/** `askVia: "client"`: a form elicitation to the call's own client, where it can be asked on this
 *  request (it declared form elicitation, and its channel carries a request). Off by default: the client
 *  asked is the agent whose call it is, and an agent that answers its own elicitations approves itself
 *  (docs/gateway.md "Permissions"). A declined, cancelled or unanswered form is a denial. Undefined where
 *  the client cannot be asked: the host's Approver is asked instead. */
export function clientApprover(ctx: CallContext): Approver | undefined {
  const ask = ctx.ask;
  if (!ask || !declares(ctx.clientCapabilities, 'elicitation/create', { requestedSchema: FORM }, ctx.rev))
    return undefined;
  return {
    async ask(request, signal) {
      const p = approvalParams(request);
      const answer = await ask.call(
        ctx,
        'elicitation/create',
        {
          message: `${String(p.message)}. Arguments: ${JSON.stringify(request.arguments)}`,
          requestedSchema: FORM,
        },
        signal,
      );
      if (answer.action !== 'accept' || !isObject(answer.content)) return 'deny';
      return answerOf(answer.content.decision);
    },
  };
}
