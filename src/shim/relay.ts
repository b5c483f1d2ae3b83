// The stdio shim's relay (docs/gateway.md "The stdio shim"): a stdio client's lines onto a running
// gateway's Streamable HTTP endpoint, through the same transport mcpx uses for an HTTP upstream
// (upstream/http.ts: sessions, the GET stream, SSE, per-request headers, bounds) — no third copy of the
// framing. Frames are relayed, not re-spelled: what the client reads is what the gateway sent for its
// revision. A legacy client gets a session in its own revision (its initialize is the session's); a
// 2026-07-28 client's requests go one by one with their headers. The shim is one identity to the
// gateway: its session, or — for 2026-07-28 requests that name none — one `_meta["dev.mcpx/session"]` of
// its own (docs/protocol.md "Client identity").
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { withoutSecret } from '../config/secret';
import { CODES, type WireError } from '../protocol/errors';
import {
  type Id,
  type JsonObject,
  type Notification,
  type Request,
  type Response,
  errorResponse,
  isObject,
} from '../protocol/jsonrpc';
import { META } from '../protocol/meta';
import { MCP_NAME_SOURCE, MODERN, VERSION_HEADER, inSpan, isRevision } from '../protocol/revisions';
import { HttpUpstream, SessionExpired, StreamBroken } from '../upstream/http';
import { HttpStatusError, TransportClosed } from '../upstream/transport';
import { SHIM_HEADER, encodeHeaderValue } from '../wire/headers';
import { LineSplitter } from '../wire/lines';
import { type HeaderParam, headerParams, paramHeaders } from '../wire/paramHeaders';

export interface RelayOptions {
  /** The gateway's endpoint, secret included. */
  endpoint: string;
  input: Readable;
  output: Writable;
  log(line: string): void;
  maxLineBytes: number;
  /** After a break (the gateway restarted, the editor reloaded): where the gateway is now. */
  reconnect?: () => Promise<string>;
  /** How long to keep trying to reach a gateway again before giving up (the shim then exits). */
  reconnectForMs?: number;
  /** How long requests in flight may take to answer once stdin ended. */
  drainMs?: number;
}

const isModern = (params: unknown): boolean =>
  isObject(params) && isObject(params._meta) && params._meta[META.protocolVersion] === MODERN;

export class Relay {
  /** Resolves when stdin ended and the relay closed (the session ended), or when the gateway could not be
   *  reached again. */
  readonly closed: Promise<void>;
  private up: HttpUpstream;
  private endpoint: string;
  /** The client's initialize, kept to open a session again after a break. */
  private init?: { params: JsonObject; initialized: boolean };
  /** 2026-07-28 requests in flight: closing one's stream is its cancellation. */
  private readonly modern = new Map<Id, AbortController>();
  private readonly inflight = new Set<Promise<void>>();
  /** One identity for this shim's 2026-07-28 requests that name none (128 random bits). */
  private readonly identity = `shim-${randomBytes(16).toString('hex')}`;
  private reconnecting?: Promise<void>;
  /** x-mcp-header arguments of the tools the gateway listed to this shim: a 2026-07-28 tools/call carries
   *  each as its Mcp-Param-<Name> header (2026-07-28 streamable-http "Custom Headers from Tool
   *  Parameters"). Learned from the lists the client's requests bring back, or asked for once. */
  private readonly toolHeaders = new Map<string, HeaderParam[]>();
  private toolsListed?: Promise<void>;
  private done!: () => void;
  private ended = false;

  constructor(private readonly o: RelayOptions) {
    this.endpoint = o.endpoint;
    this.up = this.open(o.endpoint);
    this.closed = new Promise((r) => (this.done = r));
    const lines = new LineSplitter(o.maxLineBytes, {
      line: (l) => this.line(l),
      overlong: (bytes) =>
        this.write(
          errorResponse(undefined, {
            code: CODES.InvalidRequest,
            message: `a line of ${bytes} bytes is over transport.maxLineBytes (${o.maxLineBytes})`,
          }),
        ),
    });
    o.input.on('data', (c: Buffer) => lines.push(c));
    o.input.on('end', () => void this.end());
    o.input.on('error', () => void this.end());
  }

  private open(endpoint: string): HttpUpstream {
    const up = new HttpUpstream('gateway', {
      url: endpoint,
      headers: { [SHIM_HEADER]: String(process.pid) },
      log: this.o.log,
    });
    // What the gateway sends on its own (questions, notifications, on a POST's stream or the GET
    // stream) goes to the client as it came.
    up.onIncoming = (msg) => this.write(msg);
    return up;
  }

  private write(msg: unknown): void {
    if (!this.ended || this.inflight.size) this.o.output.write(`${JSON.stringify(msg)}\n`);
  }

