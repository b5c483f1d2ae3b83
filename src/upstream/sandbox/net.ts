// The host's side of a sandbox's network (docs/security.md "The upstream sandbox"). The sandbox has a
// network namespace of its own with nothing in it; what it may reach comes in through unix sockets in a
// directory it can only read: one per allowed loopback port (relayed to 127.0.0.1:PORT here), and one
// proxy (HTTP CONNECT and plain HTTP) that lets through only the listed hosts and logs each refusal in
// the server's log. The relay inside (relay.ts) listens on the sandbox's loopback and connects to them.
// On macOS (Seatbelt) there is no namespace to relay into: the proxy listens on the host's loopback.
import { type IncomingMessage, type ServerResponse, createServer as createHttpServer, request } from 'node:http';
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import { join } from 'node:path';

/** Bound on the connections one sandbox may hold open through its relays at once. */
const MAX_CONNECTIONS = 256;

/** `host` (a name, `*.domain`, either with `:port`) allows `name:port`? Without a port: 443 and 80. */
export function hostAllowed(allowed: readonly string[], name: string, port: number): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  return allowed.some((entry) => {
    const m = /^(.*?)(?::(\d+))?$/.exec(entry.toLowerCase())!;
    const pattern = m[1]!;
    const ok = m[2] !== undefined ? port === Number(m[2]) : port === 443 || port === 80;
    if (!ok) return false;
    return pattern.startsWith('*.') ? n.endsWith(pattern.slice(1)) && n.length > pattern.length - 1 : n === pattern;
  });
}

/** A port the proxy is reached at inside the sandbox, one the loopback list does not take. */
function proxyPort(loopback: readonly number[]): number {
  let p = 3128;
  while (loopback.includes(p)) p++;
  return p;
}

/** The environment that points a program at a proxy on the loopback's `port`. */
export function proxyEnv(port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, NO_PROXY: '', no_proxy: '' };
}

export class SandboxNet {
  private readonly servers: Server[] = [];
  private readonly open = new Set<Socket>();

  constructor(
    /** The directory of the sockets (bound read-only into the sandbox at the same path). */
    readonly dir: string,
    private readonly loopback: readonly number[],
    private readonly hosts: readonly string[],
    private readonly log: (line: string) => void,
  ) {}

  /** The relay's arguments: `PORT=SOCKET` for each port the sandbox listens on. */
  get routes(): string[] {
    const r = this.loopback.map((p) => `${p}=${join(this.dir, String(p))}`);
    if (this.hosts.length) r.push(`${proxyPort(this.loopback)}=${join(this.dir, 'proxy')}`);
    return r;
  }

  /** The environment that points a program at the proxy (for those that read it). */
  get env(): Record<string, string> {
    return this.hosts.length ? proxyEnv(proxyPort(this.loopback)) : {};
  }

  async start(): Promise<void> {
    for (const port of this.loopback)
      await this.listen(
        createServer((c) => this.pipe(c, port, '127.0.0.1')),
        join(this.dir, String(port)),
      );
    if (this.hosts.length) await this.listen(this.proxy(), join(this.dir, 'proxy'));
  }

  /** The proxy alone, on the host's loopback at a free port (macOS): its port, none without hosts. */
  async startOnLoopback(): Promise<number | undefined> {
    if (!this.hosts.length) return undefined;
    const proxy = this.proxy();
    await this.listen(proxy, 0);
    return (proxy.address() as AddressInfo).port;
  }

  private proxy(): Server {
    const proxy = createHttpServer((req, res) => this.forward(req, res));
    proxy.on('connect', (req: IncomingMessage, c: Socket, head: Buffer) => this.tunnel(req, c, head));
    return proxy;
  }

  /** Listens at a unix socket's path, or on the loopback at `port` (0: a free one). */
  private listen(s: Server, at: string | number): Promise<void> {
    this.servers.push(s);
    s.maxConnections = MAX_CONNECTIONS;
    return new Promise((resolve, reject) => {
      s.once('error', reject);
      if (typeof at === 'string') s.listen(at, () => resolve());
      else s.listen(at, '127.0.0.1', () => resolve());
    });
  }

  private track(c: Socket): void {
    this.open.add(c);
    c.on('close', () => this.open.delete(c));
    c.on('error', () => c.destroy());
  }

  private pipe(c: Socket, port: number, host: string, head?: Buffer, answer?: string): void {
    this.track(c);
    const up = connect(port, host);
    this.track(up);
    up.once('connect', () => {
      if (answer) c.write(answer);
      if (head?.length) up.write(head);
      c.pipe(up).pipe(c);
    });
    up.on('close', () => c.destroy());
    c.on('close', () => up.destroy());
  }

  private refuse(what: string): void {
    this.log(`sandbox refused a connection to ${what}: not in sandbox.network.hosts`);
  }

  private tunnel(req: IncomingMessage, c: Socket, head: Buffer): void {
    const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(req.url ?? '');
    const port = Number(m?.[2]);
    if (!m || !hostAllowed(this.hosts, m[1]!, port)) {
      this.refuse(req.url ?? '(nothing)');
      c.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.pipe(c, port, m[1]!, head, 'HTTP/1.1 200 Connection Established\r\n\r\n');
  }

  /** Plain HTTP through the proxy: an absolute URL, forwarded when its host is allowed. */
  private forward(req: IncomingMessage, res: ServerResponse): void {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    const port = Number(url.port || 80);
    if (url.protocol !== 'http:' || !hostAllowed(this.hosts, url.hostname, port)) {
      this.refuse(`${url.hostname}:${port}`);
      res.writeHead(403).end();
      return;
    }
    const up = request({
      host: url.hostname,
      port,
      path: url.pathname + url.search,
      method: req.method,
      headers: req.headers,
    });
    up.on('response', (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  }

  async close(): Promise<void> {
    for (const c of this.open) c.destroy();
    await Promise.all(this.servers.map((s) => new Promise((r) => s.close(() => r(undefined)))));
  }
}
