// Bounds on the listener's connections (docs/security.md "Bounds"): how long a client may take to send a
// request (transport.headersTimeout, transport.requestTimeout: node:http answers 408 and closes), and how
// many connections are held at once (transport.maxConnections: past it a new one gets 503 and is closed).
import { type Server, type ServerOptions, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Settings } from '../config/settings';
import { CODES } from '../protocol/errors';
import { errorResponse } from '../protocol/jsonrpc';

/** How long a refused connection may linger for its peer to read the 503 and close. */
const REFUSED_LINGER_MS = 1000;

/** node:http's timeouts from the settings. requestTimeout bounds receiving a request (its head and body:
 *  node:http stops the clock once the request's last byte is read), never the response, so an SSE
 *  stream or a long call is not cut. */
export function serverOptions(settings: Settings): ServerOptions {
  const requestTimeout = settings.duration('transport.requestTimeout');
  const header = settings.duration('transport.headersTimeout');
  // node:http refuses a headersTimeout above requestTimeout (0 is no bound for either).
  const headersTimeout = requestTimeout > 0 && (header === 0 || header > requestTimeout) ? requestTimeout : header;
  const bounds = [headersTimeout, requestTimeout].filter((t) => t > 0);
  return {
    headersTimeout,
    requestTimeout,
    // node:http checks the timeouts every connectionsCheckingInterval (30 s by default): check often
    // enough that a bound is kept to within a second.
    connectionsCheckingInterval: bounds.length ? Math.max(10, Math.min(1000, Math.min(...bounds) / 2)) : 30_000,
    // A missing Host is refused by head.ts with a JSON-RPC body, for HTTP/1.0 as well as 1.1.
    requireHostHeader: false,
  };
}

/** Holds at most transport.maxConnections connections: node:http serves those, and a connection past
 *  them is answered 503 at once (a JSON-RPC error naming the setting) and closed, unread; while as many
 *  refused ones still linger, a new one is closed unanswered. */
export class ConnectionCap {
  private open = 0;
  private readonly refused = new Set<Socket>();

  constructor(
    http: Server,
    private readonly max: number,
  ) {
    // node:http serves a connection through its one 'connection' listener; it runs only for those
    // admitted here (node:http documents emitting 'connection' to hand it a socket).
    const serve = http.listeners('connection');
    if (serve.length !== 1) {
      // Not the node:http this was written against: its own cap, which closes the socket unanswered.
      http.maxConnections = max;
      return;
    }
    http.removeAllListeners('connection');
    http.on('connection', (socket: Socket) => {
      if (this.open >= this.max) return this.refuse(socket);
      this.open++;
      socket.once('close', () => this.open--);
      serve[0]!.call(http, socket);
    });
  }

  private refuse(socket: Socket): void {
    // The refused ones lingering are bounded too (by the same number): past them, closed unanswered.
    if (this.refused.size >= this.max) return void socket.destroy();
    this.refused.add(socket);
    const body = JSON.stringify(
      errorResponse(undefined, {
        code: CODES.InternalError,
        message: `the gateway holds ${this.max} connections (transport.maxConnections); retry when one has closed`,
      }),
    );
    // The peer may still be sending its request: read and drop it, so that closing does not reset the
    // connection before the peer reads the answer; then close once it has, or after a moment however
    // much it sends.
    const linger = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(linger);
      this.refused.delete(socket);
    });
    socket.on('end', () => socket.destroy());
    socket.resume();
    socket.end(
      `HTTP/1.1 503 ${STATUS_CODES[503]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${body}`,
    );
  }

  /** Closes the refused connections still lingering (node:http closes its own). */
  close(): void {
    for (const s of this.refused) s.destroy();
  }
}
