// mcpx as a client of one upstream, in the era the upstream speaks: the connection (upstream/connection.ts)
// with one call over it (upstream/call.ts: clock, cancellation, input_required rounds, a task driven by
// upstream/tasks.ts) and a whole list. The gateway's one handle on an upstream.
import type { JsonObject } from '../protocol/jsonrpc';
import type { ResultOf } from '../protocol/methods';
import { followsByListen } from '../protocol/eras';
import { hasField } from '../protocol/revisions';
import { type RequestOptions, call, listAll } from './call';
import { UpstreamConnection } from './connection';

export type { ClientHooks, Negotiated } from './connection';
export { UpstreamError } from './connection';
export type { RequestOptions } from './call';

export class UpstreamClient extends UpstreamConnection {
  /** Send one request and return its result, in the shape its descriptor requires (checked by `call`: an
   *  upstream's result in another is an error); a JSON-RPC error becomes an UpstreamError. */
  request<M extends string>(method: M, params: JsonObject = {}, o: RequestOptions = {}): Promise<ResultOf<M>> {
    return call(this, method, params, o) as Promise<ResultOf<M>>;
  }

  /** Whether it completes arguments (completion/complete): it declared `completions`; its revision has no
   *  such capability (2024-11-05: asked anyway, docs/protocol.md "Completions and 2024-11-05"); or not. */
  completions(): 'declared' | 'undeclarable' | 'undeclared' {
    if ('completions' in this.negotiated.capabilities) return 'declared';
    return hasField('ServerCapabilities', 'completions', this.negotiated.revision) ? 'undeclared' : 'undeclarable';
  }

  /** Whether its changes are followed on a listen stream mcpx opens (2026-07-28), not by
   *  resources/subscribe and pushed notifications: its era says. */
  get followsByListen(): boolean {
    return followsByListen(this.codec);
  }

  /** A whole list, page by page (docs/protocol.md "Pagination"). */
  listAll(method: string, key: string, o: RequestOptions = {}): Promise<JsonObject[]> {
    return listAll(this, method, key, o);
  }
}
