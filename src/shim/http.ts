// The shim's leg to the gateway over Streamable HTTP, on node:http (docs/gateway.md "The stdio shim"): the
// shim is its own small bundle (dist/shim.js) and starts without fetch's HTTP stack. What it reads keeps
// the bounds and readings of upstream/transport.ts (an SSE event, a JSON body, a message's nesting). Legacy:
// the session the gateway mints on initialize, the GET stream (resumed with Last-Event-ID), a 404 on the
// session read as "session ended". 2026-07-28: no session, per-request headers, closing the stream is the
// cancellation (2026-07-28 streamable-http "Cancellation").
import { type IncomingMessage, type OutgoingHttpHeaders, request as httpRequest } from 'node:http';
import { createParser } from 'eventsource-parser';
import { redactUrl } from '../config/redact';
import { CODES, ProtocolError } from '../protocol/errors';
import {
  type Id,
  type JsonObject,
  type Notification,
  type Request,
  type Response,
  classify,
} from '../protocol/jsonrpc';
import { HEADERLESS, SESSIONS, STREAM_RESUMPTION, type Span, inSpan, isRevision } from '../protocol/revisions';
import {
  HttpStatusError,
  type SendOptions,
  TransportClosed,
  type UpstreamBounds,
  eventTooLong,
  readUpstreamMessage,
  unreadableResponse,
} from '../upstream/transport';
import { signalOf } from '../wire/abort';
import { eventBound } from '../wire/eventBound';

/** The session ended (legacy 404 on a session): the relay opens it again. */
export class SessionExpired extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SessionExpired';
  }
}

/** A response stream cut before its response (the gateway went away mid-way). */
export class StreamBroken extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StreamBroken';
  }
}

export interface GatewayHttpOptions {
  url: string;
  headers: Record<string, string>;
  log: (line: string) => void;
  bounds: UpstreamBounds;
}

