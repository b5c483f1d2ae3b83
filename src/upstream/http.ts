// An upstream over Streamable HTTP (fetch + eventsource-parser). Legacy: the session the server mints
// on initialize, the GET stream for unsolicited messages (resumed with Last-Event-ID), a 404 on a
// session read as "session ended". 2026-07-28: no sessions, per-request headers, closing the stream
// is the cancellation.
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { redactUrl } from '../config/redact';
import { type JsonObject, type Notification, type Request, type Response, classify } from '../protocol/jsonrpc';
import { HEADERLESS, SESSIONS, STREAM_RESUMPTION, type Span, inSpan, isRevision } from '../protocol/revisions';
import {
  HttpStatusError,
  MAX_ANSWERS_UNREAD,
  type SendOptions,
  TransportClosed,
  type UpstreamBounds,
  type UpstreamTransport,
  answersUnread,
  boundedEvents,
  boundsWithDefaults,
  boundedBytes,
  boundedText,
  eventTooLong,
  readUpstreamMessage,
  unreadableResponse,
} from './transport';
import { signalOf } from '../wire/abort';
import type { Authorizer } from './auth/authorizer';
import { retries } from './auth/refusal';

/** The session ended (legacy 404 on a session): the client initializes again. */
export class SessionExpired extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SessionExpired';
  }
}

export interface HttpUpstreamOptions {
  url: string;
  headers: Record<string, string>;
  log: (line: string) => void;
  /** What is read is bounded: a JSON body, an SSE event, a message's nesting (defaults: the settings'). */
  bounds?: Partial<UpstreamBounds>;
  /** OAuth to this upstream (docs/gateway.md "Signing in to upstreams"): its header on every request; a
   *  401 or an insufficient_scope 403 handed to it before the request is tried again. */
  auth?: Authorizer;
}

export class HttpUpstream implements UpstreamTransport {
  readonly kind = 'http' as const;
  sessionId?: string;
  /** Sent as MCP-Protocol-Version once a legacy revision is negotiated (2025-06-18+). */
  protocolVersion?: string;
  get isClosed(): boolean {
    return this.ctl.signal.aborted;
  }
  onIncoming?: (msg: Request | Notification, via?: Request['id']) => void;
  onClose?: (reason: Error) => void;
  private readonly ctl = new AbortController();
  private streamCtl?: AbortController;
  private lastEventId?: string;

  private readonly bounds: UpstreamBounds;
  /** Set once the handshake is done: from then on a 401 may ask the person inline (during the handshake
   *  connect() does, outside its timeouts). */
  connected = false;

  constructor(
    readonly name: string,
    private readonly opts: HttpUpstreamOptions,
  ) {
    this.bounds = boundsWithDefaults(opts.bounds);
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

  /** Whether the revision a message is sent as has `feature`: its own MCP-Protocol-Version header, else
   *  the negotiated one; a message without the header is HEADERLESS. */
  private has(feature: Span, opts: SendOptions): boolean {
    const v = opts.headers?.['MCP-Protocol-Version'] ?? this.protocolVersion;
    return inSpan(isRevision(v) ? v : HEADERLESS, feature);
  }

  private async post(body: unknown, opts: SendOptions = {}): Promise<globalThis.Response> {
    const signal = opts.signal ? AbortSignal.any([signalOf(opts.signal), this.ctl.signal]) : this.ctl.signal;
    let res: globalThis.Response;
    const tries = retries();
    for (;;) {
      const authorization = (await this.opts.auth?.headers('POST', this.opts.url)) ?? {};
      try {
        res = await fetch(this.opts.url, {
          method: 'POST',
          headers: this.headers({ ...opts.headers, ...authorization }),
          body: JSON.stringify(body),
          signal,
        });
      } catch (e) {
        if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
        throw new TransportClosed(
          `upstream ${this.name} at ${redactUrl(this.opts.url)} could not be reached: ${(e as Error).cause ?? (e as Error).message}`,
        );
      }
      if (!(await this.opts.auth?.retry(res, authorization, tries, { interactive: this.connected, signal }))) break;
    }
    const sid = res.headers.get('mcp-session-id');
    if (sid) this.sessionId = sid;
    if (res.status === 404 && this.sessionId && this.has(SESSIONS, opts)) {
      await res.body?.cancel();
      this.sessionId = undefined;
      throw new SessionExpired(`upstream ${this.name}: the session ended (HTTP 404)`);
    }
    return res;
  }

  private async deleteAuth(): Promise<Record<string, string>> {
    return (await this.opts.auth?.headers('DELETE', this.opts.url).catch(() => undefined)) ?? {};
  }

  /** Reads JSON-RPC messages from a JSON or SSE body. `cursor` collects the stream's last event id and
   *  retry interval (2025-11-25 basic/transports "Resumability and Redelivery"). */
  private async *messages(
    res: globalThis.Response,
    cursor?: { lastEventId?: string; retryMs?: number },
  ): AsyncGenerator<unknown> {
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream') && res.body) {
      const parser = new EventSourceParserStream({ onRetry: (ms) => cursor && (cursor.retryMs = ms) });
      const { maxLineBytes, maxDepth } = this.bounds;
      const events = res.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(boundedEvents(maxLineBytes, () => eventTooLong(this.name, maxLineBytes)))
        .pipeThrough(parser);
      for await (const ev of events) {
        if (cursor && ev.id) cursor.lastEventId = ev.id;
        if (!ev.data) continue; // a priming event (2025-11-25) carries an id and no data
        let v: unknown;
        try {
          v = readUpstreamMessage(this.name, ev.data, maxDepth, this.opts.log);
        } catch {
          this.opts.log(`[${this.name}] SSE event that is not JSON skipped`);
          continue;
        }
        if (v !== undefined) yield v;
      }
      return;
    }
    const bytes = await boundedBytes(res, this.bounds.maxBodyBytes, this.name);
    const text = bytes.toString('utf8');
    if (!text) return;
    let v: unknown;
    try {
      v = readUpstreamMessage(this.name, text, this.bounds.maxDepth, this.opts.log, bytes);
    } catch {
      throw new HttpStatusError(res.status, text);
    }
    if (v !== undefined) yield v;
  }

