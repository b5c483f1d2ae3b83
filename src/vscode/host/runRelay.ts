// What the views hear of a gateway run: every event but an upstream's log line, and every change of its
// task stores, relayed as one "changed" for the run's length (lifetimes.ts) — the host's onDidChange.
import { type Emitter, type Lifetimes, disposable } from '../lifetimes';
import type { GatewayRun } from '../ports';

export function relayRuns(life: Lifetimes<GatewayRun>, changed: Emitter): void {
  life.perRun(({ gateway, tasks, background }) => {
    const fire = () => changed.fire();
    background.onChange = fire;
    return [
      disposable(gateway.onEvent((e) => e.type !== 'server.log' && fire())),
      disposable(tasks.onChange(fire)),
      disposable(() => {
        if (background.onChange === fire) background.onChange = undefined;
      }),
    ];
  });
}
