// The call chain as the gateway builds it, once (docs/gateway.md "The call chain"): its seven steps, each
// given only what it needs, and the host's additions (GatewayOptions.steps).
import type { CallContext } from '../../server/provider';
import type { Pool } from '../../upstream/pool';
import type { ActivitySink } from '../activity/record';
import type { Catalogue } from '../catalogue/catalogue';
import type { Guards } from '../guardrails/guards';
import type { Subscriptions } from '../inbox/subscriptions';
import type { Gate } from '../permissions/gate';
import type { Pins } from '../pins/pins';
import type { Profiles } from '../profiles/profiles';
import type { AppUris } from '../surface/apps';
import type { Prompts } from '../surface/prompts';
import type { Skills } from '../surface/skills';
import { Chain, type Step } from './chain';
import { Entries } from './entries';
import type { Calls } from './inFlight';
import { offered } from './offered';
import { permitted } from './permitted';
import { pinned } from './pinned';
import { recorded } from './recorded';
import { screened } from './screened';
import { sent } from './sent';
import { validated } from './validated';

export interface ChainParts {
  profiles: Profiles;
  pool: Pool;
  catalogue: Catalogue;
  calls: Calls;
  passthrough: readonly string[];
  prompts: Prompts;
  apps(ctx: CallContext): Promise<AppUris>;
  /** The skills each endpoint offers (surface/skills.ts). */
  skills: Skills;
  pins: Pins;
  gate: Gate;
  /** The guardrails of each endpoint (docs/gateway.md "Guardrails"). */
  guards: Guards;
  /** Where each call's record goes; one that is not recording is skipped. */
  records: ActivitySink;
  subscriptions: Subscriptions;
  log(line: string): void;
  /** The host's additions to the steps as built. */
  steps?: (steps: readonly Step[]) => readonly Step[];
}

/** The steps in their order, and the entries every path calls through. */
export function buildChain(d: ChainParts): Entries {
  const { records } = d;
  const built: readonly Step[] = [
    offered(d),
    pinned(d.pins),
    validated(d.log),
    permitted(d.gate, () => records.recording !== false),
    recorded(() => (records.recording === false ? undefined : records)),
    // Inside `recorded`: the record carries the findings and what the caller got.
    screened(d.guards),
    sent(d),
  ];
  return new Entries(new Chain(d.steps ? d.steps(built) : built), d);
}