  async request(req: Request, opts: SendOptions = {}): Promise<Response> {
    let res = await this.post(req, opts);
    const type = res.headers.get('content-type') ?? '';
    if (!res.ok && !type.includes('json') && !type.includes('event-stream')) {
      throw new HttpStatusError(res.status, await boundedText(res, this.bounds.maxBodyBytes, this.name));
    }
    if (res.status === 202) throw new HttpStatusError(202, 'a request was answered with 202 and no response');
    const cursor: { lastEventId?: string; retryMs?: number } = {};
    const resumable = this.has(STREAM_RESUMPTION, opts);
    for (let attempt = 0; ; attempt++) {
      for await (const v of this.messages(res, cursor)) {
        const c = classify(v);
        if (c.kind === 'response' && c.msg.id === req.id) {
          void res.body?.cancel().catch(() => undefined);
          return c.msg;
        }
        // A request on this POST's own stream belongs to this request (its call).
        if (c.kind === 'request' || c.kind === 'notification') this.onIncoming?.(c.msg, req.id);
        else if (c.kind === 'invalid' && c.id === req.id) {
          // Its answer, unreadable (a result and an error, say): the call fails now, naming the upstream.
          const failed = unreadableResponse(this.name, v, c.error.message);
          if (failed) {
            void res.body?.cancel().catch(() => undefined);
            return failed;
          }
        } else if (c.kind === 'response' && !res.ok) {
          // An error without our id (an HTTP-level refusal): surface it with its status.
          throw new HttpStatusError(res.status, JSON.stringify(v), v as JsonObject);
        }
      }
      // The stream ended before its response. Legacy (2025-11-25): a stream that gave an event id may be
      // resumed — after the retry interval, a GET with Last-Event-ID. 2026-07-28 has no resumption: the
      // stream is broken and the caller decides whether to re-issue (docs/protocol.md "A broken 2026-07-28 stream").
      if (!resumable || cursor.lastEventId === undefined || attempt >= 5 || opts.signal?.aborted) break;
      await new Promise((r) => setTimeout(r, cursor.retryMs ?? 1000));
      res = await this.getStream(cursor.lastEventId, signalOf(opts.signal));
      if (!res.ok) break;
    }
    throw new StreamBroken(`upstream ${this.name}: the response stream ended before the response to ${req.method}`);
  }

  /** A GET event stream; with `lastEventId`, resumed from after that event (2025-11-25 transports,
   *  "Resumability"). */
  private async getStream(lastEventId: string | undefined, signal?: AbortSignal): Promise<globalThis.Response> {
    const authorization = (await this.opts.auth?.headers('GET', this.opts.url)) ?? {};
    const h = this.headers({ Accept: 'text/event-stream', ...authorization });
    delete h['Content-Type'];
    if (lastEventId) h['Last-Event-ID'] = lastEventId;
    return fetch(this.opts.url, {
      method: 'GET',
      headers: h,
      signal: signal ? AbortSignal.any([signal, this.ctl.signal]) : this.ctl.signal,
    });
  }

  async notify(n: Notification, opts: SendOptions = {}): Promise<void> {
    const res = await this.post(n, opts);
    await res.body?.cancel();
  }

  /** Answers to the upstream's requests whose POST has not been answered yet. */
  private answering = 0;

  async respond(r: Response): Promise<void> {
    if (this.isClosed) throw new TransportClosed(`upstream ${this.name} is closed`);
    if (this.answering >= MAX_ANSWERS_UNREAD) {
      const why = answersUnread(this.name);
      this.opts.log(`[${this.name}] ${why.message}`);
      this.ctl.abort(why);
      this.streamCtl?.abort();
      this.onClose?.(why);
      throw why;
    }
    this.answering++;
    try {
      const res = await this.post(r);
      await res.body?.cancel();
    } finally {
      this.answering--;
    }
  }

  /** Legacy: the GET stream for what the server sends unasked. 405 means the server offers none. Tried
   *  once per connection: a server that refused it (or a stream given up on) is not asked on every call. */
  openStream(): void {
    if (this.streamCtl || !this.sessionId) return;
    const ctl = new AbortController();
    this.streamCtl = ctl;
    const loop = async () => {
      for (let attempt = 0; attempt < 5 && !ctl.signal.aborted; attempt++) {
        try {
          const res = await this.getStream(this.lastEventId, ctl.signal);
          if (res.status === 405 || !res.ok) {
            await res.body?.cancel();
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
    this.ctl.abort(new TransportClosed(`upstream ${this.name} is stopping`));
    if (sid) {
      // Legacy: end the session politely; a server without DELETE answers 405, which is fine.
      await fetch(this.opts.url, {
        method: 'DELETE',
        headers: { ...this.opts.headers, ...(await this.deleteAuth()), 'Mcp-Session-Id': sid },
        signal: AbortSignal.timeout(1000),
      })
        .then((r) => r.body?.cancel())
        .catch(() => undefined);
    }
  }
}

export class StreamBroken extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StreamBroken';
  }
}
