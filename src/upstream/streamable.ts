// One Streamable HTTP client (2025-03-26..2026-07-28 basic/transports), over a small fetch-like port: the
// gateway's upstreams pass fetch with OAuth as middleware (http.ts), the stdio shim a node:http adapter
// (shim/nodeHttp.ts: its bundle holds no fetch). Legacy: the session the server mints on initialize, the
// GET stream for what it sends unasked (resumed with Last-Event-ID), a 404 on the session read as "the
// session ended". 2026-07-28: no sessions, per-request headers, closing the stream is the cancellation.
// What is read is bounded (upstream/transport.ts): a JSON body, an SSE event, a message's nesting.
import { createParser } from 'eventsource-parser';
import { redactUrl } from '../config/redact';
import { CODES, ProtocolError } from '../protocol/errors';
import { type JsonObject, type Notification, type Request, type Response, classify } from '../protocol/jsonrpc';
import { HEADERLESS, SESSIONS, STREAM_RESUMPTION, type Span, inSpan, isRevision } from '../protocol/revisions';
import { signalOf } from '../wire/abort';
import { eventBound } from '../wire/eventBound';
import {
  HttpStatusError,
  MAX_ANSWERS_UNREAD,
  type SendOptions,
  TransportClosed,
  type UpstreamBounds,
  answersUnread,
  eventTooLong,
  readUpstreamMessage,
  unreadableResponse,
} from './transport';

/** One exchange as the port is asked it. */
export interface HttpAsk {
  readonly method: 'POST' | 'GET' | 'DELETE';
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly signal: AbortSignal;
}

/** What the port answers: the head at once, the body as it arrives. */
export interface HttpAnswer {
  readonly status: number;
  header(name: string): string | undefined;
  readonly body: AsyncIterable<Uint8Array>;
  /** The body is not read further: it is dropped. */
  cancel(): void;
}

/** The port: one exchange with the endpoint (fetch, node:http, or either with middleware in front). A
 *  failure to reach the endpoint rejects with Unreachable; what middleware throws (a sign-in needed)
 *  reaches the caller as it is. */
export type HttpPort = (url: string, ask: HttpAsk) => Promise<HttpAnswer>;

/** A port could not reach the endpoint: its message says why (the network's words). */
export class Unreachable extends Error {
  constructor(why: string) {
    super(why);
    this.name = 'Unreachable';
  }
}

/** The session ended (legacy 404 on a session): the client initializes again (the shim opens it again). */
export class SessionExpired extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SessionExpired';
  }
}

/** A response stream cut or ended before its response (the peer went away mid-way). */
export class StreamBroken extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StreamBroken';
  }
}

export interface StreamableOptions {
  /** Who the peer is, in messages: an upstream's name, or `gateway` (the shim's). */
  name: string;
  url: string;
  headers: Record<string, string>;
  log: (line: string) => void;
  bounds: UpstreamBounds;
  port: HttpPort;
}

