// The call chain (docs/gateway.md "The call chain"): every call to an upstream, from any entry, passes the
// same steps in the same order — offered → pinned → validated → permitted → recorded → sent — each a small
// function of the call and `next` (the shape of hono's compose and the MCP SDK's client middleware). A step
// reads and fills the call, then hands it on or answers it; a new control is one more step. The list is
// built once (compose.ts) and may be given to a host to add to (GatewayOptions.steps).
import type { Call } from './call';

/** What a step hands the call on to: the rest of the chain. */
type Next = () => Promise<unknown>;

export interface Step {
  /** Its name, as `Call.passed` lists it (and a measurement names it). */
  readonly name: string;
  run(call: Call, next: Next): Promise<unknown>;
}

/** The steps composed: `run(call)` passes the call through them in order. The last step is the one that
 *  sends; it is given a `next` that fails, since nothing comes after it. */
export class Chain {
  constructor(readonly steps: readonly Step[]) {}

  run<T>(call: Call): Promise<T> {
    const { steps } = this;
    const at = (i: number): Promise<unknown> => {
      const step = steps[i];
      if (!step) return Promise.reject(new Error('the call chain ended without sending the call'));
      call.passed.push(step.name);
      let called = false;
      return step.run(call, () => {
        // A step hands a call on once: twice would send it twice.
        if (called) return Promise.reject(new Error(`step ${step.name} handed the call on twice`));
        called = true;
        return at(i + 1);
      });
    };
    return at(0) as Promise<T>;
  }
}

/** A step from its name and work. */
export const step = (name: string, run: Step['run']): Step => ({ name, run });
