// Tool pins (docs/gateway.md "Pins"): the first time a server's tools and prompts are fetched, each
// definition — what a model reads: name, title, description, input and output schema, annotations (a
// prompt's arguments) — is pinned by its canonical digest (kit/canonical.ts) in the PinStore. Every later
// fetch, whatever the instance (`scope: identity` instances compare to the same pins), is screened here,
// where the catalogue builds what every path sees: a definition that differs from its pin is held — listed
// in its pinned form while its input schema (a prompt's arguments) is unchanged, so calls the client knows
// still fit the upstream, else withheld — and a call to it is refused (forward.ts, namespaces.ts) until the
// person accepts the new form (`mcpx pins accept`, the editor). `warn` logs and lets it through; `off`
// pins nothing. A removed tool simply goes; its pin is kept. A tool's app is pinned with it (its
// `_meta.ui.resourceUri`, and its `execution`), and the app's `ui://` resource by a digest of its content
// where it has been read (`screenApp`): a changed app is held like a changed description. A skill (SEP-2640)
// is pinned by its URI with its frontmatter and every file's digest and size: a changed file is a changed skill.
import { canonicalDigest, canonicalJson } from '../../kit/canonical';
import { McpxError } from '../../protocol/errors';
import { appResourceUri, withAppUri } from '../../protocol/extensions';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { ListKind } from '../catalogue/catalogue';
import { PIN_NOUN, type Pin, type PinKind, type PinStore } from './store';
import { unifiedDiff } from '../../kit/diff';
import { reviewForm } from './review';
import { skillFiles } from '../../protocol/skills';
import { appForm, withoutApp } from './forms';

export type PinMode = 'hold' | 'warn' | 'off';

/** A tool's pin state as the activity record and the approval request name it: its definition matches its
 *  pin, differs from it (let through under `warn`; under `hold` the call never reaches the gate's check),
 *  or pins are off for its server. */
export type PinState = 'pinned' | 'changed' | 'held' | 'off';

type ListPinKind = Exclude<PinKind, 'apps'>;

/** The fields pinned, per kind: what a model reads of the definition, and for a tool how it runs — its
 *  `execution` and its app (`app`: its `_meta.ui.resourceUri`, what the editor renders with the person's
 *  authority). */
const FIELDS: Record<ListPinKind, readonly string[]> = {
  tools: ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'execution'],
  prompts: ['name', 'title', 'description', 'arguments'],
  skills: ['uri', 'frontmatter', 'resources'],
};
/** What a list item is pinned under: a skill's URI (a name is not unique: SEP-2640 "Names"), else its name. */
const keyOf = (kind: ListPinKind, item: JsonObject) => String(kind === 'skills' ? item.uri : item.name);
/** Fields pinned since pins were first written: a pin without any of them is completed with them once
 *  (what it did pin is unchanged), not held (a gateway that began pinning them holds nothing it had). */
const LATER: readonly string[] = ['execution', 'app'];

/** The field whose equality means the upstream still takes what its pinned form promises. */
const INPUT: Record<ListPinKind, string> = { tools: 'inputSchema', prompts: 'arguments', skills: 'resources' };

function pinned(kind: ListPinKind, item: JsonObject): JsonObject {
  const out = Object.fromEntries(FIELDS[kind].filter((f) => item[f] !== undefined).map((f) => [f, item[f]]));
  const app = kind === 'tools' ? appResourceUri(item) : undefined;
  return (app === undefined ? out : { ...out, app }) as JsonObject;
}

/** A pin written before LATER's fields were: its definition names none of them, and the item without them
 *  is what it pinned. */
function olderPin(was: Pin, mine: JsonObject): boolean {
  if (LATER.some((f) => f in was.definition) || !LATER.some((f) => f in mine)) return false;
  const before = Object.fromEntries(Object.entries(mine).filter(([f]) => !LATER.includes(f)));
  return canonicalDigest(before) === was.digest;
}

/** One held definition: what is pinned (none for a held new one), what the upstream lists now. */
export interface Held {
  readonly server: string;
  readonly kind: PinKind;
  readonly name: string;
  readonly reason: 'changed' | 'new';
  readonly pinned?: JsonObject;
  readonly current: JsonObject;
  /** Listed in its pinned form (its input unchanged), or withheld. */
  readonly listed: boolean;
}

