// Pins in a team's store (docs/team.md "Pins and grants"): the PinStore every replica's Pins reads, one
// document (`pins`) held in memory by each — a definition pinned or accepted on one replica is pinned on
// all. A change another replica made re-screens this replica's lists of that server (`changed`: the
// gateway drops them and tells its clients), so a tool accepted there is no longer held here.
import { type Pin, type PinKind, type PinStore, type ServerPins, clean } from '../gateway/pins/store';
import type { Store } from '../store/store';
import { canonicalJson } from '../kit/canonical';
import { SharedDoc } from './doc';

type Pins = { servers: Record<string, ServerPins> };

export class SharedPinStore implements PinStore {
  private readonly doc: SharedDoc<Pins>;
  /** Set once the gateway exists: told which lists of which server another replica's change concerns. */
  changed?: (server: string, kinds: PinKind[]) => void;

  constructor(
    store: Store,
    private readonly log: (line: string) => void,
  ) {
    this.doc = new SharedDoc<Pins>({
      store,
      key: 'pins',
      log,
      clean: (v) => ({ servers: clean(v) }),
      changed: (before, after) => {
        for (const server of new Set([...Object.keys(before.servers), ...Object.keys(after.servers)])) {
          const kinds = (['tools', 'prompts', 'apps'] as const).filter(
            (k) =>
              canonicalJson(before.servers[server]?.[k] ?? null) !== canonicalJson(after.servers[server]?.[k] ?? null),
          );
          if (kinds.length) this.changed?.(server, kinds);
        }
      },
    });
  }

  async open(): Promise<this> {
    await this.doc.open();
    return this;
  }

  read(server: string): ServerPins | undefined {
    return this.doc.value.servers[server];
  }

  servers(): string[] {
    return Object.keys(this.doc.value.servers).sort();
  }

  put(server: string, kind: PinKind, pins: Record<string, Pin>): void {
    this.write((all) => {
      const s = all.servers[server] ?? {};
      return { servers: { ...all.servers, [server]: { ...s, [kind]: { ...s[kind], ...pins } } } };
    });
  }

  remove(server: string): boolean {
    if (!(server in this.doc.value.servers)) return false;
    this.write((all) => {
      const { [server]: _gone, ...rest } = all.servers;
      return { servers: rest };
    });
    return true;
  }

  /** Held here at once; written to the store on a later turn (a store that refuses is logged: the next
   *  fetch pins again). */
  private write(edit: (all: Pins) => Pins): void {
    void this.doc
      .update(edit)
      .catch((e: Error) => this.log(`team: pins could not be written to the store: ${e.message}`));
  }

  close(): Promise<void> {
    return this.doc.close();
  }
}
