// A small round-robin load balancer for the team tests: each request (not each connection) goes to the
// next backend in turn, as a layer-7 balancer without affinity does; a backend that refuses the connection
// is skipped for that request (it has stopped). It rewrites Host to the backend's, as a reverse proxy
// does, and records which backend served each request, by method and path.
import { type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';

export interface Served {
  backend: string;
  method: string;
  path: string;
  /** The JSON-RPC method of a POST body, when it has one. */
  rpc?: string;
}

export interface Balancer {
  readonly url: string;
  /** Every request, in the order they arrived. */
  readonly served: Served[];
  close(): Promise<void>;
}

export async function startBalancer(backends: Array<{ name: string; url: () => string }>): Promise<Balancer> {
  let next = 0;
  const served: Served[] = [];
  const relay = (req: IncomingMessage, res: ServerResponse, body: Buffer, tried: number) => {
    const b = backends[next++ % backends.length]!;
    const target = new URL(req.url ?? '/', b.url());
    const headers = { ...req.headers, host: target.host };
    let rpc: string | undefined;
    try {
      const m = JSON.parse(body.toString()) as { method?: unknown };
      if (typeof m.method === 'string') rpc = m.method;
    } catch {
      // not JSON
    }
    const entry: Served = { backend: b.name, method: req.method ?? '', path: target.pathname, ...(rpc ? { rpc } : {}) };
    served.push(entry);
    const out = request(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', (e: NodeJS.ErrnoException) => {
      // Not served by it after all: the next one tries.
      served.splice(served.indexOf(entry), 1);
      if (e.code === 'ECONNREFUSED' && tried + 1 < backends.length) return relay(req, res, body, tried + 1);
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    out.end(body);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => relay(req, res, Buffer.concat(chunks), 0));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
