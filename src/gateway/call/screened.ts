// The `screened` step (docs/gateway.md "Guardrails"): what a call sends and what it brings back, screened
// by the guardrails of the endpoint it came through — a tool's or prompt's arguments before they go (on
// `arguments`), its result, prompt or resource on its way back (on `results`). A finding a rule redacts
// is replaced by a marker naming its detector; one it blocks turns a tool's result into an isError result
// naming the detector and the rule (a prompt or a read: -32602 `guardrails.blocked`); one it asks about
// waits for the person, as an approval does. It sits inside `recorded`, so the record carries the
// findings and what the caller got; where no rule applies it costs one lookup.
import { McpxError } from '../../protocol/errors';
import type { JsonObject } from '../../protocol/jsonrpc';
import { Blocked, type Guards } from '../guardrails/guards';
import { annotationsOf, argsDigestOf, clientOf } from '../permissions/gate';
import type { ChainKind } from './call';
import { type Step, step } from './chain';

/** The kinds whose answers reach a model: a completion's values and a watch's notices do not. */
const SCREENED: Partial<Record<ChainKind, 'tool' | 'prompt' | 'resource'>> = {
  tool: 'tool',
  prompt: 'prompt',
  resource: 'resource',
};

export const screened = (guards: Pick<Guards, 'of' | 'pass'>): Step =>
  step('screened', async (call, next) => {
    const kind = SCREENED[call.kind];
    if (!kind) return next();
    const { ctx } = call;
    // No rule about this call's arguments or its answer: on, without a turn of the event loop.
    const screen = guards.of(ctx.profile);
    const subject = { server: call.server, target: call.target };
    if (
      screen.off ||
      (!screen.plan({ ...subject, on: 'results' }) &&
        (kind === 'resource' || !screen.plan({ ...subject, on: 'arguments' })))
    )
      return next();
    const annotations = annotationsOf(call);
    const base = {
      server: call.server,
      target: call.target,
      profile: ctx.profile,
      signal: ctx.abort?.signal ?? ctx.signal,
      findings: call.findings,
      request: () => ({
        kind,
        client: clientOf(ctx),
        path: call.path,
        ...(call.run ? { run: call.run } : {}),
        server: call.server,
        target: call.target,
        arguments: call.maskedArgs ?? call.args,
        argsDigest: argsDigestOf(call),
        ...(annotations ? { annotations } : {}),
        ...(call.pin ? { pin: call.pin } : {}),
      }),
    };
    try {
      if (kind !== 'resource') {
        const masked = (v: unknown) => {
          call.maskedArgs = v as JsonObject;
        };
        const args = await guards.pass(call.args, { ...base, on: 'arguments', at: 'arguments', masked });
        if (args !== call.args) call.redactArgs(args);
      }
      return await guards.pass((await next()) as JsonObject, { ...base, on: 'results', at: 'result' });
    } catch (e) {
      if (!(e instanceof Blocked)) throw e;
      call.refusal = { code: 'guardrails.blocked', message: e.message };
      if (kind === 'tool') return { content: [{ type: 'text', text: e.message }], isError: true };
      throw new McpxError('guardrails.blocked', e.message);
    }
  });
