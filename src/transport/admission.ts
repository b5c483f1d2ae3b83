// Admission at the HTTP layer, when a request's head has arrived and before its body is read or parsed
// (docs/security.md "Bounds", "Which bound answers"): at most transport.maxInflightPerConnection requests
// in flight on one connection (HTTP/1.1 pipelining: node:http hands over a connection's next request
// while the previous one is still being answered), and at most transport.maxInflightPerIdentity for one
// identity the head names (a legacy session's, by Mcp-Session-Id). Past either, 429 with Retry-After and
// a -32603 naming the setting; the body is never read into memory: it is discarded as it arrives.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Settings } from '../config/settings';
import { CODES, ProtocolError } from '../protocol/errors';
import { HttpRefusal } from './refusal';

/** How long a refused client is asked to wait (RFC 9110 Retry-After, seconds). */
const RETRY_AFTER_S = '1';

export class HttpAdmission {
  private readonly perConnection = new WeakMap<Socket, number>();
  /** Requests in flight per identity; an identity at zero holds no entry. */
  private readonly perIdentity = new Map<string, number>();

  constructor(private readonly settings: Settings) {}

  /** Counts the request in until its response closes, or throws the refusal (429) past a bound.
   *  `identity`: the one the head names, if any; a request that names none is its own identity
   *  (docs/protocol.md "Client identity"), which never holds two requests. */
  admit(req: IncomingMessage, res: ServerResponse, identity: string | undefined): void {
    const socket = req.socket;
    const onConnection = this.perConnection.get(socket) ?? 0;
    const refuse = (message: string) => {
      // The body is discarded as it arrives, never buffered or parsed.
      req.resume();
      return refusal(message);
    };
    const perConnection = this.settings.get<number>('transport.maxInflightPerConnection');
    if (onConnection >= perConnection)
      throw refuse(
        `this connection has ${perConnection} requests in flight (transport.maxInflightPerConnection); send the next when one has been answered`,
      );
    const perIdentity = this.settings.get<number>('transport.maxInflightPerIdentity');
    const ofIdentity = identity === undefined ? 0 : (this.perIdentity.get(identity) ?? 0);
    if (ofIdentity >= perIdentity)
      throw refuse(
        `this identity has ${perIdentity} requests in flight (transport.maxInflightPerIdentity); retry when one has been answered`,
      );
    this.perConnection.set(socket, onConnection + 1);
    if (identity !== undefined) this.perIdentity.set(identity, ofIdentity + 1);
    res.once('close', () => {
      const n = (this.perConnection.get(socket) ?? 1) - 1;
      if (n > 0) this.perConnection.set(socket, n);
      else this.perConnection.delete(socket);
      if (identity === undefined) return;
      const left = (this.perIdentity.get(identity) ?? 1) - 1;
      if (left > 0) this.perIdentity.set(identity, left);
      else this.perIdentity.delete(identity);
    });
  }
}

/** 429 (RFC 6585; no MCP revision names a status for it) with the bound's -32603, no id: the request was
 *  not read. */
const refusal = (message: string) =>
  new HttpRefusal(429, new ProtocolError(CODES.InternalError, message), undefined, { 'Retry-After': RETRY_AFTER_S });