/** A server's pins and what is held, for `mcpx pins` and the editor. */
export interface PinView {
  readonly server: string;
  readonly mode: PinMode;
  readonly tools: string[];
  readonly prompts: string[];
  /** The `ui://` resources pinned by their content. */
  readonly apps: string[];
  /** The skills pinned, by their SKILL.md URIs. */
  readonly skills?: string[];
  readonly held: Array<Pick<Held, 'kind' | 'name' | 'reason' | 'listed'> & { changed: string[] }>;
}

/** The review of one held definition: both forms as stable pretty JSON (description wrapped) and their
 *  unified diff. */
export interface PinReview {
  readonly server: string;
  readonly kind: PinKind;
  readonly name: string;
  readonly reason: Held['reason'];
  readonly pinned: string;
  readonly current: string;
  readonly diff: string;
}

export interface PinsDeps {
  store: PinStore;
  /** The server's mode: its definition's `pins`, else the setting. */
  mode(server: string): PinMode;
  newTools(): 'allow' | 'hold';
  log(line: string): void;
  /** Something became held on `server` (the editor's notification; GatewayEvent `pins.held`). */
  held(server: string, names: { tools: string[]; prompts: string[]; apps: string[]; skills?: string[] }): void;
}

const isListPinKind = (k: ListKind): k is ListPinKind => k === 'tools' || k === 'prompts' || k === 'skills';

export class Pins {
  /** What is held now, per server then `${kind}\0${name}`: set by each fetch of that server's list. */
  private readonly holding = new Map<string, Map<string, Held>>();
  /** What `warn` let through changed, per server then `${kind}\0${name}`: a call's pin state is read
   *  from memory, never from the file (pins cost nothing per call). */
  private readonly warned = new Map<string, Set<string>>();

  constructor(private readonly d: PinsDeps) {}

  /** A fetched list screened against the pins (the catalogue's screen): pins what is seen first, holds
   *  what changed. */
  apply(server: string, kind: ListKind, items: JsonObject[]): JsonObject[] {
    if (!isListPinKind(kind)) return items;
    const mode = this.d.mode(server);
    if (mode === 'off') return items;
    const pins = this.d.store.read(server)?.[kind];
    const now = Date.now();
    const pin = (item: JsonObject): Pin => {
      const definition = pinned(kind, item);
      return { digest: canonicalDigest(definition), definition, at: now };
    };
    if (!pins) {
      // First sight: everything listed is pinned as it is.
      this.save(server, kind, Object.fromEntries(items.map((i) => [keyOf(kind, i), pin(i)])));
      this.setHeld(server, kind, []);
      return items;
    }
    const fresh: Record<string, Pin> = {};
    const held: Held[] = [];
    const warned = this.warned.get(server) ?? new Set<string>();
    for (const k of [...warned]) if (k.startsWith(`${kind}\u0000`)) warned.delete(k);
    const out: JsonObject[] = [];
    for (const item of items) {
      const name = keyOf(kind, item);
      const mine = pin(item);
      const was = pins[name];
      if (was?.digest === mine.digest) {
        out.push(item);
      } else if (was && olderPin(was, mine.definition)) {
        fresh[name] = mine;
        out.push(item);
      } else if (!was) {
        if (mode === 'hold' && this.d.newTools() === 'hold') {
          held.push({ server, kind, name, reason: 'new', current: mine.definition, listed: false });
          continue;
        }
        fresh[name] = mine;
        out.push(item);
      } else if (mode === 'warn') {
        this.d.log(
          `[${server}] ${PIN_NOUN[kind]} ${name} changed since it was pinned (${changedFields(was.definition, mine.definition).join(', ')}); let through (pins.mode warn)`,
        );
        warned.add(`${kind}\u0000${name}`);
        out.push(item);
      } else {
        const listed = canonicalJson(was.definition[INPUT[kind]]) === canonicalJson(mine.definition[INPUT[kind]]);
        held.push({ server, kind, name, reason: 'changed', pinned: was.definition, current: mine.definition, listed });
        if (listed) out.push(pinnedForm(kind, item, was.definition));
      }
    }
    if (Object.keys(fresh).length) this.save(server, kind, fresh);
    if (warned.size) this.warned.set(server, warned);
    else this.warned.delete(server);
    this.setHeld(server, kind, held);
    return out;
  }

