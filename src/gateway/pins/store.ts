// Where pins are kept (docs/gateway.md "Pins"): `<state>/tool-pins.json`, owner-only (0600). Like the
// grants file (permissions/grants.ts), one file for every gateway of the state directory — the daemon and
// each editor window — so that a definition accepted in one is accepted in all: it is read whenever a list
// is fetched, and a change is a read, a merge of that one server's entries, and a whole-file replace
// (a rename: a reader never sees half a file). Two gateways writing the same instant can lose one
// server's new entries; the next fetch pins them again (a pin only ever records what was offered then).
// Without a state directory (tests, the conformance client): memory only.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { privateDir, writePrivate } from '../../config/secret';
import { type JsonObject, isObject } from '../../protocol/jsonrpc';

/** What is pinned: tools and prompts (their descriptions are read by models), and the apps tools render
 *  (a `ui://` resource's content, the editor shows it with the person's authority), and skills (their files'
 *  digests: SEP-2640). */
export type PinKind = 'tools' | 'prompts' | 'apps' | 'skills';

/** Each kind as a sentence names one. */
export const PIN_NOUN: Readonly<Record<PinKind, string>> = {
  tools: 'tool',
  prompts: 'prompt',
  apps: 'app',
  skills: 'skill',
};

/** One pinned definition: its digest (kit/canonical.ts) and the definition itself, for the review. */
export interface Pin {
  readonly digest: string;
  readonly definition: JsonObject;
  /** When it was pinned (ms since the epoch). */
  readonly at: number;
}

/** One server's pins, by kind then name; a kind absent: never seen yet. */
export type ServerPins = Partial<Record<PinKind, Record<string, Pin>>>;

export interface PinStore {
  read(server: string): ServerPins | undefined;
  /** Every server pinned. */
  servers(): string[];
  /** Merge `pins` into the server's `kind` (absent kind: created, so an empty list is pinned too). */
  put(server: string, kind: PinKind, pins: Record<string, Pin>): void;
  /** Forget the server's pins; false when there were none. */
  remove(server: string): boolean;
}

const isPin = (p: unknown): p is Pin =>
  isObject(p) && typeof p.digest === 'string' && isObject(p.definition) && typeof p.at === 'number';

/** Only well-formed entries are read: a hand-edited or torn file pins nothing it cannot read (a team's
 *  store reads its document so too: src/team/pins.ts). */
export function clean(v: unknown): Record<string, ServerPins> {
  const out: Record<string, ServerPins> = {};
  if (!isObject(v) || !isObject(v.servers)) return out;
  for (const [server, sp] of Object.entries(v.servers)) {
    if (!isObject(sp)) continue;
    const s: ServerPins = {};
    for (const kind of ['tools', 'prompts', 'apps', 'skills'] as const) {
      const k = sp[kind];
      if (!isObject(k)) continue;
      s[kind] = Object.fromEntries(Object.entries(k).filter(([, p]) => isPin(p))) as Record<string, Pin>;
    }
    out[server] = s;
  }
  return out;
}

abstract class BaseStore implements PinStore {
  protected abstract load(): Record<string, ServerPins>;
  protected abstract save(all: Record<string, ServerPins>): void;
  read(server: string): ServerPins | undefined {
    return this.load()[server];
  }
  servers(): string[] {
    return Object.keys(this.load()).sort();
  }
  put(server: string, kind: PinKind, pins: Record<string, Pin>): void {
    const all = this.load();
    const s = all[server] ?? {};
    all[server] = { ...s, [kind]: { ...s[kind], ...pins } };
    this.save(all);
  }
  remove(server: string): boolean {
    const all = this.load();
    if (!(server in all)) return false;
    delete all[server];
    this.save(all);
    return true;
  }
}

export class FilePinStore extends BaseStore {
  constructor(readonly file: string) {
    super();
  }
  static inState(stateDir: string): FilePinStore {
    return new FilePinStore(join(stateDir, 'tool-pins.json'));
  }
  protected load(): Record<string, ServerPins> {
    try {
      return clean(JSON.parse(readFileSync(this.file, 'utf8')));
    } catch {
      return {};
    }
  }
  protected save(all: Record<string, ServerPins>): void {
    privateDir(dirname(this.file));
    writePrivate(this.file, `${JSON.stringify({ servers: all }, null, 2)}\n`);
  }
}

export class MemoryPinStore extends BaseStore {
  private all: Record<string, ServerPins> = {};
  protected load(): Record<string, ServerPins> {
    return structuredClone(this.all);
  }
  protected save(all: Record<string, ServerPins>): void {
    this.all = all;
  }
}
