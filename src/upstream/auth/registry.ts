// Every upstream's Authorizer, one per server for the whole gateway: the pool's connections to a server
// share its sign-in, and the editor's views and `mcpx auth` read its state here.
import type { ServerDef } from '../../config/servers';
import { Authorizer, type SignInPort, type SignInState } from './authorizer';
import type { SecretStore } from './store';

export interface AuthorizersOptions {
  store: SecretStore;
  person?: SignInPort;
  log: (line: string) => void;
  signInTimeoutMs: number;
  stepUpRetries: number;
  /** What fixes a missing sign-in on this host; `{server}` is replaced by the server's name. */
  fixHint: string;
  onChange?: (server: string, state: SignInState) => void;
}

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

  get(server: string): Authorizer | undefined {
    return this.byServer.get(server);
  }

  /** The state of every server that has signed in or been asked to. */
  states(): Array<{ server: string; state: SignInState }> {
    return [...this.byServer.values()]
      .filter((a) => a.status() !== 'not-needed')
      .map((a) => ({ server: a.server, state: a.status() }));
  }
}
