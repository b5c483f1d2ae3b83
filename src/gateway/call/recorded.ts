// The `recorded` step: the call's decision acted on and written down (docs/gateway.md "Activity",
// "Permissions"). A refused call (a held pin, a denial) is answered here — for a tools/call an isError
// result a model reads, elsewhere the refusal's JSON-RPC error — and a call that ended while the person
// was asked is thrown as it ended; any other goes on to `sent`. Every call decided is one ActivityRecord:
// its decision, its outcome, its duration and bytes; while telemetry is on its request's span is given
// the decision. A watch is decided but not recorded: it reads nothing (its reads are recorded).
import { McpxError, ProtocolError } from '../../protocol/errors';
import { type JsonObject, isObject } from '../../protocol/jsonrpc';
import { byteLengthOf } from '../../wire/raw';
import type { ActivityRecord, ActivitySink } from '../activity/record';
import { appOf, argsDigestOf, clientOf } from '../permissions/gate';
import type { Call } from './call';
import { type Step, step } from './chain';

/** A refused call's answer: an isError result for a tool (a model reads it), a -32602 elsewhere
 *  (LOCAL_CODES `permissions.denied`, `pins.held`; docs/protocol.md "Permissions", "Pins"). */
function refused(call: Call): JsonObject {
  const { code, message } = call.refusal!;
  if (call.kind === 'tool') return { content: [{ type: 'text', text: message }], isError: true };
  throw new McpxError(code, message);
}

export const recorded = (activity: () => ActivitySink | undefined): Step =>
  step('recorded', async (call, next) => {
    const sink = activity();
    const decision = call.decision;
    if (decision) call.ctx.span?.set({ 'mcpx.server': call.server, 'mcpx.decision': decision.action });
    const write = (outcome: ActivityRecord['outcome'], result?: unknown) => {
      if (sink && decision && call.kind !== 'watch') sink.append(recordOf(call, outcome, result));
    };
    if (call.cancelled) {
      write({ status: 'cancelled', message: call.cancelled.message });
      throw call.cancelled;
    }
    if (call.refusal) {
      // A held pin's refusal is recorded with what it answers; a denial with its message, and nothing sent.
      const { code, message } = call.refusal;
      const held = code === 'pins.held';
      let result: JsonObject | undefined;
      try {
        result = refused(call);
      } finally {
        write({ status: 'denied', code, ...(held ? {} : { message }) }, held ? result : undefined);
      }
      return result;
    }
    try {
      const result = await next();
      write(
        blocked(call) ?? (isObject(result) && result.isError === true ? { status: 'isError' } : { status: 'ok' }),
        result,
      );
      return result;
    } catch (e) {
      const aborted = (call.ctx.abort ?? call.ctx.signal).aborted;
      write(
        blocked(call) ??
          (aborted
            ? { status: 'cancelled', message: (e as Error).message }
            : {
                status: 'error',
                ...(e instanceof ProtocolError || e instanceof McpxError ? { code: e.code } : {}),
                message: (e as Error).message,
              }),
      );
      throw e;
    }
  });

/** A call whose answer a guardrail blocked (call/screened.ts): denied, naming the detector and the rule. */
const blocked = (call: Call): ActivityRecord['outcome'] | undefined =>
  call.refusal?.code === 'guardrails.blocked'
    ? { status: 'denied', code: call.refusal.code, message: call.refusal.message }
    : undefined;

function recordOf(call: Call, outcome: ActivityRecord['outcome'], result: unknown): ActivityRecord {
  const { ctx } = call;
  const app = appOf(call);
  const res = isObject(result) ? result : undefined;
  return {
    time: new Date(call.at).toISOString(),
    kind: call.kind === 'watch' ? 'resource' : call.kind,
    client: clientOf(ctx),
    path: call.path,
    ...(call.run ? { run: call.run } : {}),
    server: call.server,
    target: call.target,
    argsDigest: argsDigestOf(call),
    arguments: call.maskedArgs ?? call.args,
    decision: call.decision!,
    outcome,
    durationMs: Date.now() - call.at,
    bytesIn: Buffer.byteLength(call.canonical),
    bytesOut: res ? byteLengthOf(res) : 0,
    // Read at the end: a call becomes a task while it runs (server/strategies/task.ts).
    ...(ctx.taskId ? { taskId: ctx.taskId } : {}),
    ...(res ? { result: res } : {}),
    ...(call.pin ? { pin: call.pin } : {}),
    ...(app ? { app: { resourceUri: app } } : {}),
    ...(call.findings.length ? { guardrails: call.findings } : {}),
  };
}
