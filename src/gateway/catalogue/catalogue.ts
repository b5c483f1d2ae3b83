// What each upstream offers, fetched lazily and kept until it says its list changed: tools, prompts,
// resources and templates, and the skills of a server that declares the Skills extension (SEP-2640).
import type { JsonObject } from '../../protocol/jsonrpc';
import { declaresSkills } from '../../protocol/skills';
import type { ExtensionSet } from '../../upstream/instances';
import type { Pool } from '../../upstream/pool';

export type ListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates' | 'skills';

const METHOD: Record<ListKind, string> = {
  tools: 'tools/list',
  prompts: 'prompts/list',
  resources: 'resources/list',
  resourceTemplates: 'resources/templates/list',
  skills: 'skills/list',
};

const has = (capability: string) => (caps: JsonObject) => capability in caps;
/** The capability a server must declare for each list. */
const DECLARES: Record<ListKind, (caps: JsonObject) => boolean> = {
  tools: has('tools'),
  prompts: has('prompts'),
  resources: has('resources'),
  resourceTemplates: has('resources'),
  skills: declaresSkills,
};

/** list_changed notification -> the lists it invalidates. */
export const INVALIDATES: Readonly<Record<string, ListKind[]>> = {
  'notifications/tools/list_changed': ['tools'],
  'notifications/prompts/list_changed': ['prompts'],
  // A skill's files are resources; the extension has no list_changed of its own (SEP-2640).
  'notifications/resources/list_changed': ['resources', 'resourceTemplates', 'skills'],
};

export class Catalogue {
  private readonly cache = new Map<string, Promise<JsonObject[]>>();

  constructor(
    private readonly pool: Pool,
    /** What passes of a list as it is fetched (gateway/catalogue/screen.ts, the guardrails, the pins); all
     *  of it when none is given. */
    private readonly screen: (
      server: string,
      kind: ListKind,
      items: JsonObject[],
    ) => JsonObject[] | Promise<JsonObject[]> = (_s, _k, i) => i,
    /** A source of skills mcpx serves itself (catalogue/localSkills.ts), listed under its name as a
     *  server's are, one list for everyone. */
    private readonly own?: { readonly name: string; list(): Promise<JsonObject[]> },
  ) {}

  private key(server: string, kind: ListKind, scope: string): string {
    return `${server}\u0000${kind}\u0000${scope}`;
  }

  /** A server's list; an empty one where the server does not declare the capability. `ext`: as a client
   *  that declared these extensions sees it (a pass-through server), one list per set whatever the
   *  upstream's era — what a server offers may depend on them (docs/protocol.md "Extensions across the
   *  gateway"). */
  list(server: string, kind: ListKind, identity: string, ext?: ExtensionSet): Promise<JsonObject[]> {
    if (server === this.own?.name) return this.cached(this.key(server, kind, ''), () => this.ownList(kind));
    const def = this.pool.def(server);
    const k = this.key(server, kind, `${this.pool.scopeOf(def, identity)}${ext ? `\u0000${ext.key}` : ''}`);
    return this.cached(k, async () => {
      const client = await this.pool.client(server, identity, ext);
      if (!DECLARES[kind](client.negotiated.capabilities)) return [];
      // Declared per request where the upstream reads them so (else its instance declared them).
      const clientCapabilities = ext && { ...client.defaultCapabilities, extensions: ext.extensions };
      return await this.screen(
        server,
        kind,
        await client.listAll(METHOD[kind], kind, { timeoutMs: this.pool.callTimeout(), clientCapabilities }),
      );
    });
  }

  /** The own source's list: its skills, screened as a server's are; nothing of any other kind. */
  private async ownList(kind: ListKind): Promise<JsonObject[]> {
    const own = this.own!;
    return kind === 'skills' ? await this.screen(own.name, kind, await own.list()) : [];
  }

  private cached(k: string, fetch: () => Promise<JsonObject[]>): Promise<JsonObject[]> {
    let p = this.cache.get(k);
    if (!p) {
      p = fetch();
      this.cache.set(k, p);
      // A failed fetch is not kept: the next call tries again.
      p.catch(() => this.cache.get(k) === p && this.cache.delete(k));
    }
    return p;
  }

  invalidate(server: string, kinds?: readonly ListKind[]): void {
    for (const k of [...this.cache.keys()]) {
      const [s, kind] = k.split('\u0000');
      if (s === server && (!kinds || kinds.includes(kind as ListKind))) this.cache.delete(k);
    }
  }
}
