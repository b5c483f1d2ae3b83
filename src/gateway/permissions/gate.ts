// The call gate (docs/gateway.md "Permissions"), the chain's `permitted` step (call/permitted.ts): the one
// place every call is decided on its way to an upstream, from any entry. The first matching rule decides
// (rules.ts): `allow` goes on, `deny` never reaches the upstream, `ask` waits for the person (the
// Approver) before the upstream is called — so the upstream call's clock (pool.callTimeout) has not
// started while the person decides. The decision is the call's; `recorded` writes it.
import { randomUUID } from 'node:crypto';
import { ALLOW_ALL, type CallKind, type Permissions } from '../../config/permissions';
import { digestOf } from '../../kit/canonical';
import { appResourceUri } from '../../protocol/extensions';
import { isObject } from '../../protocol/jsonrpc';
import type { CallContext } from '../../server/provider';
import type { ActivityRecord, Decision } from '../activity/record';
import type { Call, ChainKind } from '../call/call';
import type { ApprovalAnswer, ApprovalRequest, Approver, Grant, GrantStore } from './approval';
import { clientApprover } from './brokerApprover';
import { decide } from './rules';

export interface GateDeps {
  /** The rules in force, read per call: a reload replaces them (gateway/gateway.ts apply). */
  permissions(): Permissions | undefined;
  /** The rules of the profile the call came through, applied in addition (docs/gateway.md "Profiles"). */
  profilePermissions?(ctx: CallContext): Permissions | undefined;
  /** Who asks the person: the host's (the editor's prompt), else the broker's. */
  approver(): Approver;
  grants: GrantStore;
}

/** The caller as a record and an approval name it. */
export function clientOf(ctx: CallContext): ActivityRecord['client'] {
  return {
    ...(ctx.clientName !== undefined ? { name: ctx.clientName } : {}),
    ...(ctx.clientVersion !== undefined ? { version: ctx.clientVersion } : {}),
    identity: ctx.identity,
    revision: ctx.rev,
    transport: ctx.transport ?? 'http',
  };
}

/** The arguments' canonical JSON and its digest: what an approval is bound to. */
export const argsDigestOf = (call: Call): string => digestOf(call.canonical);

/** The kind the rules decide a call as: a watch as a read of what it watches. */
const RULED: Record<ChainKind, CallKind> = {
  tool: 'tool',
  prompt: 'prompt',
  resource: 'resource',
  completion: 'completion',
  skill: 'skill',
  watch: 'resource',
};

const STRICTNESS = { allow: 0, ask: 1, deny: 2 } as const;

const APPROVED_BY: Record<Exclude<ApprovalAnswer, 'deny'>, string> = {
  once: 'allow once',
  session: 'allow for this session',
  always: 'always allow',
};

/** The tool's annotations as its server listed them (what a rule may test). */
export const annotationsOf = (call: Call) => (isObject(call.listed?.annotations) ? call.listed.annotations : undefined);

export class Gate {
  /** "Allow for this session": identity, server, kind and target, until the gateway stops. */
  private readonly session = new Set<string>();

  constructor(private readonly d: GateDeps) {}

  /** No rules apply to this caller: every call is allowed by the default, and nothing needs deciding. */
  off(ctx: CallContext): boolean {
    return !this.d.permissions() && !this.d.profilePermissions?.(ctx);
  }

  /** The rules' verdict for `call` (the stricter of the config's and its profile's), and the rules it came
   *  from. */
  private verdict(call: Call) {
    const { ctx } = call;
    const subject = {
      kind: RULED[call.kind],
      server: call.server,
      target: call.target,
      annotations: annotationsOf(call),
      clientName: ctx.clientName,
      identity: ctx.identity,
      principal: ctx.principal,
    };
    let perms = this.d.permissions() ?? ALLOW_ALL;
    let verdict = decide(perms, subject);
    // A profile's rules apply on top: the stricter verdict decides (deny over ask over allow), named
    // with the profile's path.
    const own = this.d.profilePermissions?.(ctx);
    if (own) {
      const v = decide(own, subject);
      if (STRICTNESS[v.action] > STRICTNESS[verdict.action]) {
        perms = own;
        const at = `profiles.${ctx.profile}`;
        verdict = { ...v, rule: v.rule === 'default' ? `${at}.permissions.default` : `${at}.${v.rule}` };
      }
    }
    return { perms, verdict };
  }

  /** A watch's decision (docs/gateway.md "Permissions"): what the rules say of reading the resource, with
   *  nobody asked — a watch tells only that it changed, and each read of it is asked on its own. */
  watch(call: Call): void {
    const { verdict } = this.verdict(call);
    call.decision = { action: verdict.action, rule: verdict.rule };
    if (verdict.action === 'deny') call.refusal = { code: 'permissions.denied', message: denial(call, verdict.rule) };
  }