const ok = (a: HttpAnswer) => a.status >= 200 && a.status < 300;
const typeOf = (a: HttpAnswer) => a.header('content-type') ?? '';
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class StreamableHttp {
  sessionId?: string;
  /** Sent as MCP-Protocol-Version once a legacy revision is negotiated (2025-06-18+). */
  protocolVersion?: string;
  /** What the peer sends on its own; `via`: the request on whose stream it came. */
  onIncoming?: (msg: Request | Notification, via?: Request['id']) => void;
  onClose?: (reason: Error) => void;
  protected readonly ctl = new AbortController();
  private streamCtl?: AbortController;
  private lastEventId?: string;
  /** Answers to the peer's requests whose POST has not been answered yet. */
  private answering = 0;

  constructor(protected readonly o: StreamableOptions) {}

  get isClosed(): boolean {
    return this.ctl.signal.aborted;
  }

  private headers(extra?: Record<string, string>): Record<string, string> {
    const h: Record<string, string> = {
      ...this.o.headers,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    };
    if (this.sessionId) h['Mcp-Session-Id'] = this.sessionId;
    if (this.protocolVersion) h['MCP-Protocol-Version'] = this.protocolVersion;
    return { ...h, ...extra };
  }

  /** Whether the revision a message is sent as has `feature`: its own MCP-Protocol-Version header, else
   *  the negotiated one; a message without the header is HEADERLESS. */
  private has(feature: Span, opts: SendOptions): boolean {
    const v = opts.headers?.['MCP-Protocol-Version'] ?? this.protocolVersion;
    return inSpan(isRevision(v) ? v : HEADERLESS, feature);
  }

  /** One exchange through the port; a failure to reach the peer is TransportClosed, an abort its reason. */
  private async exchange(ask: HttpAsk): Promise<HttpAnswer> {
    const { signal } = ask;
    if (signal.aborted) throw abortReason(signal);
    try {
      return await this.o.port(this.o.url, ask);
    } catch (e) {
      if (signal.aborted) throw abortReason(signal);
      if (!(e instanceof Unreachable)) throw e;
      throw new TransportClosed(
        `upstream ${this.o.name} at ${redactUrl(this.o.url)} could not be reached: ${e.message}`,
      );
    }
  }

  private async post(body: unknown, opts: SendOptions = {}): Promise<HttpAnswer> {
    const signal = opts.signal ? AbortSignal.any([signalOf(opts.signal), this.ctl.signal]) : this.ctl.signal;
    const res = await this.exchange({
      method: 'POST',
      headers: this.headers(opts.headers),
      body: JSON.stringify(body),
      signal,
    });
    const sid = res.header('mcp-session-id');
    if (sid) this.sessionId = sid;
    if (res.status === 404 && this.sessionId && this.has(SESSIONS, opts)) {
      res.cancel();
      this.sessionId = undefined;
      throw new SessionExpired(`upstream ${this.o.name}: the session ended (HTTP 404)`);
    }
    return res;
  }

  /** A GET event stream; with `lastEventId`, resumed from after that event (2025-11-25 transports,
   *  "Resumability"). */
  private getStream(lastEventId: string | undefined, signal?: AbortSignal): Promise<HttpAnswer> {
    const h = this.headers({ Accept: 'text/event-stream' });
    delete h['Content-Type'];
    if (lastEventId) h['Last-Event-ID'] = lastEventId;
    return this.exchange({
      method: 'GET',
      headers: h,
      signal: signal ? AbortSignal.any([signal, this.ctl.signal]) : this.ctl.signal,
    });
  }

  /** The body as bytes, at most transport.maxBodyBytes: a longer one is dropped and fails the call. */
  private async bytes(res: HttpAnswer): Promise<Buffer> {
    const max = this.o.bounds.maxBodyBytes;
    const parts: Uint8Array[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        size += chunk.length;
        if (size > max) {
          res.cancel();
          throw new ProtocolError(
            CODES.InternalError,
            `Internal error: upstream ${this.o.name} sent a body longer than ${max} bytes (transport.maxBodyBytes)`,
          );
        }
        parts.push(chunk);
      }
    } catch (e) {
      if (e instanceof ProtocolError) throw e;
      throw new StreamBroken(`upstream ${this.o.name}: the response body was cut off (${(e as Error).message})`);
    }
    return Buffer.concat(parts, size);
  }

  /** JSON-RPC messages from a JSON or SSE body. `cursor` collects the stream's last event id and retry
   *  interval (2025-11-25 basic/transports "Resumability and Redelivery"). One SSE event past
   *  transport.maxLineBytes fails the stream before the parser buffers it. */
  private async *messages(
    res: HttpAnswer,
    cursor?: { lastEventId?: string; retryMs?: number },
  ): AsyncGenerator<unknown> {
    const { name, log } = this.o;
    const { maxLineBytes, maxDepth } = this.o.bounds;
    if (!typeOf(res).includes('text/event-stream')) {
      const bytes = await this.bytes(res);
      if (bytes.length === 0) return;
      let v: unknown;
      try {
        v = readUpstreamMessage(name, bytes, maxDepth, log);
      } catch {
        throw new HttpStatusError(res.status, bytes.toString('utf8'));
      }
      if (v !== undefined) yield v;
      return;
    }
    const events: Array<{ id?: string; data: string }> = [];
    const parser = createParser({
      onEvent: (ev) => events.push(ev),
      onRetry: (ms) => cursor && (cursor.retryMs = ms),
    });
    const bound = eventBound(maxLineBytes);
    const decoder = new TextDecoder();
    try {
      for await (const bytes of res.body) {
        const chunk = decoder.decode(bytes, { stream: true });
        if (!bound(chunk)) {
          res.cancel();
          throw eventTooLong(name, maxLineBytes);
        }
        parser.feed(chunk);
        for (let ev = events.shift(); ev; ev = events.shift()) {
          if (cursor && ev.id) cursor.lastEventId = ev.id;
          if (!ev.data) continue; // a priming event (2025-11-25) carries an id and no data
          let v: unknown;
          try {
            v = readUpstreamMessage(name, ev.data, maxDepth, log);
          } catch {
            log(`[${name}] SSE event that is not JSON skipped`);
            continue;
          }
          if (v !== undefined) yield v;
        }
      }
    } catch (e) {
      if (e instanceof ProtocolError) throw e;
      throw new StreamBroken(`upstream ${name}: the event stream was cut off (${(e as Error).message})`);
    }
  }

  async request(req: Request, opts: SendOptions = {}): Promise<Response> {
    let res = await this.post(req, opts);
    const type = typeOf(res);
    if (!ok(res) && !type.includes('json') && !type.includes('event-stream'))
      throw new HttpStatusError(res.status, (await this.bytes(res)).toString('utf8'));
    if (res.status === 202) {
      res.cancel();
      throw new HttpStatusError(202, 'a request was answered with 202 and no response');
    }
    const cursor: { lastEventId?: string; retryMs?: number } = {};
    const resumable = this.has(STREAM_RESUMPTION, opts);
    for (let attempt = 0; ; attempt++) {
      const answer = await this.answerOn(res, req, cursor);
      if (answer) return answer;
      // The stream ended before its response. Legacy (2025-11-25): a stream that gave an event id may be
      // resumed — after the retry interval, a GET with Last-Event-ID. 2026-07-28 has no resumption: the
      // stream is broken and the caller decides whether to re-issue (docs/protocol.md "A broken 2026-07-28
      // stream").
      if (!resumable || cursor.lastEventId === undefined || attempt >= 5 || opts.signal?.aborted) break;
      await pause(cursor.retryMs ?? 1000);
      res = await this.getStream(cursor.lastEventId, signalOf(opts.signal));
      if (!ok(res)) {
        res.cancel();
        break;
      }
    }
    throw new StreamBroken(`upstream ${this.o.name}: the response stream ended before the response to ${req.method}`);
  }

  /** `req`'s response from the body of `res`, if it comes before the body ends; what else arrives on it
   *  belongs to `req` (its call). */
  private async answerOn(
    res: HttpAnswer,
    req: Request,
    cursor: { lastEventId?: string; retryMs?: number },
  ): Promise<Response | undefined> {
    for await (const v of this.messages(res, cursor)) {
      const c = classify(v);
      if (c.kind === 'response' && c.msg.id === req.id) {
        res.cancel();
        return c.msg;
      }
      if (c.kind === 'request' || c.kind === 'notification') this.onIncoming?.(c.msg, req.id);
      else if (c.kind === 'invalid' && c.id === req.id) {
        // Its answer, unreadable (a result and an error, say): the call fails now, naming the peer.
        const failed = unreadableResponse(this.o.name, v, c.error.message);
        if (failed) {
          res.cancel();
          return failed;
        }
      } else if (c.kind === 'response' && !ok(res)) {
        // An error without our id (an HTTP-level refusal): surfaced with its status.
        throw new HttpStatusError(res.status, JSON.stringify(v), v as JsonObject);
      }
    }
    return undefined;
  }

  async notify(n: Notification, opts: SendOptions = {}): Promise<void> {
    (await this.post(n, opts)).cancel();
  }

  /** An answer to a request the peer sent. A peer that leaves MAX_ANSWERS_UNREAD of them unanswered is not
   *  reading what it is sent: its connection is closed (docs/security.md "Bounds"). */
  async respond(r: Response): Promise<void> {
    if (this.isClosed) throw new TransportClosed(`upstream ${this.o.name} is closed`);
    if (this.answering >= MAX_ANSWERS_UNREAD) {
      const why = answersUnread(this.o.name);
      this.o.log(`[${this.o.name}] ${why.message}`);
      this.ctl.abort(why);
      this.streamCtl?.abort();
      this.onClose?.(why);
      throw why;
    }
    this.answering++;
    try {
      (await this.post(r)).cancel();
    } finally {
      this.answering--;
    }
  }

  /** Legacy: the GET stream for what the peer sends unasked; 405 (or any refusal) means it offers none.
   *  Tried once per connection: a peer that refused it (or a stream given up on) is not asked again. */
  openStream(): void {
    if (this.streamCtl || !this.sessionId) return;
    const ctl = new AbortController();
    this.streamCtl = ctl;
    void this.follow(ctl.signal);
  }

  private async follow(signal: AbortSignal): Promise<void> {
    for (let attempt = 0; attempt < 5 && !signal.aborted; attempt++) {
      try {
        const res = await this.getStream(this.lastEventId, signal);
        if (!ok(res)) return res.cancel();
        attempt = 0;
        const cursor = { lastEventId: this.lastEventId };
        for await (const v of this.messages(res, cursor)) {
          this.lastEventId = cursor.lastEventId;
          const c = classify(v);
          if (c.kind === 'request' || c.kind === 'notification') this.onIncoming?.(c.msg);
        }
      } catch {
        if (signal.aborted) return;
      }
      await pause(200 * (attempt + 1));
    }
  }

  async close(): Promise<void> {
    const sid = this.sessionId;
    this.streamCtl?.abort();
    this.ctl.abort(new TransportClosed(`upstream ${this.o.name} is stopping`));
    if (!sid) return;
    // Legacy: the session ended politely; a peer without DELETE answers 405, which is fine.
    await this.exchange({
      method: 'DELETE',
      headers: { ...this.o.headers, 'Mcp-Session-Id': sid },
      signal: AbortSignal.timeout(1000),
    })
      .then((res) => res.cancel())
      .catch(() => undefined);
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
