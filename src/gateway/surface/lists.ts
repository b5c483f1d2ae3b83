// Every offered server's list of one kind as one endpoint's client sees it (a pass-through server's as the
// client's extensions have it): what the prompts and resources a client sees are made of.
import type { JsonObject } from '../../protocol/jsonrpc';
import type { CallContext } from '../../server/provider';
import { extensionSet } from '../call/capabilities';
import type { Catalogue } from '../catalogue/catalogue';
import type { Profiles } from '../profiles/profiles';

type Kind = 'prompts' | 'resources' | 'resourceTemplates' | 'skills';

export class Lists {
  constructor(
    private readonly d: {
      profiles: Pick<Profiles, 'of'>;
      catalogue: Catalogue;
      passthrough: readonly string[];
      log(line: string): void;
    },
  ) {}

  /** Each offered server with its list (skills: mcpx's own source too, where offered); a server that
   *  cannot be reached is logged and left out. */
  async all(kind: Kind, ctx: CallContext): Promise<Array<[string, JsonObject[]]>> {
    const { view } = this.d.profiles.of(ctx);
    const servers = kind === 'skills' ? view.skillServers() : view.servers();
    const lists = await Promise.all(servers.map((s) => this.of(kind, s, ctx)));
    return servers.map((s, i) => [s, lists[i]!]);
  }

  /** One server's list as the caller sees it; empty, logged, where it cannot be had. */
  of(kind: Kind, server: string, ctx: CallContext): Promise<JsonObject[]> {
    const ext = this.d.passthrough.includes(server) ? extensionSet(ctx) : undefined;
    return this.d.catalogue.list(server, kind, ctx.identity, ext).catch((e: Error) => {
      this.d.log(`[${server}] ${kind} unavailable: ${e.message}`);
      return [] as JsonObject[];
    });
  }
}
