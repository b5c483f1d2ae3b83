// The resources one endpoint's client sees (docs/gateway.md "The surface", "Pass-through", "MCP Apps"):
// each offered server's resources and templates, a pass-through server's under their own URIs (an app's
// ui:// URI as its tools name it) and the others' as mcpx://<server>/<uri>; and where a URI a client names
// is read or watched — the one lookup of a resources/read and a watch (call/offered.ts).
import { UI_SCHEME } from '../../protocol/extensions';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { CallContext } from '../../server/provider';
import type { ExtensionSet } from '../../upstream/instances';
import type { AppUris } from './apps';
import type { Catalogue } from '../catalogue/catalogue';
import {
  normaliseUri,
  parseGatewayUri,
  resolveInner,
  templateMatches,
  toGatewayTemplate,
  toGatewayUri,
} from '../catalogue/uris';
import type { Lists } from './lists';

/** Which server a resource URI is read (or watched) at, and under which URI there. */
export interface Located {
  server: string;
  uri: string;
  /** An mcpx:// URI (its answer is rewritten back), not a pass-through server's own. */
  gateway: boolean;
}

/** Where `uri` lives, or why nowhere: an mcpx:// URI names its server; a bare URI goes to the first
 *  pass-through server that lists it or has a template for it, else to the first (docs/gateway.md
 *  "Pass-through"). The URI found is the normalised one (uris.ts normaliseUri): what the permission rules
 *  and the pins are matched against and what the upstream is sent, however the client spelled it
 *  (docs/gateway.md "Resource URIs"). `has`: the servers the caller's endpoint offers (a profile's; default:
 *  all). `ext`: the pass-through servers' lists as a client with these extensions sees them. `unknown`: the
 *  URI names no configured server (not to be quoted: it may be anything the client wrote). */
export async function locateResource(
  d: { passthrough: readonly string[]; catalogue: Catalogue; has: (server: string) => boolean },
  uri: string,
  identity: string,
  ext?: ExtensionSet,
): Promise<Located | { reason: string; unknown?: true }> {
  const { has } = d;
  const passthrough = d.passthrough.filter(has);
  const parsed = parseGatewayUri(uri);
  if (parsed) {
    if (!parsed.server) return { reason: 'the mcpx:// URI names no server' };
    // Not quoted: a name that is not configured may be anything the client wrote.
    if (!has(parsed.server)) return { reason: 'the mcpx:// URI names no configured server', unknown: true };
    const known = new Set(
      (await d.catalogue.list(parsed.server, 'resources', identity).catch(() => [] as JsonObject[])).map((r) =>
        normaliseUri(String(r.uri)),
      ),
    );
    return { server: parsed.server, uri: resolveInner(normaliseUri(parsed.inner), known), gateway: true };
  }
  if (passthrough.length === 0) return { reason: 'not an mcpx:// URI' };
  const wanted = normaliseUri(uri);
  for (const server of passthrough) {
    const rs = await d.catalogue.list(server, 'resources', identity, ext).catch(() => [] as JsonObject[]);
    if (rs.some((r) => normaliseUri(String(r.uri)) === wanted)) return { server, uri: wanted, gateway: false };
    const ts = await d.catalogue.list(server, 'resourceTemplates', identity, ext).catch(() => [] as JsonObject[]);
    if (ts.some((t) => templateMatches(String(t.uriTemplate), wanted))) return { server, uri: wanted, gateway: false };
  }
  return { server: passthrough[0]!, uri: wanted, gateway: false };
}

export class Resources {
  constructor(
    private readonly d: {
      lists: Lists;
      passthrough: readonly string[];
      /** The ui:// URIs the pass-through tools name, as the calling client lists them (gateway/surface/apps.ts). */
      apps(ctx: CallContext): Promise<AppUris>;
    },
  ) {}

  async list(ctx: CallContext): Promise<JsonObject[]> {
    const { passthrough } = this.d;
    const lists = await this.d.lists.all('resources', ctx);
    // A pass-through server's ui:// resource is shown as its tools name it (gateway/surface/apps.ts); the tools
    // are listed for that only where such a resource is.
    const ui = lists.some(([s, rs]) => passthrough.includes(s) && rs.some((r) => String(r.uri).startsWith(UI_SCHEME)));
    const apps = ui ? await this.d.apps(ctx) : undefined;
    const own = (server: string, r: JsonObject): JsonObject => {
      const uri = apps?.shown(server, String(r.uri)) ?? r.uri;
      return uri === r.uri ? r : { ...r, uri };
    };
    return lists.flatMap(([server, rs]) =>
      passthrough.includes(server)
        ? rs.map((r) => own(server, r))
        : rs.map((r) => ({ ...r, uri: toGatewayUri(server, String(r.uri)) })),
    );
  }

  async templates(ctx: CallContext): Promise<JsonObject[]> {
    return (await this.d.lists.all('resourceTemplates', ctx)).flatMap(([server, ts]) =>
      this.d.passthrough.includes(server)
        ? ts
        : ts.map((t) => ({ ...t, uriTemplate: toGatewayTemplate(server, String(t.uriTemplate)) })),
    );
  }
}