  private line(text: string): void {
    if (!text.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      return this.write(
        errorResponse(undefined, { code: CODES.ParseError, message: 'Parse error: the line is not JSON' }),
      );
    }
    this.track(Array.isArray(v) ? this.batch(v) : this.one(v).then((r) => r && this.write(r)));
  }

  private track(p: Promise<void>): void {
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p));
  }

  /** A 2025-03-26 batch: each message relayed, the responses written back as one array. */
  private async batch(items: unknown[]): Promise<void> {
    const out = (await Promise.all(items.map((m) => this.one(m)))).filter((r): r is Response => r !== undefined);
    if (out.length) this.write(out);
  }

  /** One message: a request answered (its response returned), a notification or a response passed on. */
  private async one(v: unknown): Promise<Response | undefined> {
    const m = isObject(v) ? v : {};
    const id = m.id as Id | undefined;
    try {
      if (typeof m.method === 'string' && 'id' in m) return await this.request(m as unknown as Request);
      if (typeof m.method === 'string') return void (await this.notify(m as unknown as Notification));
      if ('result' in m || 'error' in m) return void (await this.up.respond(m as unknown as Response));
      return await this.request(m as unknown as Request); // the gateway says what is wrong with it
    } catch (e) {
      if (id === undefined) return undefined;
      return errorResponse(id, { code: CODES.InternalError, message: this.why(e) });
    }
  }

  private async request(req: Request): Promise<Response> {
    // A request that comes while the gateway is being found again waits for it, then goes there.
    if (this.reconnecting) await this.reconnecting;
    const modern = isModern(req.params);
    if (modern) req = this.named(req);
    if (req.method === 'initialize' && isObject(req.params)) this.init = { params: req.params, initialized: false };
    const ctl = new AbortController();
    if (modern) this.modern.set(req.id, ctl);
    try {
      if (modern && req.method === 'tools/call') await this.learnTools(req);
      const res = await this.send(req, ctl.signal, modern);
      if (modern && req.method === 'tools/list' && 'result' in res) this.learn(res.result.tools);
      if (req.method === 'initialize' && 'result' in res) {
        const v = res.result.protocolVersion;
        // The session's revision rides every later request from 2025-06-18 (2025-06-18 transports).
        if (isRevision(v) && inSpan(v, VERSION_HEADER)) this.up.protocolVersion = v;
      }
      return res;
    } finally {
      if (modern) this.modern.delete(req.id);
    }
  }

  /** The request, sent again once on the gateway found again when it never reached the old one (the
   *  connection refused, or the session unknown there: it did not run). One the break cut off mid-way is
   *  answered with an error saying so: it may have run (docs/gateway.md "The stdio shim"). */
  private async send(req: Request, signal: AbortSignal, modern: boolean, again = true): Promise<Response> {
    try {
      return await this.up.request(req, { signal, headers: modern ? this.modernHeaders(req) : undefined });
    } catch (e) {
      // Refused at the HTTP level (the secret, Origin, a size bound): the gateway's error, answered on this
      // request's id so the client can tell which request it ends.
      if (e instanceof HttpStatusError && e.json && isObject(e.json.error))
        return errorResponse(req.id, e.json.error as unknown as WireError);
      if (signal.aborted || this.ended) throw e;
      const unsent = e instanceof SessionExpired || e instanceof TransportClosed;
      if (!isBreak(e)) throw e;
      const recovered = this.recover(e as Error);
      if (!unsent || !again || req.method === 'initialize') throw e;
      await recovered;
      return this.send(req, signal, modern, false);
    }
  }

  /** 2026-07-28 streamable-http "Standard Request Headers": the version, the method, the name, and a
   *  tools/call's Mcp-Param-* headers. */
  private modernHeaders(req: Request): Record<string, string> {
    const h: Record<string, string> = { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': req.method };
    const field = Object.hasOwn(MCP_NAME_SOURCE, req.method) ? MCP_NAME_SOURCE[req.method] : undefined;
    const params = isObject(req.params) ? req.params : {};
    const name = field ? params[field] : undefined;
    if (typeof name === 'string') h['Mcp-Name'] = encodeHeaderValue(name);
    const annotated = req.method === 'tools/call' && typeof name === 'string' ? this.toolHeaders.get(name) : undefined;
    if (annotated) Object.assign(h, paramHeaders(annotated, isObject(params.arguments) ? params.arguments : {}));
    return h;
  }

  private learn(tools: unknown): void {
    if (!Array.isArray(tools)) return;
    for (const t of tools) {
      if (!isObject(t) || typeof t.name !== 'string') continue;
      const found = headerParams(t.inputSchema);
      if ('params' in found && found.params.length) this.toolHeaders.set(t.name, found.params);
    }
  }

  /** Before the first 2026-07-28 tools/call of a tool the shim has not seen listed: the gateway's tools,
   *  once (every page), under the caller's own capabilities and identity. */
  private learnTools(req: Request): Promise<void> {
    const name = isObject(req.params) ? req.params.name : undefined;
    if (typeof name !== 'string' || this.toolHeaders.has(name)) return Promise.resolve();
    this.toolsListed ??= (async () => {
      const meta = (req.params as JsonObject)._meta;
      let cursor: unknown;
      for (let page = 0; page < 100; page++) {
        const list: Request = {
          jsonrpc: '2.0',
          id: `mcpx-shim-tools-${page}`,
          method: 'tools/list',
          params: { ...(typeof cursor === 'string' ? { cursor } : {}), _meta: meta },
        };
        const r = await this.up.request(list, { headers: this.modernHeaders(list) }).catch(() => undefined);
        if (!r || !('result' in r)) return;
        this.learn(r.result.tools);
        cursor = r.result.nextCursor;
        if (typeof cursor !== 'string') return;
      }
    })();
    return this.toolsListed;
  }

  /** A 2026-07-28 request naming no identity is the shim's (one identity per agent). */
  private named(req: Request): Request {
    const params = req.params as JsonObject;
    const meta = params._meta as JsonObject;
    if (typeof meta[META.session] === 'string') return req;
    return { ...req, params: { ...params, _meta: { ...meta, [META.session]: this.identity } } };
  }

  private async notify(n: Notification): Promise<void> {
    // 2026-07-28: closing the request's stream is its cancellation (streamable-http "Cancellation").
    if (n.method === 'notifications/cancelled' && isObject(n.params)) {
      const ctl = this.modern.get(n.params.requestId as Id);
      if (ctl) return ctl.abort(new Error('cancelled by the client'));
    }
    if (isModern(n.params))
      return this.up.notify(n, { headers: { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': n.method } });
    await this.up.notify(n);
    if (n.method === 'notifications/initialized') {
      if (this.init) this.init.initialized = true;
      this.up.openStream();
    }
  }

  private why(e: unknown): string {
    const m = e instanceof Error ? e.message : String(e);
    if (!isBreak(e)) return `the shim could not relay this request: ${m}`;
    return `the gateway went away while this request was out (${m}); it may or may not have run — the shim is reconnecting`;
  }

  /** The gateway restarted or went away: find it again (re-resolving), open the session again with the
   *  client's own initialize, so the client needs no restart. Given up after reconnectForMs: the shim ends. */
  private recover(cause: Error): Promise<void> {
    if (this.reconnecting || !this.o.reconnect) return this.reconnecting ?? Promise.resolve();
    this.o.log(`mcpx: lost the gateway at ${withoutSecret(this.endpoint)} (${cause.message}); reconnecting`);
    const until = Date.now() + (this.o.reconnectForMs ?? 30_000);
    this.reconnecting = (async () => {
      for (let wait = 200; Date.now() < until && !this.ended; wait = Math.min(wait * 2, 2000)) {
        try {
          const endpoint = await this.o.reconnect!();
          const next = this.open(endpoint);
          if (this.init) {
            const r = await next.request({
              jsonrpc: '2.0',
              id: 'mcpx-shim-reconnect',
              method: 'initialize',
              params: this.init.params,
            });
            if ('error' in r) throw new Error(r.error.message);
            const v = r.result.protocolVersion;
            if (isRevision(v) && inSpan(v, VERSION_HEADER)) next.protocolVersion = v;
            if (this.init.initialized) {
              await next.notify({ jsonrpc: '2.0', method: 'notifications/initialized' });
              next.openStream();
            }
          }
          void this.up.close();
          this.up = next;
          this.endpoint = endpoint;
          this.o.log(`mcpx: reconnected to ${withoutSecret(endpoint)}`);
          return;
        } catch (e) {
          this.o.log(`mcpx: not yet: ${(e as Error).message}`);
          await new Promise((r) => setTimeout(r, wait));
        }
      }
      if (!this.ended) {
        this.o.log('mcpx: could not reach a gateway again; exiting');
        await this.end();
      }
    })().finally(() => (this.reconnecting = undefined));
    return this.reconnecting;
  }

  /** stdin ended: requests in flight get drainMs to answer; then the session ends and the relay closes. */
  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    const drain = new Promise((r) => setTimeout(r, this.o.drainMs ?? 2000).unref());
    await Promise.race([Promise.allSettled([...this.inflight]), drain]);
    for (const ctl of this.modern.values()) ctl.abort(new Error('the client went away'));
    await this.up.close();
    this.done();
  }
}

/** The gateway went away: the connection refused, the session unknown (a restart), or a stream cut
 *  mid-way (StreamBroken, or fetch's TypeError "terminated"). */
function isBreak(e: unknown): boolean {
  return (
    e instanceof SessionExpired || e instanceof TransportClosed || e instanceof StreamBroken || e instanceof TypeError
  );
}
