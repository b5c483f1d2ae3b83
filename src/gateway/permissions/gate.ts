// The call gate (docs/gateway.md "Permissions"): the one place every tool call, resource read and prompt
// passes on its way to an upstream — pass-through tools/call, mcpx_call, each call of an mcpx_exec script
// (forward.ts), resources/read and prompts/get (namespaces.ts; a script's mcpx.read and mcpx.prompt), the
// editor's palette (the facade's callTool). The first matching rule decides (rules.ts): `allow` goes on,
// `deny` never reaches the upstream, `ask` waits for the person (the Approver) before the upstream is
// called — so the upstream call's clock (pool.callTimeout) has not started while the person decides.
// Every call, decided either way, is one ActivityRecord handed to the sink.
import { randomUUID } from 'node:crypto';
import { ALLOW_ALL, type CallKind, type Permissions } from '../../config/permissions';
import { canonicalJson, digestOf } from '../../kit/canonical';
import { McpxError, ProtocolError } from '../../protocol/errors';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { CallContext } from '../../server/provider';
import { byteLengthOf } from '../../wire/raw';
import type { ActivityRecord, ActivitySink, CallPath, Decision } from '../activity/record';
import { RunContext } from '../exec/runs';
import type { ApprovalAnswer, Approver, Grant, GrantStore } from './approval';
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
  activity?: ActivitySink;
}

/** One call at the gate: what it is, and how it came. */
export interface GateCall {
  readonly kind: CallKind;
  readonly server: string;
  /** The tool's or prompt's name, or the resource's URI, as the upstream has it. */
  readonly target: string;
  readonly args: JsonObject;
  /** The tool's annotations as its server listed them. */
  readonly annotations?: JsonObject;
  /** The path when the call is not a script's or the editor's (those are read from the context). */
  readonly path: CallPath;
  /** A tool call's pin state (gateway/pins/pins.ts); `held`: refused without asking anyone. */
  readonly pin?: ActivityRecord['pin'];
  /** The tool's app (its `_meta.ui.resourceUri` as listed), kept in the record. */
  readonly app?: string;
}

/** What a refused call gets: for tools/call an isError result (a model reads it), elsewhere a JSON-RPC
 *  error (-32602, LOCAL_CODES 'permissions.denied'; docs/protocol.md "Permissions"). */
function refusal(kind: CallKind, message: string): JsonObject {
  if (kind === 'tool') return { content: [{ type: 'text', text: message }], isError: true };
  throw new McpxError('permissions.denied', message);
}

const STRICTNESS = { allow: 0, ask: 1, deny: 2 } as const;

const APPROVED_BY: Record<Exclude<ApprovalAnswer, 'deny'>, string> = {
  once: 'allow once',
  session: 'allow for this session',
  always: 'always allow',
};

export class Gate {
  /** "Allow for this session": identity, server, kind and target, until the gateway stops. */
  private readonly session = new Set<string>();

  constructor(private readonly d: GateDeps) {}

  /** The call, through the check: `upstream` runs only when it is allowed. */
  async run(c: GateCall, ctx: CallContext, upstream: () => Promise<JsonObject>): Promise<JsonObject> {
    // No rules and no log: nothing to decide and nobody to tell (the cost of a gateway without them).
    const sink = this.d.activity?.recording === false ? undefined : this.d.activity;
    if (!this.d.permissions() && !this.d.profilePermissions?.(ctx) && !sink) return upstream();
    const started = Date.now();
    const run = ctx instanceof RunContext ? ctx.run.id : undefined;
    const path: CallPath = run
      ? 'mcpx_exec'
      : ctx.transport === 'editor'
        ? c.kind === 'tool'
          ? 'palette'
          : 'editor'
        : c.path;
    // One canonical text: the digest an approval is bound to, and (same members, same bytes) the size.
    const canonical = canonicalJson(c.args);
    const argsDigest = digestOf(canonical);
    const client: ActivityRecord['client'] = {
      ...(ctx.clientName !== undefined ? { name: ctx.clientName } : {}),
      ...(ctx.clientVersion !== undefined ? { version: ctx.clientVersion } : {}),
      identity: ctx.identity,
      revision: ctx.rev,
      transport: ctx.transport ?? 'http',
    };
    const record = (decision: Decision, outcome: ActivityRecord['outcome'], result?: JsonObject) => {
      if (!sink) return;
      sink.append({
        time: new Date(started).toISOString(),
        kind: c.kind,
        client,
        path,
        ...(run ? { run } : {}),
        server: c.server,
        target: c.target,
        argsDigest,
        arguments: c.args,
        decision,
        outcome,
        durationMs: Date.now() - started,
        bytesIn: Buffer.byteLength(canonical),
        bytesOut: result ? byteLengthOf(result) : 0,
        // Read at the end: a call becomes a task while it runs (server/strategies/task.ts).
        ...(ctx.taskId ? { taskId: ctx.taskId } : {}),
        ...(result ? { result } : {}),
        ...(c.pin ? { pin: c.pin } : {}),
        ...(c.app ? { app: { resourceUri: c.app } } : {}),
      });
    };
    if (c.pin === 'held') {
      // Held by its pin: nobody is asked about a definition nobody has reviewed (docs/gateway.md "Pins").
      const result = await upstream();
      record({ action: 'deny', rule: 'pins' }, { status: 'denied', code: 'pins.held' }, result);
      return result;
    }
    const { cancelled, denied, ...decision } = await this.decide(c, ctx, { client, path, run, argsDigest });
    if (cancelled) {
      // The call ended while the person was asked (cancelled, its client gone): recorded as that.
      record(decision, { status: 'cancelled', message: cancelled.message });
      throw cancelled;
    }
    if (decision.action === 'deny' || denied !== undefined) {
      const message = denial(c, decision.rule, denied);
      record(decision, { status: 'denied', code: 'permissions.denied', message });
      return refusal(c.kind, message);
    }
    try {
      const result = await upstream();
      record(decision, result.isError === true ? { status: 'isError' } : { status: 'ok' }, result);
      return result;
    } catch (e) {
      const aborted = (ctx.abort ?? ctx.signal).aborted;
      record(
        decision,
        aborted
          ? { status: 'cancelled', message: (e as Error).message }
          : {
              status: 'error',
              ...(e instanceof ProtocolError || e instanceof McpxError ? { code: e.code } : {}),
              message: (e as Error).message,
            },
      );
      throw e;
    }
  }

