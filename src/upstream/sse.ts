// An upstream over the 2024-11-05 HTTP+SSE transport (deprecated since 2025-03-26, reached only by the
// fallback rules): GET opens a stream whose first event names the endpoint to POST to; responses come
// back on the stream.
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { redactUrl } from '../config/redact';
import { type Notification, type Request, type Response, classify } from '../protocol/jsonrpc';
import { Correlator } from '../wire/correlator';
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
  boundedText,
  eventTooLong,
  readUpstreamMessage,
  unreadableResponse,
} from './transport';
import { signalOf } from '../wire/abort';

export class SseUpstream implements UpstreamTransport {
  readonly kind = 'sse' as const;
  get isClosed(): boolean {
    return this.ctl.signal.aborted || this.lost;
  }
  onIncoming?: (msg: Request | Notification) => void;
  onClose?: (reason: Error) => void;
  private readonly pending = new Correlator();
  private readonly ctl = new AbortController();
  private endpoint?: string;
  private lost = false;

  private constructor(
    readonly name: string,
    private readonly url: string,
    private readonly headers: Record<string, string>,
    private readonly log: (line: string) => void,
    private readonly bounds: UpstreamBounds,
  ) {}

  /** Open the stream and wait for its endpoint event. */
  static async open(o: {
    name: string;
    url: string;
    headers: Record<string, string>;
    log: (l: string) => void;
    bounds?: Partial<UpstreamBounds>;
    timeoutMs?: number;
  }): Promise<SseUpstream> {
    const { name, url, headers, log, bounds = {}, timeoutMs = 10_000 } = o;
    const t = new SseUpstream(name, url, headers, log, boundsWithDefaults(bounds));
    const res = await fetch(url, { headers: { ...headers, Accept: 'text/event-stream' }, signal: t.ctl.signal });
    if (!res.ok || !(res.headers.get('content-type') ?? '').includes('text/event-stream') || !res.body) {
      await res.body?.cancel();
      throw new HttpStatusError(res.status, `upstream ${name}: GET ${redactUrl(url)} did not open an event stream`);
    }
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`upstream ${name}: no endpoint event within ${timeoutMs} ms`)),
        timeoutMs,
      );
      void t.read(res.body!, () => {
        clearTimeout(timer);
        resolve();
      });
    });
    await ready;
    return t;
  }

  private async read(body: ReadableStream<Uint8Array>, onEndpoint: () => void): Promise<void> {
    let overlong: Error | undefined;
    try {
      const max = this.bounds.maxLineBytes;
      const events = body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(
          boundedEvents(max, () => {
            overlong = eventTooLong(this.name, max);
            return overlong;
          }),
        )
        .pipeThrough(new EventSourceParserStream());
      for await (const ev of events) {
        if (ev.event === 'endpoint') {
          this.endpoint = new URL(ev.data.trim(), this.url).toString();
          onEndpoint();
          continue;
        }
        let v: unknown;
        try {
          v = readUpstreamMessage(this.name, ev.data, this.bounds.maxDepth, this.log);
        } catch {
          this.log(`[${this.name}] SSE event that is not JSON skipped`);
          continue;
        }
        if (v === undefined) continue;
        const c = classify(v);
        if (c.kind === 'response') this.pending.settle(c.msg);
        else if (c.kind === 'request' || c.kind === 'notification') this.onIncoming?.(c.msg);
        else {
          // A response mcpx cannot read fails the request it answers now, not at pool.callTimeout.
          const failed = unreadableResponse(this.name, v, c.error.message);
          if (failed) this.pending.settle(failed);
        }
      }
    } catch {
      // the stream broke or was aborted
    }
    this.lost = true;
    // An event past the bound ends the stream: which call it answered is unknown, so all of them fail.
    const reason = new TransportClosed(
      overlong ? `${overlong.message}; its event stream was closed` : `upstream ${this.name}: the event stream ended`,
    );
    this.pending.close(reason);
    if (!this.ctl.signal.aborted) this.onClose?.(reason);
  }

  private async post(msg: unknown, signal?: AbortSignal): Promise<void> {
    if (!this.endpoint) throw new TransportClosed(`upstream ${this.name}: no endpoint`);
    const res = await fetch(this.endpoint, {
      method: 'POST',
      headers: { ...this.headers, 'Content-Type': 'application/json' },
      body: JSON.stringify(msg),
      signal: signal ? AbortSignal.any([signal, this.ctl.signal]) : this.ctl.signal,
    });
    const text = await boundedText(res, this.bounds.maxBodyBytes, this.name);
    if (!res.ok) throw new HttpStatusError(res.status, text);
  }

  async request(req: Request, opts: SendOptions = {}): Promise<Response> {
    const p = this.pending.wait(req.id, opts.signal);
    try {
      await this.post(req, signalOf(opts.signal));
    } catch (e) {
      this.pending.forget(req.id);
      throw e;
    }
    return p;
  }

  notify(n: Notification): Promise<void> {
    return this.post(n);
  }
  /** Answers to the upstream's requests whose POST has not been answered yet. */
  private answering = 0;

  async respond(r: Response): Promise<void> {
    if (this.isClosed) throw new TransportClosed(`upstream ${this.name} is closed`);
    if (this.answering >= MAX_ANSWERS_UNREAD) {
      const why = answersUnread(this.name);
      this.log(`[${this.name}] ${why.message}`);
      this.lost = true;
      this.pending.close(why);
      this.ctl.abort(why);
      this.onClose?.(why);
      throw why;
    }
    this.answering++;
    try {
      await this.post(r);
    } finally {
      this.answering--;
    }
  }

  async close(): Promise<void> {
    this.ctl.abort(new TransportClosed(`upstream ${this.name} is stopping`));
    this.pending.close(new TransportClosed(`upstream ${this.name} is stopping`));
  }
}
