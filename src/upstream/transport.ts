// What the client needs of a transport to an upstream, whatever carries the bytes.
import type { JsonObject, Notification, Request, Response } from '../protocol/jsonrpc';
import type { Aborts } from '../wire/abort';

export interface SendOptions {
  signal?: Aborts;
  /** Extra HTTP headers for this message (2026-07-28 Mcp-Method / Mcp-Name / MCP-Protocol-Version). */
  headers?: Record<string, string>;
}

export interface UpstreamTransport {
  readonly kind: 'stdio' | 'http' | 'sse';
  /** True once the transport has ended, by itself or by close(). */
  readonly isClosed: boolean;
  /** Send a request; resolves with its response. Other messages that arrive meanwhile (notifications,
   *  the server's own requests) go to onIncoming. Rejects with TransportClosed if the peer goes away. */
  request(req: Request, opts?: SendOptions): Promise<Response>;
  notify(n: Notification, opts?: SendOptions): Promise<void>;
  /** Answer a request the server sent. */
  respond(r: Response): Promise<void>;
  /** `via`: the id of the request on whose response stream it arrived (Streamable HTTP), if any. */
  onIncoming?: (msg: Request | Notification, via?: Request['id']) => void;
  /** Called once when the transport ends by itself (process exit, stream loss). */
  onClose?: (reason: Error) => void;
  close(): Promise<void>;
}

export { TransportClosed } from '../wire/correlator';

/** An HTTP-level answer that is not a JSON-RPC response (the era probe reads these). */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly json?: JsonObject,
  ) {
    super(`HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`);
    this.name = 'HttpStatusError';
  }
}
