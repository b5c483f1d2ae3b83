// One SSE response stream, started lazily: the first event or keep-alive writes the headers. It carries
// no event ids: mcpx offers no resumption, and an id would promise a replay it cannot make.
import type { ServerResponse } from 'node:http';
import type { Json } from './raw';

/** Bytes a stream may hold unread by its client before notifications are dropped. */
const MAX_UNREAD_NOTIFICATIONS = 1024 * 1024;

const isNotification = (msg: unknown): boolean =>
  typeof msg === 'object' && msg !== null && !Array.isArray(msg) && !('id' in msg);

export class SseStream {
  private started = false;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    private readonly keepAliveMs: number,
    private readonly headers: Record<string, string> = {},
  ) {}

  get isStarted(): boolean {
    return this.started;
  }
  get isOpen(): boolean {
    return !this.res.writableEnded && !this.res.destroyed;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.res.writeHead(200, {
      ...this.headers,
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      // 2026-07-28 streamable-http: SHOULD, so that proxies do not buffer the stream.
      'X-Accel-Buffering': 'no',
    });
    this.res.flushHeaders();
    this.keepAlive();
  }

  /** Comment lines every keepAliveMs while the stream is open (one setting for every stream). */
  keepAlive(): void {
    if (this.timer || this.keepAliveMs <= 0) return;
    this.timer = setInterval(() => {
      if (!this.isOpen) return this.stop();
      this.start();
      this.res.write(':\n\n');
    }, this.keepAliveMs);
    this.timer.unref();
  }

  /** `text`: `msg` already serialized (the runner's Outcome.text), sent as it is. */
  send(msg: unknown, text?: Json): boolean {
    if (!this.isOpen) return false;
    this.start();
    // A client that does not read its stream would have everything sent to it held here: past the
    // bound a notification (progress, a log message, a list change) is dropped. Responses and questions
    // are always written; each is bounded by limits.responseBytes (docs/security.md "Bounds").
    if (isNotification(msg) && this.res.writableLength > MAX_UNREAD_NOTIFICATIONS) return false;
    if (typeof text === 'object') {
      this.res.write('event: message\ndata: ');
      this.res.write(text);
      this.res.write('\n\n');
    } else this.res.write(`event: message\ndata: ${text ?? JSON.stringify(msg)}\n\n`);
    return true;
  }

  /** Ends a started stream; on one never started it only stops the keep-alive. */
  end(): void {
    this.stop();
    if (this.started && this.isOpen) this.res.end();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