const NAME = 'gateway';
const ok = (res: IncomingMessage) => (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300;
const typeOf = (res: IncomingMessage) => res.headers['content-type'] ?? '';

export class GatewayHttp {
  sessionId?: string;
  /** Sent as MCP-Protocol-Version once a legacy revision is negotiated (2025-06-18+). */
  protocolVersion?: string;
  /** What the gateway sends on its own; `via`: the request on whose stream it came. */
  onIncoming?: (msg: Request | Notification, via?: Id) => void;
  private readonly ctl = new AbortController();
  private streamCtl?: AbortController;
  private lastEventId?: string;
  private readonly url: URL;
  /** node:https (and TLS under it) is loaded only for an https:// endpoint: the shim's start is short. A
   *  require, not import(): the loader may run the bundle as a vm.Script, where import() has no loader. */
  private readonly send: typeof httpRequest;

  constructor(private readonly opts: GatewayHttpOptions) {
    this.url = new URL(opts.url);
    this.send =
      this.url.protocol === 'https:' ? (require('node:https') as typeof import('node:https')).request : httpRequest;
  }

  private headers(extra?: Record<string, string>): Record<string, string> {
    const h: Record<string, string> = {
      ...this.opts.headers,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    };
    if (this.sessionId) h['Mcp-Session-Id'] = this.sessionId;
    if (this.protocolVersion) h['MCP-Protocol-Version'] = this.protocolVersion;
    return { ...h, ...extra };
  }

  /** Whether the revision a message is sent as has `feature` (its own header, else the negotiated one). */
  private has(feature: Span, opts: SendOptions): boolean {
    const v = opts.headers?.['MCP-Protocol-Version'] ?? this.protocolVersion;
    return inSpan(isRevision(v) ? v : HEADERLESS, feature);
  }

  /** One HTTP exchange: resolves at the response's head; the body is read by the caller. */
  private exchange(method: string, headers: OutgoingHttpHeaders, signal: AbortSignal, body?: string) {
    const send = this.send;
    return new Promise<IncomingMessage>((resolve, reject) => {
      if (signal.aborted) return reject(abortReason(signal));
      if (body !== undefined) headers['Content-Length'] = Buffer.byteLength(body);
      const req = send(this.url, { method, headers, signal }, resolve);
      req.on('error', (e) =>
        reject(
          signal.aborted
            ? abortReason(signal)
            : new TransportClosed(`upstream ${NAME} at ${redactUrl(this.opts.url)} could not be reached: ${e.message}`),
        ),
      );
      req.end(body);
    });
  }

  private async post(body: unknown, opts: SendOptions = {}): Promise<IncomingMessage> {
    const signal = opts.signal ? AbortSignal.any([signalOf(opts.signal), this.ctl.signal]) : this.ctl.signal;
    const res = await this.exchange('POST', this.headers(opts.headers), signal, JSON.stringify(body));
    const sid = res.headers['mcp-session-id'];
    if (typeof sid === 'string' && sid) this.sessionId = sid;
    if (res.statusCode === 404 && this.sessionId && this.has(SESSIONS, opts)) {
      res.destroy();
      this.sessionId = undefined;
      throw new SessionExpired(`upstream ${NAME}: the session ended (HTTP 404)`);
    }
    return res;
  }

  /** The body as text, at most transport.maxBodyBytes: a longer one is dropped and fails the call. */
  private async text(res: IncomingMessage): Promise<string> {
    const max = this.opts.bounds.maxBodyBytes;
    const parts: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > max) {
          res.destroy();
          throw new ProtocolError(
            CODES.InternalError,
            `Internal error: upstream ${NAME} sent a body longer than ${max} bytes (transport.maxBodyBytes)`,
          );
        }
        parts.push(chunk);
      }
    } catch (e) {
      if (e instanceof ProtocolError) throw e;
      throw new StreamBroken(`upstream ${NAME}: the response body was cut off (${(e as Error).message})`);
    }
    return Buffer.concat(parts, size).toString('utf8');
  }

  /** JSON-RPC messages from a JSON or SSE body. `cursor` collects the stream's last event id and retry
   *  interval (2025-11-25 basic/transports "Resumability and Redelivery"). One SSE event past
   *  transport.maxLineBytes fails the stream before the parser buffers it. */
  private async *messages(
    res: IncomingMessage,
    cursor?: { lastEventId?: string; retryMs?: number },
  ): AsyncGenerator<unknown> {
    const { maxLineBytes, maxDepth } = this.opts.bounds;
    if (typeOf(res).includes('text/event-stream')) {
      const events: Array<{ id?: string; data: string }> = [];
      const parser = createParser({
        onEvent: (ev) => events.push(ev),
        onRetry: (ms) => cursor && (cursor.retryMs = ms),
      });
      const bound = eventBound(maxLineBytes);
      res.setEncoding('utf8');
      try {
        for await (const chunk of res as AsyncIterable<string>) {
          if (!bound(chunk)) {
            res.destroy();
            throw eventTooLong(NAME, maxLineBytes);
          }
          parser.feed(chunk);
          for (let ev = events.shift(); ev; ev = events.shift()) {
            if (cursor && ev.id) cursor.lastEventId = ev.id;
            if (!ev.data) continue; // a priming event (2025-11-25) carries an id and no data
            let v: unknown;
            try {
              v = readUpstreamMessage(NAME, ev.data, maxDepth, this.opts.log);
            } catch {
              this.opts.log(`[${NAME}] SSE event that is not JSON skipped`);
              continue;
            }
            if (v !== undefined) yield v;
          }
        }
      } catch (e) {
        if (e instanceof ProtocolError) throw e;
        throw new StreamBroken(`upstream ${NAME}: the event stream was cut off (${(e as Error).message})`);
      }
      return;
    }
    const text = await this.text(res);
    if (!text) return;
    let v: unknown;
    try {
      v = readUpstreamMessage(NAME, text, maxDepth, this.opts.log);
    } catch {
      throw new HttpStatusError(res.statusCode ?? 0, text);
    }
    if (v !== undefined) yield v;
  }

  async request(req: Request, opts: SendOptions = {}): Promise<Response> {
    let res = await this.post(req, opts);
    const type = typeOf(res);
    if (!ok(res) && !type.includes('json') && !type.includes('event-stream'))
      throw new HttpStatusError(res.statusCode ?? 0, await this.text(res));
    if (res.statusCode === 202) {
      res.resume();
      throw new HttpStatusError(202, 'a request was answered with 202 and no response');
    }
    const cursor: { lastEventId?: string; retryMs?: number } = {};
    const resumable = this.has(STREAM_RESUMPTION, opts);
    for (let attempt = 0; ; attempt++) {
      for await (const v of this.messages(res, cursor)) {
        const c = classify(v);
        if (c.kind === 'response' && c.msg.id === req.id) {
          res.destroy();
          return c.msg;
        }
        // A request on this POST's own stream belongs to this request (its call).
        if (c.kind === 'request' || c.kind === 'notification') this.onIncoming?.(c.msg, req.id);
        else if (c.kind === 'invalid' && c.id === req.id) {
          const failed = unreadableResponse(NAME, v, c.error.message);
          if (failed) {
            res.destroy();
            return failed;
          }
        } else if (c.kind === 'response' && !ok(res)) {
          // An error without our id (an HTTP-level refusal): surfaced with its status.
          throw new HttpStatusError(res.statusCode ?? 0, JSON.stringify(v), v as JsonObject);
        }
      }
      // The stream ended before its response: a legacy stream that gave an event id is resumed after the
      // retry interval with a GET and Last-Event-ID; 2026-07-28 has no resumption (docs/protocol.md "A
      // broken 2026-07-28 stream").
      if (!resumable || cursor.lastEventId === undefined || attempt >= 5 || opts.signal?.aborted) break;
      await new Promise((r) => setTimeout(r, cursor.retryMs ?? 1000));
      res = await this.getStream(cursor.lastEventId, signalOf(opts.signal));
      if (!ok(res)) {
        res.resume();
        break;
      }
    }
    throw new StreamBroken(`upstream ${NAME}: the response stream ended before the response to ${req.method}`);
  }

  /** A GET event stream; with `lastEventId`, resumed from after that event (2025-11-25 transports). */
  private getStream(lastEventId: string | undefined, signal?: AbortSignal): Promise<IncomingMessage> {
    const h = this.headers({ Accept: 'text/event-stream' });
    delete h['Content-Type'];
    if (lastEventId) h['Last-Event-ID'] = lastEventId;
    return this.exchange('GET', h, signal ? AbortSignal.any([signal, this.ctl.signal]) : this.ctl.signal);
  }

  async notify(n: Notification, opts: SendOptions = {}): Promise<void> {
    (await this.post(n, opts)).resume();
  }

  async respond(r: Response): Promise<void> {
    if (this.ctl.signal.aborted) throw new TransportClosed(`upstream ${NAME} is closed`);
    (await this.post(r)).resume();
  }

  /** Legacy: the GET stream for what the gateway sends unasked; tried once per connection. */
  openStream(): void {
    if (this.streamCtl || !this.sessionId) return;
    const ctl = new AbortController();
    this.streamCtl = ctl;
    const loop = async () => {
      for (let attempt = 0; attempt < 5 && !ctl.signal.aborted; attempt++) {
        try {
          const res = await this.getStream(this.lastEventId, ctl.signal);
          if (!ok(res)) {
            res.resume();
            return;
          }
          attempt = 0;
          const cursor = { lastEventId: this.lastEventId };
          for await (const v of this.messages(res, cursor)) {
            this.lastEventId = cursor.lastEventId;
            const c = classify(v);
            if (c.kind === 'request' || c.kind === 'notification') this.onIncoming?.(c.msg);
          }
        } catch {
          if (ctl.signal.aborted) return;
        }
        await new Promise((r) => setTimeout(r, 200 * (attempt + 1)));
      }
    };
    void loop();
  }

  async close(): Promise<void> {
    const sid = this.sessionId;
    this.streamCtl?.abort();
    this.ctl.abort(new TransportClosed(`upstream ${NAME} is stopping`));
    if (!sid) return;
    // Legacy: the session ended politely; a gateway without DELETE answers 405, which is fine.
    await this.exchange('DELETE', { ...this.opts.headers, 'Mcp-Session-Id': sid }, AbortSignal.timeout(1000))
      .then((res) => res.resume())
      .catch(() => undefined);
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
