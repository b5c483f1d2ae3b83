// The endpoints a gateway serves (docs/gateway.md "Profiles"): the default one and one per profile of the
// config's `profiles` block, each with its view (view.ts), its pass-through index and its tool search
// index. A request names its profile by the URL it came to (transport/http.ts), carried on its context
// (`CallContext.profile`); `of(ctx)` is the one lookup every path makes. A reload replaces the block:
// `reset` drops every profile's state, rebuilt on its next request.
import type { Principal } from '../../protocol/principal';
import { principalMatches } from '../permissions/rules';
import type { Config } from '../../config/file';
import type { Profile } from '../../config/profiles';
import type { ServerDef } from '../../config/servers';
import { CODES, ProtocolError } from '../../protocol/errors';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { ListKind } from '../../server/provider';
import type { Catalogue } from '../catalogue/catalogue';
import { ToolSearch } from '../search/index';
import { PassthroughTools } from '../surface/passthroughTools';
import { type ToolView, defaultView, profileView } from './view';

/** One endpoint's offer and what is kept for it. */
export class Offered {
  readonly passthroughTools: PassthroughTools;
  /** The tool search over what this endpoint offers (mcpx_search, mcpx_tools' query). */
  readonly search = new ToolSearch();
  /** Each catalogue list as this view presents it: the same list object while the catalogue's is the
   *  same, so the search index is not rebuilt per search. */
  private readonly presented = new WeakMap<readonly JsonObject[], readonly JsonObject[]>();

  constructor(
    readonly view: ToolView,
    catalogue: Catalogue,
    log: (line: string) => void,
  ) {
    this.passthroughTools = new PassthroughTools({ view, catalogue, log });
  }

  /** A server's catalogue list with this view's descriptions. */
  present(server: string, list: readonly JsonObject[]): readonly JsonObject[] {
    let out = this.presented.get(list);
    if (!out) {
      const mapped = list.map((t) => this.view.present(server, t));
      out = mapped.every((t, i) => t === list[i]) ? list : mapped;
      this.presented.set(list, out);
    }
    return out;
  }
}

/** One profile in `mcpx profiles` (/v1/profiles). */
export interface ProfileSummary {
  name: string;
  mode: Profile['mode'];
  servers: string[];
  /** Upstream tools it offers (mcpx_call reaches them). */
  tools: number;
  /** What its tools/list shows, gateway tools included. */
  listed: number;
  errors?: Array<{ server: string; error: string }>;
}

/** Whether two profiles blocks say the same (a reload tells profile clients only when they differ). */
export function sameProfiles(a: Config['profiles'], b: Config['profiles']): boolean {
  const data = (p: Config['profiles']) =>
    JSON.stringify(p ? [...p.entries()].map(([k, v]) => [k, { ...v, servers: [...v.servers] }]) : []);
  return data(a) === data(b);
}

export interface ProfilesDeps {
  /** Read live: a reload replaces `profiles` in it (Gateway.apply). */
  readonly config: Config;
  readonly defs: ReadonlyMap<string, ServerDef>;
  readonly passthrough: readonly string[];
  readonly catalogue: Catalogue;
  log(line: string): void;
}

export class Profiles {
  readonly default: Offered;
  private readonly byName = new Map<string, Offered>();

  constructor(private readonly d: ProfilesDeps) {
    this.default = new Offered(defaultView(d.defs, d.passthrough, this.own), d.catalogue, d.log);
  }

  /** Whether mcpx serves skills of its own now (the config's `skills` block). */
  private readonly own = () => this.d.config.skills !== undefined;

  /** The profiles configured now, by name. */
  get configured(): ReadonlyMap<string, Profile> {
    return this.d.config.profiles ?? new Map();
  }

  /** Whether `name` is a configured profile (the transport's 404 otherwise). */
  has(name: string): boolean {
    return this.configured.has(name);
  }

  /** Who `name`'s endpoint admits by token (its `access`): the scopes it needs, and whether `principal`
   *  is one it names; the person (no principal) always is. */
  access(name: string, principal?: Principal): { scopes: readonly string[]; admitted: boolean } | undefined {
    const a = this.configured.get(name)?.access;
    if (!a) return undefined;
    return { scopes: a.scopes ?? [], admitted: !principal || principalMatches(a, principal) };
  }

  /** The endpoint a request came to: the default one, or its profile's. A profile a reload removed
   *  while its session lived is refused as an unknown profile. */
  of(ctx: { readonly profile?: string }): Offered {
    return ctx.profile === undefined ? this.default : this.named(ctx.profile);
  }

  named(name: string): Offered {
    const p = this.configured.get(name);
    if (!p) throw new ProtocolError(CODES.InvalidRequest, `no profile named ${JSON.stringify(name)} is configured`);
    let o = this.byName.get(name);
    // Made again when the block holding it was replaced (a reload; the editor's chat gateway reads the
    // main one's block through).
    if (!o || o.view.profile !== p) {
      o = new Offered(profileView(p, this.d.defs, this.own), this.d.catalogue, this.d.log);
      this.byName.set(name, o);
    }
    return o;
  }

  /** A reload replaced the block: each profile's view is made again from it when next asked. */
  reset(): void {
    this.byName.clear();
  }

  /** Each profile as `mcpx profiles` shows it: its mode, its servers, how many upstream tools it offers
   *  and how many tools/list shows (its gateway tools counted); a server that cannot list is named with
   *  its error. Listing starts the profile's servers, as mcpx_tools does. */
  async summaries(identity: string, gatewayTools: readonly string[]): Promise<ProfileSummary[]> {
    return Promise.all(
      [...this.configured.keys()].map(async (name) => {
        const { view } = this.named(name);
        const servers = view.servers();
        let tools = 0;
        let listed = gatewayTools.filter((t) => !view.gatewayTools || view.gatewayTools.has(t)).length;
        const errors: Array<{ server: string; error: string }> = [];
        await Promise.all(
          servers.map(async (s) => {
            try {
              for (const t of await this.d.catalogue.list(s, 'tools', identity)) {
                const n = String(t.name);
                if (!view.allows(s, n)) continue;
                tools++;
                if (view.listed().includes(s) && view.lists(s, n)) listed++;
              }
            } catch (e) {
              errors.push({ server: s, error: (e as Error).message });
            }
          }),
        );
        return { name, mode: view.profile!.mode, servers, tools, listed, ...(errors.length ? { errors } : {}) };
      }),
    );
  }

  /** The endpoints whose tools/list shows upstream tools now (undefined: the default one): a reload
   *  tells those that did before or do after (applyConfig.ts), so the clients of a pass-through server
   *  removed hear that its tools went. */
  listingTools(): Set<string | undefined> {
    const out = new Set<string | undefined>();
    if (this.default.view.listed().length) out.add(undefined);
    for (const name of this.configured.keys()) if (this.named(name).view.listed().length) out.add(name);
    return out;
  }

  /** Whose clients a change of `server`'s `kind` list concerns (undefined: the default endpoint's): the
   *  endpoints offering the server, and for tools only those that list its tools under their names. */
  reaches(kind: ListKind, server: string | undefined): (profile: string | undefined) => boolean {
    return (profile) => {
      const o = profile === undefined ? this.default : this.configured.has(profile) ? this.named(profile) : undefined;
      if (!o) return false;
      if (server === undefined) return kind !== 'tools' || o.view.listed().length > 0;
      if (!o.view.has(server)) return false;
      return kind !== 'tools' || o.view.listed().includes(server);
    };
  }
}