  /** Pins written; a store that refuses (a full disk, a read-only state directory) is logged and the list
   *  still served: it is pinned at the next fetch that can write. */
  private save(server: string, kind: PinKind, pins: Record<string, Pin>): void {
    try {
      this.d.store.put(server, kind, pins);
    } catch (e) {
      this.d.log(`[${server}] ${kind} could not be pinned: ${(e as Error).message}`);
    }
  }

  private setHeld(server: string, kind: PinKind, held: Held[]): void {
    const map = this.holding.get(server) ?? new Map<string, Held>();
    const before = new Set([...map.keys()]);
    for (const k of [...map.keys()]) if (k.startsWith(`${kind}\u0000`)) map.delete(k);
    const fresh: string[] = [];
    for (const h of held) {
      const k = `${kind}\u0000${h.name}`;
      if (!before.has(k)) fresh.push(h.name);
      map.set(k, h);
    }
    if (map.size) this.holding.set(server, map);
    else this.holding.delete(server);
    if (!fresh.length) return;
    this.d.log(
      `[${server}] ${kind} held until reviewed (changed since pinned): ${fresh.join(', ')}; see \`mcpx pins diff ${server}\``,
    );
    this.d.held(server, { tools: [], prompts: [], apps: [], [kind]: fresh });
  }

  /** The held definition a call names, if it is held. */
  heldOf(server: string, kind: PinKind, name: string): Held | undefined {
    return this.holding.get(server)?.get(`${kind}\u0000${name}`);
  }

  /** The held skill of `server` that lists the file at `uri`, as pinned or as now: a file of a held skill
   *  is not read until the change is reviewed (docs/gateway.md "Skills"). */
  heldSkillFile(server: string, uri: string): Held | undefined {
    return [...(this.holding.get(server)?.values() ?? [])].find(
      (h) => h.kind === 'skills' && [h.pinned, h.current].some((e) => e && skillFiles(e).some((f) => f.uri === uri)),
    );
  }

  /** The pass-through server that holds a tool of this name, for a call no list shows. */
  holderOf(servers: readonly string[], name: string): string | undefined {
    return servers.find((s) => this.heldOf(s, 'tools', name));
  }

  /** A call's pin state, as the gate records it (from memory: the last fetch of the server's list). */
  stateOf(server: string, kind: PinKind, name: string): PinState {
    if (this.d.mode(server) === 'off') return 'off';
    if (this.heldOf(server, kind, name)) return 'held';
    return this.warned.get(server)?.has(`${kind}\u0000${name}`) ? 'changed' : 'pinned';
  }

  /** What a refused caller reads: the server, the tool, and how to review. */
  message(h: Held): string {
    const what = `${PIN_NOUN[h.kind]} ${JSON.stringify(h.name)} of ${h.server}`;
    const why =
      h.reason === 'new'
        ? 'is new since its definitions were pinned (pins.newTools is hold)'
        : `changed since it was pinned (${changedFields(h.pinned ?? {}, h.current).join(', ')})`;
    return `mcpx holds the ${what}: it ${why}. Review the change with \`mcpx pins diff ${h.server}\` (or the editor's prompt), then accept it with \`mcpx pins accept ${h.server} ${h.name}\`.`;
  }

  /** A tools/call of a held tool: an isError result the model reads. */
  refusal(h: Held): JsonObject {
    return { content: [{ type: 'text', text: this.message(h) }], isError: true };
  }

  /** A read of an app's `ui://` resource: its content pinned by its digest at the first read, and a later
   *  read whose content differs held (-32602 'pins.held' under `hold`, logged under `warn`) until the
   *  person accepts it — the editor renders the app with the person's authority, so what it renders is
   *  what was reviewed. */
  screenApp(server: string, uri: string, result: JsonObject): void {
    const mode = this.d.mode(server);
    if (mode === 'off') return;
    const definition = appForm(uri, result);
    const mine: Pin = { digest: canonicalDigest(definition), definition, at: Date.now() };
    const was = this.d.store.read(server)?.apps?.[uri];
    const held = this.holding.get(server)?.get(`apps\u0000${uri}`);
    if (!was || was.digest === mine.digest) {
      if (!was) this.save(server, 'apps', { [uri]: mine });
      if (held) this.setHeldApp(server, uri, undefined);
      return;
    }
    if (mode === 'warn') {
      this.d.log(`[${server}] app ${uri} changed since it was pinned; let through (pins.mode warn)`);
      return;
    }
    const h: Held = {
      server,
      kind: 'apps',
      name: uri,
      reason: 'changed',
      pinned: was.definition,
      current: definition,
      listed: false,
    };
    this.setHeldApp(server, uri, h);
    this.refuse(h);
  }

