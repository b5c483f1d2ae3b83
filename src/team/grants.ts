// "Always allow" grants in a team's store (docs/team.md "Pins and grants"): the GrantStore every
// replica's call gate reads, one document (`grants`) held in memory by each, so a grant given through one
// replica — or revoked through one — holds on all at once.
import type { Grant, GrantStore } from '../gateway/permissions/approval';
import { isGrant } from '../gateway/permissions/grants';
import type { Store } from '../store/store';
import { SharedDoc } from './doc';

type Grants = { grants: Grant[] };

const clean = (v: unknown): Grants => {
  const g = (v as { grants?: unknown } | undefined)?.grants;
  return { grants: Array.isArray(g) ? g.filter(isGrant) : [] };
};

export class SharedGrantStore implements GrantStore {
  private readonly doc: SharedDoc<Grants>;

  constructor(store: Store, log: (line: string) => void) {
    this.doc = new SharedDoc<Grants>({ store, key: 'grants', log, clean });
  }

  async open(): Promise<this> {
    await this.doc.open();
    return this;
  }

  list(): readonly Grant[] {
    return this.doc.value.grants;
  }

  add(grant: Grant): Promise<void> {
    return this.doc.update((d) => ({ grants: [...d.grants.filter((g) => g.id !== grant.id), grant] }));
  }

  async remove(id: string): Promise<boolean> {
    let had = false;
    await this.doc.update((d) => {
      const kept = d.grants.filter((g) => g.id !== id);
      had ||= kept.length < d.grants.length;
      return { grants: kept };
    });
    return had;
  }

  close(): Promise<void> {
    return this.doc.close();
  }
}
