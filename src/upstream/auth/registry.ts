// Every upstream's Authorizer, one per server for the whole gateway: the pool's connections to a server
// share its sign-in.
import type { ServerDef } from '../../config/servers';
import { Authorizer, type AuthorizerOptions } from './authorizer';

/** What every server's Authorizer shares; the server, its URL and its `auth` block come from its definition. */
type AuthorizersOptions = Omit<AuthorizerOptions, 'server' | 'url' | 'config'>;

export class Authorizers {
  private readonly byServer = new Map<string, Authorizer>();
  constructor(readonly o: AuthorizersOptions) {}

  /** The server's Authorizer: an HTTP server with `auth: {type: "oauth"}`, or with no auth at all (a
   *  Bearer challenge starts discovery on its own). A stdio server, or one with a static credential, has none. */
  for(def: ServerDef): Authorizer | undefined {
    if (def.type === 'stdio') return undefined;
    const a = def.auth;
    if (a && a.type !== 'oauth') return undefined;
    const config = a?.type === 'oauth' ? a : undefined;
    const known = this.byServer.get(def.name);
    if (known && known.o.url === def.url && known.o.config === config) return known;
    const made = new Authorizer({ ...this.o, server: def.name, url: def.url, config });
    this.byServer.set(def.name, made);
    return made;
  }
}
