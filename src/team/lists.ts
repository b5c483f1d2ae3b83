// List changes across a team (docs/team.md "Lists"): an upstream's list_changed heard by one replica is
// published on `lists`; every other replica drops that list and tells its own clients. A change is told
// to a replica's clients once: one heard from the store just after the replica heard it itself (two
// replicas each connected to one HTTP upstream both hear it), or the other way round, within WINDOW_MS, is
// the same change.
import type { ListBus } from '../gateway/shared';
import type { ListKind } from '../server/provider';
import { type Store, parseJson } from '../store/store';

const WINDOW_MS = 1000;
const CHANNEL = 'lists';

export class SharedLists implements ListBus {
  /** When each (kind, server) was last told to this replica's clients. */
  private readonly told = new Map<string, number>();
  private off?: () => Promise<void>;
  /** Set once the gateway exists: drops the list here and tells this replica's clients. */
  changed?: (kind: ListKind, server: string) => void;

  constructor(
    private readonly store: Store,
    private readonly replica: string,
    private readonly log: (line: string) => void,
  ) {}

  async open(): Promise<this> {
    this.off = await this.store.subscribe(CHANNEL, (m) => {
      const e = parseJson<{ from?: string; kind?: ListKind; server?: string }>(m);
      if (!e || e.from === this.replica || typeof e.kind !== 'string' || typeof e.server !== 'string') return;
      if (this.recently(e.kind, e.server)) return;
      this.changed?.(e.kind, e.server);
    });
    return this;
  }

  heard(kind: ListKind, server: string): boolean {
    if (this.recently(kind, server)) return false;
    void this.store
      .publish(CHANNEL, JSON.stringify({ from: this.replica, kind, server }))
      .catch((e: Error) => this.log(`team: a list change could not be published: ${e.message}`));
    return true;
  }

  /** Whether (kind, server) was told here within the window; if not, it is now. */
  private recently(kind: ListKind, server: string): boolean {
    const now = Date.now();
    const k = `${kind}\u0000${server}`;
    const at = this.told.get(k);
    if (at !== undefined && now - at < WINDOW_MS) return true;
    if (this.told.size > 1024) for (const [key, t] of this.told) if (now - t >= WINDOW_MS) this.told.delete(key);
    this.told.set(k, now);
    return false;
  }

  async close(): Promise<void> {
    await this.off?.();
  }
}
