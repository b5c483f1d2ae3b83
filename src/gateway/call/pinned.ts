// The `pinned` step (docs/gateway.md "Pins"): a tool's or a prompt's pin, read from memory — its
// definition as pinned, changed (let through under pins.mode warn), held, or pins off. A held one goes on
// unread: `validated` leaves its arguments alone, `permitted` refuses it without asking anyone, and
// `recorded` answers the refusal naming the review.
import type { PinKind } from '../pins/store';
import type { Pins } from '../pins/pins';
import type { ChainKind } from './call';
import { type Step, step } from './chain';

/** The kinds whose definitions are pinned. */
const PINNED: Partial<Record<ChainKind, PinKind>> = { tool: 'tools', prompt: 'prompts', skill: 'skills' };

export const pinned = (pins: Pick<Pins, 'heldOf' | 'stateOf' | 'message'>): Step =>
  step('pinned', (call, next) => {
    const kind = PINNED[call.kind];
    if (kind) {
      call.held = pins.heldOf(call.server, kind, call.target);
      call.pin = pins.stateOf(call.server, kind, call.target);
      if (call.held) call.refusal = { code: 'pins.held', message: pins.message(call.held) };
    }
    return next();
  });