  /** The decision: the rule's, or for an `ask` a grant's, this session's earlier answer, or the person's.
   *  A denial carries `denied`: why, in the words the caller reads. */
  private async decide(
    c: GateCall,
    ctx: CallContext,
    at: { client: ActivityRecord['client']; path: CallPath; run?: string; argsDigest: string },
  ): Promise<Decision & { denied?: string; cancelled?: Error }> {
    const subject = {
      kind: c.kind,
      server: c.server,
      target: c.target,
      annotations: c.annotations,
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
    if (verdict.action !== 'ask') return { action: verdict.action, rule: verdict.rule };
    const key = `${ctx.identity}\n${c.server}\n${c.kind}\n${c.target}`;
    if (this.session.has(key)) return { action: 'ask', rule: verdict.rule, approvedBy: 'allowed earlier this session' };
    const grant = this.grantFor(c, ctx);
    if (grant) return { action: 'allow', rule: `grant:${grant.id}` };
    const deadline = Date.now() + perms.askTimeoutMs;
    const expiry = AbortSignal.timeout(perms.askTimeoutMs);
    const signal = AbortSignal.any([ctx.abort?.signal ?? ctx.signal, expiry]);
    const viaClient = verdict.askVia === 'client' ? clientApprover(ctx) : undefined;
    const asker = viaClient ? 'the client' : 'the person';
    let answer: ApprovalAnswer;
    try {
      answer = await (viaClient ?? this.d.approver()).ask(
        {
          id: randomUUID(),
          kind: c.kind,
          client: at.client,
          path: at.path,
          ...(at.run ? { run: at.run } : {}),
          server: c.server,
          target: c.target,
          arguments: c.args,
          argsDigest: at.argsDigest,
          ...(c.annotations ? { annotations: c.annotations } : {}),
          rule: verdict.rule,
          deadline,
          ...(c.pin ? { pin: c.pin } : {}),
        },
        signal,
      );
    } catch (e) {
      // The call itself ended (cancelled, its client gone): that is its outcome, not a denial.
      if ((ctx.abort ?? ctx.signal).aborted && !expiry.aborted)
        return { action: 'ask', rule: verdict.rule, cancelled: e instanceof Error ? e : new Error(String(e)) };
      if (expiry.aborted)
        return {
          action: 'ask',
          rule: verdict.rule,
          approvedBy: 'timeout',
          denied: `no answer within permissions.askTimeout (${Math.round(perms.askTimeoutMs / 1000)} s)`,
        };
      return {
        action: 'ask',
        rule: verdict.rule,
        approvedBy: 'unanswered',
        denied: `${asker} could not be asked: ${(e as Error).message}`,
      };
    }
    if (answer === 'deny')
      return { action: 'ask', rule: verdict.rule, approvedBy: `${asker}: deny`, denied: `denied by ${asker}` };
    if (answer === 'session') this.session.add(key);
    if (answer === 'always')
      await this.d.grants.add({
        id: randomUUID(),
        kind: c.kind,
        server: c.server,
        tool: c.target,
        client: grantee(ctx),
        createdAt: Date.now(),
      });
    return { action: 'ask', rule: verdict.rule, approvedBy: `${asker}: ${APPROVED_BY[answer]}` };
  }

  /** An "always allow" for this call — its kind, server and target — and this client (its declared name or
   *  identity; a token's caller by its identity alone: a name is anyone's to declare). */
  private grantFor(c: GateCall, ctx: CallContext): Grant | undefined {
    return this.d.grants
      .list()
      .find(
        (g) =>
          g.kind === c.kind &&
          g.server === c.server &&
          g.tool === c.target &&
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
function denial(c: GateCall, rule: string, denied: string | undefined): string {
  const what = `${WHAT[c.kind]} ${c.server}/${c.target}`;
  return denied
    ? `mcpx refused ${what}: ${rule} asks the person first, and ${denied}`
    : `mcpx refused ${what}: denied by ${rule} (docs/gateway.md "Permissions")`;
}

const WHAT: Record<CallKind, string> = {
  tool: 'the call of',
  prompt: 'the prompt',
  resource: 'reading',
  completion: 'completing',
};

/** Whom an "always" answer grants: the client's declared name (it outlives the connection), but a token's
 *  caller by its identity (docs/security.md "Two ways in"). */
const grantee = (ctx: CallContext): string => (ctx.principal ? ctx.identity : (ctx.clientName ?? ctx.identity));
