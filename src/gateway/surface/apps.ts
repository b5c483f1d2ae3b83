// MCP Apps in pass-through (docs/gateway.md "MCP Apps"): a tool's `_meta.ui.resourceUri` names a ui://
// resource of its own server (SEP-1865 "Resource Discovery"), which a host reads with resources/read. Two
// pass-through servers may name the same ui:// URI; the URI is then shown qualified by its server —
// ui://mcpx/<server>/<the rest> — in the tool's metadata, in resources/list and in the read's contents alike,
// so each reaches its own server. A URI only one server's tools name stays as the upstream wrote it, and a
// bare read of it goes to that server.
import { UI_SCHEME, appResourceUri, declaresUi, modelVisible, withAppUri } from '../../protocol/extensions';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { PassthroughTool } from './passthroughTools';

const QUALIFIED = `${UI_SCHEME}mcpx/`;

/** The ui:// URIs a view's pass-through tools name, and the servers naming each. */
export class AppUris {
  private constructor(
    private readonly owners: ReadonlyMap<string, ReadonlySet<string>>,
    private readonly passthrough: readonly string[],
  ) {}

  static of(index: ReadonlyMap<string, PassthroughTool>, passthrough: readonly string[]): AppUris {
    const owners = new Map<string, Set<string>>();
    for (const t of index.values()) {
      const uri = appResourceUri(t.tool);
      if (uri === undefined || !uri.startsWith(UI_SCHEME)) continue;
      let s = owners.get(uri);
      if (!s) owners.set(uri, (s = new Set()));
      s.add(t.server);
    }
    return new AppUris(owners, passthrough);
  }

  /** `uri` of `server` as a client sees it: as written, unless another server's tools name it too. */
  shown(server: string, uri: string): string {
    if (!uri.startsWith(UI_SCHEME)) return uri;
    const o = this.owners.get(uri);
    if (!o || (o.size === 1 && o.has(server))) return uri;
    return `${QUALIFIED}${encodeURIComponent(server)}/${uri.slice(UI_SCHEME.length)}`;
  }

  /** The server and upstream URI a shown ui:// URI reads at: a qualified one names its server; a bare one
   *  only one server's tools name goes there. Undefined: the ordinary routing decides. */
  locate(uri: string): { server: string; uri: string } | undefined {
    if (uri.startsWith(QUALIFIED)) {
      const rest = uri.slice(QUALIFIED.length);
      const slash = rest.indexOf('/');
      let server: string;
      try {
        server = decodeURIComponent(slash < 0 ? rest : rest.slice(0, slash));
      } catch {
        return undefined;
      }
      if (slash >= 0 && this.passthrough.includes(server)) return { server, uri: UI_SCHEME + rest.slice(slash + 1) };
      return undefined;
    }
    const o = this.owners.get(uri);
    return o?.size === 1 ? { server: [...o][0]!, uri } : undefined;
  }
}

/** The pass-through tools as a client with `caps` lists them, sorted by the name shown: a tool only an app
 *  may call (`visibility` without "model") is left out for a client that renders no apps — its list is
 *  the model's (SEP-1865 "Visibility") — and stays callable; a host gets every tool as its server listed
 *  it and hides those itself. App URIs are shown as `apps` maps them. (A profile's own tools/list, when
 *  profiles come, must filter the same way.) */
export function listedTools(
  index: ReadonlyMap<string, PassthroughTool>,
  apps: AppUris,
  caps: JsonObject,
): JsonObject[] {
  const host = declaresUi(caps);
  return [...index.entries()]
    .filter(([, e]) => host || modelVisible(e.tool))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([shown, e]) => withAppUri({ ...e.tool, name: shown }, (u) => apps.shown(e.server, u)));
}
