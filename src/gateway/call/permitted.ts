// The `permitted` step: the permission gate decides the call (permissions/gate.ts) — allowed, refused, or
// asked of the person first — and the decision is the call's. A watch is decided by the rules alone. Where
// no rules apply and no record is kept, nothing needs deciding and the call goes on as it is.
import type { Gate } from '../permissions/gate';
import { type Step, step } from './chain';

export const permitted = (gate: Pick<Gate, 'decide' | 'watch' | 'off'>, recording: () => boolean): Step =>
  step('permitted', async (call, next) => {
    if (call.kind === 'watch') gate.watch(call);
    else if (call.refusal || !gate.off(call.ctx) || recording()) await gate.decide(call);
    return next();
  });