  /** `call`'s decision: the rule's, or for an `ask` a grant's, this session's earlier answer, or the
   *  person's. A refusal is set on the call (`recorded` answers it); a call that ended while the person
   *  was asked is `cancelled`. A call a step before refused (a held pin) is refused without asking. */
  async decide(call: Call): Promise<void> {
    if (call.refusal) {
      call.decision = { action: 'deny', rule: 'pins' };
      return;
    }
    const { ctx } = call;
    // No rules for this caller (a profile without its own included): the default decides, with nothing built.
    if (this.off(ctx)) {
      call.decision = { action: ALLOW_ALL.default, rule: 'default' };
      return;
    }
    const { perms, verdict } = this.verdict(call);
    const decided = (d: Decision, denied?: string) => {
      call.decision = d;
      if (d.action === 'deny' || denied !== undefined)
        call.refusal = { code: 'permissions.denied', message: denial(call, d.rule, denied) };
    };
    if (verdict.action !== 'ask') return decided({ action: verdict.action, rule: verdict.rule });
    const key = `${ctx.identity}\n${call.server}\n${RULED[call.kind]}\n${call.target}`;
    if (this.session.has(key))
      return decided({ action: 'ask', rule: verdict.rule, approvedBy: 'allowed earlier this session' });
    const grant = this.grantFor(call);
    if (grant) return decided({ action: 'allow', rule: `grant:${grant.id}` });
    const deadline = Date.now() + perms.askTimeoutMs;
    const expiry = AbortSignal.timeout(perms.askTimeoutMs);
    const signal = AbortSignal.any([ctx.abort?.signal ?? ctx.signal, expiry]);
    const viaClient = verdict.askVia === 'client' ? clientApprover(ctx) : undefined;
    const asker = viaClient ? 'the client' : 'the person';
    const asked = { action: 'ask' as const, rule: verdict.rule };
    let answer: ApprovalAnswer;
    try {
      answer = await (viaClient ?? this.d.approver()).ask(this.request(call, verdict.rule, deadline), signal);
    } catch (e) {
      // The call itself ended (cancelled, its client gone): that is its outcome, not a denial.
      if ((ctx.abort ?? ctx.signal).aborted && !expiry.aborted) {
        call.decision = asked;
        call.cancelled = e instanceof Error ? e : new Error(String(e));
        return;
      }
      if (expiry.aborted)
        return decided(
          { ...asked, approvedBy: 'timeout' },
          `no answer within permissions.askTimeout (${Math.round(perms.askTimeoutMs / 1000)} s)`,
        );
      return decided({ ...asked, approvedBy: 'unanswered' }, `${asker} could not be asked: ${(e as Error).message}`);
    }
    if (answer === 'deny') return decided({ ...asked, approvedBy: `${asker}: deny` }, `denied by ${asker}`);
    if (answer === 'session') this.session.add(key);
    if (answer === 'always')
      await this.d.grants.add({
        id: randomUUID(),
        kind: RULED[call.kind],
        server: call.server,
        tool: call.target,
        client: grantee(ctx),
        createdAt: Date.now(),
      });
    decided({ ...asked, approvedBy: `${asker}: ${APPROVED_BY[answer]}` });
  }

  /** What the person is shown: the exact call. */
  private request(call: Call, rule: string, deadline: number): ApprovalRequest {
    const annotations = annotationsOf(call);
    return {
      id: randomUUID(),
      kind: RULED[call.kind],
      client: clientOf(call.ctx),
      path: call.path,
      ...(call.run ? { run: call.run } : {}),
      server: call.server,
      target: call.target,
      arguments: call.args,
      argsDigest: argsDigestOf(call),
      ...(annotations ? { annotations } : {}),
      rule,
      deadline,
      ...(call.pin ? { pin: call.pin } : {}),
    };
  }

  /** An "always allow" for this call — its kind, server and target — and this client (its declared name or
   *  identity; a token's caller by its identity alone: a name is anyone's to declare). */
  private grantFor(call: Call): Grant | undefined {
    const { ctx } = call;
    return this.d.grants
      .list()
      .find(
        (g) =>
          g.kind === RULED[call.kind] &&
          g.server === call.server &&
          g.tool === call.target &&
          (g.client === ctx.identity || (!ctx.principal && g.client === ctx.clientName)),
      );
  }

  /** Every grant, for `mcpx permissions` and the editor's Manage Permissions. */
  grants(): readonly Grant[] {
    return this.d.grants.list();
  }

  revoke(id: string): Promise<boolean> {
    return this.d.grants.remove(id);
  }
}

/** What the refused caller reads: the rule, and why. */
function denial(call: Call, rule: string, denied?: string): string {
  const what = `${WHAT[RULED[call.kind]]} ${call.server}/${call.target}`;
  return denied
    ? `mcpx refused ${what}: ${rule} asks the person first, and ${denied}`
    : `mcpx refused ${what}: denied by ${rule} (docs/gateway.md "Permissions")`;
}

const WHAT: Record<CallKind, string> = {
  tool: 'the call of',
  prompt: 'the prompt',
  resource: 'reading',
  completion: 'completing',
  skill: 'the skill',
};

/** The tool's app (its `_meta.ui.resourceUri` as listed), for the record. */
export const appOf = (call: Call): string | undefined =>
  call.kind === 'tool' && call.listed ? appResourceUri(call.listed) : undefined;

/** Whom an "always" answer grants: the client's declared name (it outlives the connection), but a token's
 *  caller by its identity (docs/security.md "Two ways in"). */
const grantee = (ctx: CallContext): string => (ctx.principal ? ctx.identity : (ctx.clientName ?? ctx.identity));
