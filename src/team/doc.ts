// One JSON document in the store that every replica holds in memory (docs/team.md "Pins and grants"):
// read at once from memory (the call path never waits for the store), changed by compare-and-set — so two
// replicas changing it at once both land — and each change told on the document's channel, on which
// every other replica reads it again. A store that comes back is read again too.
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/store';

export interface SharedDocOptions<T> {
  store: Store;
  key: string;
  /** The document as read: whatever the store holds, made well-formed (a hand-made or torn value reads
   *  as what it can). */
  clean(v: unknown): T;
  log(line: string): void;
  /** Told when another replica's change (or the store coming back) changed the document here. */
  changed?(before: T, after: T): void;
}

/** Attempts at a compare-and-set before a change is given up (and logged). */
const CAS_TRIES = 50;

export class SharedDoc<T> {
  private current: T;
  private text: string | undefined;
  private readonly origin = randomBytes(6).toString('hex');
  private off?: () => Promise<void>;
  private offUp?: () => void;

  constructor(private readonly o: SharedDocOptions<T>) {
    this.current = o.clean(undefined);
  }

  /** The document as this replica holds it now. */
  get value(): T {
    return this.current;
  }

  async open(): Promise<this> {
    this.off = await this.o.store.subscribe(`changed/${this.o.key}`, (from) => {
      if (from !== this.origin) void this.reload();
    });
    this.offUp = this.o.store.onUp((up) => {
      if (up) void this.reload();
    });
    await this.reload();
    return this;
  }

  /** Read again from the store; `changed` told when it differs from what was held. */
  async reload(): Promise<void> {
    let text: string | undefined;
    try {
      text = await this.o.store.get(this.o.key);
    } catch (e) {
      this.o.log(`team: cannot read ${this.o.key} from the store: ${(e as Error).message}`);
      return;
    }
    if (text === this.text) return;
    const before = this.current;
    this.text = text;
    this.current = this.o.clean(parseOrUndefined(text));
    this.o.changed?.(before, this.current);
  }

  /** `edit` applied here at once, then to the store's document by compare-and-set (again on what another
   *  replica wrote meanwhile); the other replicas told. */
  async update(edit: (doc: T) => T): Promise<void> {
    this.current = edit(this.current);
    for (let i = 0; i < CAS_TRIES; i++) {
      const text = await this.o.store.get(this.o.key);
      const next = edit(this.o.clean(parseOrUndefined(text)));
      const nextText = JSON.stringify(next);
      if (await this.o.store.cas(this.o.key, text, nextText)) {
        this.text = nextText;
        this.current = next;
        await this.o.store.publish(`changed/${this.o.key}`, this.origin);
        return;
      }
    }
    throw new Error(`${this.o.key} changed ${CAS_TRIES} times while this replica tried to change it`);
  }

  async close(): Promise<void> {
    this.offUp?.();
    await this.off?.();
  }
}

function parseOrUndefined(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