  private setHeldApp(server: string, uri: string, h: Held | undefined): void {
    const now = [...(this.holding.get(server)?.values() ?? [])].filter((x) => x.kind === 'apps' && x.name !== uri);
    this.setHeld(server, 'apps', h ? [...now, h] : now);
  }

  /** A prompts/get of a held prompt: -32602 (LOCAL_CODES 'pins.held'). */
  refuse(h: Held): never {
    throw new McpxError('pins.held', this.message(h));
  }

  /** Every pinned server (and every server holding something). */
  views(servers: readonly string[]): PinView[] {
    const names = [...new Set([...this.d.store.servers(), ...this.holding.keys(), ...servers])].sort();
    return names.filter((s) => servers.includes(s) || this.d.store.read(s)).map((s) => this.view(s));
  }

  view(server: string): PinView {
    const p = this.d.store.read(server) ?? {};
    return {
      server,
      mode: this.d.mode(server),
      tools: Object.keys(p.tools ?? {}).sort(),
      prompts: Object.keys(p.prompts ?? {}).sort(),
      apps: Object.keys(p.apps ?? {}).sort(),
      skills: Object.keys(p.skills ?? {}).sort(),
      held: this.heldAt(server).map((h) => ({
        kind: h.kind,
        name: h.name,
        reason: h.reason,
        listed: h.listed,
        changed: changedFields(h.pinned ?? {}, h.current),
      })),
    };
  }

  private heldAt(server: string): Held[] {
    return [...(this.holding.get(server)?.values() ?? [])].sort(
      (a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name),
    );
  }

  /** The review of each held definition of `server` (or the one named). */
  reviews(server: string, name?: string): PinReview[] {
    return this.heldAt(server)
      .filter((h) => name === undefined || h.name === name)
      .map((h) => {
        const pinnedText = reviewForm(h.pinned);
        const current = reviewForm(h.current);
        const label = `${h.server}/${h.kind === 'tools' ? '' : `${h.kind}/`}${h.name}`;
        return {
          server,
          kind: h.kind,
          name: h.name,
          reason: h.reason,
          pinned: pinnedText,
          current,
          diff: unifiedDiff(pinnedText, current, `${label} (pinned)`, `${label} (now)`),
        };
      });
  }

  /** Accept the held definitions of `server` (or the one named): pinned as they are now, no longer held.
   *  The kinds that changed, for the caller to announce; none when nothing was held. */
  accept(server: string, name?: string): { accepted: string[]; kinds: PinKind[] } {
    const map = this.holding.get(server);
    const chosen = [...(map?.entries() ?? [])].filter(([, h]) => name === undefined || h.name === name);
    const kinds = new Set<PinKind>();
    const now = Date.now();
    for (const [k, h] of chosen) {
      this.d.store.put(server, h.kind, {
        [h.name]: { digest: canonicalDigest(h.current), definition: h.current, at: now },
      });
      map!.delete(k);
      kinds.add(h.kind);
    }
    if (map && !map.size) this.holding.delete(server);
    return { accepted: chosen.map(([, h]) => h.name), kinds: [...kinds] };
  }

  /** Forget the server's pins: what it lists next is pinned afresh. */
  reset(server: string): boolean {
    this.warned.delete(server);
    const had = this.holding.delete(server);
    return this.d.store.remove(server) || had;
  }
}

/** The top-level fields that differ between two pinned forms. */
function changedFields(a: JsonObject, b: JsonObject): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((f) => canonicalJson(a[f]) !== canonicalJson(b[f]))
    .sort();
}

/** The item as listed, with the pinned fields in their pinned form (and those the pin lacks dropped): a
 *  tool's app as pinned, or none. */
function pinnedForm(kind: ListPinKind, item: JsonObject, pin: JsonObject): JsonObject {
  const out: JsonObject = { ...item };
  for (const f of FIELDS[kind]) delete out[f];
  const { app, ...fields } = pin;
  const form = { ...out, ...fields };
  if (kind !== 'tools' || appResourceUri(form) === app) return form;
  return typeof app === 'string' ? withAppUri(form, () => app) : withoutApp(form);
}
