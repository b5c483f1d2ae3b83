// Every offered server's list of one kind as one endpoint's client sees it (a pass-through server's as the
// client's extensions have it): what the prompts and resources a client sees are made of.
import type { JsonObject } from '../../protocol/jsonrpc';
import type { CallContext } from '../../server/provider';
import { extensionSet } from '../call/capabilities';
import type { Catalogue } from '../catalogue/catalogue';
import type { Profiles } from '../profiles/profiles';

export class Lists {
  constructor(
    private readonly d: {
      profiles: Pick<Profiles, 'of'>;
      catalogue: Catalogue;
      passthrough: readonly string[];
      log(line: string): void;
    },
  ) {}

  /** Each offered server with its list; a server that cannot be reached is logged and left out. */
  async all(
    kind: 'prompts' | 'resources' | 'resourceTemplates' | 'skills',
    ctx: CallContext,
  ): Promise<Array<[string, JsonObject[]]>> {
    const servers = this.d.profiles.of(ctx).view.servers();
    const ext = extensionSet(ctx);
    const lists = await Promise.all(
      servers.map((s) =>
        this.d.catalogue
          .list(s, kind, ctx.identity, this.d.passthrough.includes(s) ? ext : undefined)
          .catch((e: Error) => {
            this.d.log(`[${s}] ${kind} unavailable: ${e.message}`);
            return [] as JsonObject[];
          }),
      ),
    );
    return servers.map((s, i) => [s, lists[i]!]);
  }
}
