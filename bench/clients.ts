// The clients of the gateway benchmark (bench/gateway.ts) and its parts: an HTTP client on node:http and
// one on fetch, each posting back to back, their samples gathered, and a JSON-RPC peer on a stdio pipe.
import type { ChildProcess } from 'node:child_process';
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { createInterface } from 'node:readline';
import { type Figures, figures, shown } from './lib';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the load loop needs of a client. */
export interface Poster {
  readonly url: URL;
  post(body: string): Promise<HttpAnswer>;
  close(): void;
}

/** One client on fetch (undici's keep-alive pool), the way the official SDK's HTTP client sends. */
export class FetchClient implements Poster {
  constructor(
    readonly url: URL,
    private readonly headers: Record<string, string>,
  ) {}

  async post(body: string): Promise<HttpAnswer> {
    const res = await fetch(this.url, {
      method: 'POST',
      headers: this.headers,
      body,
      signal: AbortSignal.timeout(30_000),
    });
    return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
  }

  close(): void {}
}

/** One HTTP client on its own keep-alive connection, with its own headers (a session id, say). */
export class HttpClient implements Poster {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  readonly headers: Record<string, string>;

  constructor(
    readonly url: URL,
    headers: Record<string, string>,
  ) {
    this.headers = { ...headers };
  }

  send(method: 'POST' | 'DELETE', body?: string, extra: Record<string, string> = {}): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: this.url.hostname,
          port: this.url.port,
          path: this.url.pathname,
          method,
          agent: this.agent,
          headers: { ...this.headers, ...extra },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      // A server that stops answering fails the run instead of hanging it.
      req.setTimeout(30_000, () => req.destroy(new Error(`no answer from ${shown(this.url)} within 30 s`)));
      req.end(body);
    });
  }

  post(body: string, extra?: Record<string, string>): Promise<HttpAnswer> {
    return this.send('POST', body, extra);
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Latencies of one run and how long it took: runs of one path can be added up (see `Samples`). */
export interface Run {
  latencies: number[];
  elapsed: number;
}

/** Runs of one path added up, so that paths can take turns and share the machine's noise. */
export class Samples {
  private readonly latencies: number[] = [];
  private elapsed = 0;

  add(r: Run): void {
    for (const l of r.latencies) this.latencies.push(l);
    this.elapsed += r.elapsed;
  }

  figures(): Figures {
    return figures(this.latencies, this.elapsed);
  }
}

let nextHttpId = 1;

/** Every client POSTs `body(id)` back to back for `ms`; an answer `check` rejects fails the run. */
export async function clientsRun(
  clients: Poster[],
  body: (id: number) => string,
  ms: number,
  check: (a: HttpAnswer) => boolean,
): Promise<Run> {
  const latencies: number[] = [];
  const start = performance.now();
  const end = start + ms;
  await Promise.all(
    clients.map(async (c) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const a = await c.post(body(nextHttpId++));
        if (!check(a))
          throw new Error(`unexpected answer from ${shown(c.url)}: HTTP ${a.status} ${a.body.slice(0, 300)}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { latencies, elapsed: performance.now() - start };
}

export async function clientsLoad(
  clients: Poster[],
  body: (id: number) => string,
  ms: number,
  check: (a: HttpAnswer) => boolean,
): Promise<Figures> {
  const r = await clientsRun(clients, body, ms, check);
  return figures(r.latencies, r.elapsed);
}

/** A JSON-RPC peer over a child's newline-delimited stdio: requests by id, any number in flight. */
export class StdioRpc {
  private readonly pending = new Map<number, (line: string) => void>();
  private nextId = 1;
  private exited = false;

  constructor(readonly child: ChildProcess) {
    // A peer that exits answers everything still pending, and everything after, with an empty line
    // (which no check accepts), so the run fails instead of hanging.
    child.stdin!.on('error', () => undefined);
    child.once('exit', () => {
      this.exited = true;
      for (const done of this.pending.values()) done('');
      this.pending.clear();
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /^\{"jsonrpc":"2\.0","id":(\d+)/.exec(line.slice(0, 48));
      let id = m ? Number(m[1]) : undefined;
      if (id === undefined) {
        try {
          const v = JSON.parse(line) as { id?: unknown };
          if (typeof v.id === 'number') id = v.id;
        } catch {
          return;
        }
      }
      if (id === undefined) return;
      const done = this.pending.get(id);
      this.pending.delete(id);
      done?.(line);
    });
  }

  /** Sends `msg(id)` with a fresh id; resolves with the raw response line. */
  call(msg: (id: number) => string): Promise<string> {
    const id = this.nextId++;
    if (this.exited) return Promise.resolve('');
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.child.stdin!.write(`${msg(id)}\n`);
    });
  }

  request(method: string, params: Record<string, unknown>): Promise<string> {
    return this.call((id) => JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  }

  notify(method: string): void {
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  /** `concurrency` requests kept in flight on the one pipe for `ms`. */
  async run(
    msg: (id: number) => string,
    concurrency: number,
    ms: number,
    check: (line: string) => boolean,
  ): Promise<Run> {
    const latencies: number[] = [];
    const start = performance.now();
    const end = start + ms;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < end) {
          const t0 = performance.now();
          const line = await this.call(msg);
          if (!check(line)) throw new Error(`unexpected answer on stdio: ${line.slice(0, 300)}`);
          latencies.push(performance.now() - t0);
        }
      }),
    );
    return { latencies, elapsed: performance.now() - start };
  }
}
