// spec.precedence and spec.lenient (docs/protocol.md "Revision precedence"): which revision's rule wins where revisions conflict
// and the peer's stated revision does not settle it.
import { NEWEST_FIRST, type Revision } from '../protocol/revisions';
import type { Settings } from './settings';

export interface Policy {
  /** Every revision, in the order their rules win. */
  readonly precedence: readonly Revision[];
  readonly lenient: readonly Revision[];
  readonly first: Revision;
  strict(rev: Revision): boolean;
  /** True where `rev` is first and held strictly: its rule decides a precedence-governed conflict. */
  governs(rev: Revision): boolean;
}

export function makePolicy(
  precedence: readonly Revision[],
  lenient: readonly Revision[],
  first?: Revision | '',
): Policy {
  let order = [...precedence, ...NEWEST_FIRST.filter((r) => !precedence.includes(r))];
  if (first) order = [first, ...order.filter((r) => r !== first)];
  const strict = (rev: Revision) => !lenient.includes(rev);
  return {
    precedence: order,
    lenient: [...lenient],
    first: order[0]!,
    strict,
    governs: (rev) => order[0] === rev && strict(rev),
  };
}

export function policyFrom(settings: Settings): Policy {
  return makePolicy(
    settings.get<Revision[]>('spec.precedence'),
    settings.get<Revision[]>('spec.lenient'),
    settings.get<Revision | ''>('spec.first'),
  );
}
