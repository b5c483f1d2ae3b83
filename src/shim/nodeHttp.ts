// The stdio shim's leg to the gateway (docs/gateway.md "The stdio shim"): the one Streamable HTTP client
// (upstream/streamable.ts) over a node:http port, so the shim — its own small bundle, dist/shim.js — starts
// without fetch's HTTP stack. node:https is loaded only for an https:// endpoint.
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { type HttpAnswer, type HttpPort, StreamableHttp, Unreachable } from '../upstream/streamable';
import type { UpstreamBounds } from '../upstream/transport';

export { SessionExpired, StreamBroken } from '../upstream/streamable';

/** One exchange over node:http: resolves at the response's head; the body is read by the client. */
function nodeHttpPort(url: URL): HttpPort {
  // A require, not import(): the loader may run the bundle as a vm.Script, where import() has no loader.
  const send = url.protocol === 'https:' ? (require('node:https') as typeof import('node:https')).request : httpRequest;
  return (_url, ask) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const headers: Record<string, string | number> = { ...ask.headers };
      if (ask.body !== undefined) headers['Content-Length'] = Buffer.byteLength(ask.body);
      const req = send(url, { method: ask.method, headers, signal: ask.signal }, (res) => resolve(answerOf(res)));
      req.on('error', (e) => reject(ask.signal.aborted ? e : new Unreachable(e.message)));
      req.end(ask.body);
    });
}

function answerOf(res: IncomingMessage): HttpAnswer {
  return {
    status: res.statusCode ?? 0,
    header: (name) => {
      const v = res.headers[name.toLowerCase()];
      return Array.isArray(v) ? v[0] : v;
    },
    body: res as AsyncIterable<Uint8Array>,
    // What is left unread is drained where it has all arrived (the socket kept), else the stream cut.
    cancel: () => {
      res.resume();
      if (!res.complete) res.destroy();
    },
  };
}

export interface GatewayHttpOptions {
  url: string;
  headers: Record<string, string>;
  log: (line: string) => void;
  bounds: UpstreamBounds;
}

/** The gateway, as the shim reaches it. */
export class GatewayHttp extends StreamableHttp {
  constructor(o: GatewayHttpOptions) {
    super({ ...o, name: 'gateway', port: nodeHttpPort(new URL(o.url)) });
  }
}
