// What the client needs of a transport to an upstream, whatever carries the bytes.
import { defaultOf } from '../config/settings';
import { CODES, ProtocolError } from '../protocol/errors';
import {
  type JsonObject,
  type Notification,
  RefusedMessage,
  type Request,
  type Response,
  errorResponse,
  parseJson,
} from '../protocol/jsonrpc';
import type { Aborts } from '../wire/abort';

export interface SendOptions {
  signal?: Aborts;
  /** Extra HTTP headers for this message (2026-07-28 Mcp-Method / Mcp-Name / MCP-Protocol-Version). */
  headers?: Record<string, string>;
}

export interface UpstreamTransport {
  readonly kind: 'stdio' | 'http' | 'sse';
  /** True once the transport has ended, by itself or by close(). */
  readonly isClosed: boolean;
  /** Send a request; resolves with its response. Other messages that arrive meanwhile (notifications,
   *  the server's own requests) go to onIncoming. Rejects with TransportClosed if the peer goes away. */
  request(req: Request, opts?: SendOptions): Promise<Response>;
  notify(n: Notification, opts?: SendOptions): Promise<void>;
  /** Answer a request the server sent. */
  respond(r: Response): Promise<void>;
  /** `via`: the id of the request on whose response stream it arrived (Streamable HTTP), if any. */
  onIncoming?: (msg: Request | Notification, via?: Request['id']) => void;
  /** Called once when the transport ends by itself (process exit, stream loss). */
  onClose?: (reason: Error) => void;
  close(): Promise<void>;
}

import { TransportClosed } from '../wire/correlator';
import { eventBound } from '../wire/eventBound';
import { lazyText } from '../wire/lazy';
import { keepBytes } from '../wire/raw';
export { TransportClosed };

/** An HTTP-level answer that is not a JSON-RPC response (the era probe reads these). */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly json?: JsonObject,
  ) {
    super(`HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`);
    this.name = 'HttpStatusError';
  }
}

/** What is read from an upstream is bounded (docs/security.md "Bounds"): a stdio line and an SSE event
 *  by transport.maxLineBytes, a JSON body by transport.maxBodyBytes, a message's nesting by
 *  limits.paramsDepth. */
export interface UpstreamBounds {
  maxLineBytes: number;
  maxBodyBytes: number;
  maxDepth: number;
}

/** `b` with the setting's default for each bound it leaves out (or sets undefined). */
export const boundsWithDefaults = (b: Partial<UpstreamBounds> = {}): UpstreamBounds => ({
  maxLineBytes: b.maxLineBytes ?? defaultOf<number>('transport.maxLineBytes'),
  maxBodyBytes: b.maxBodyBytes ?? defaultOf<number>('transport.maxBodyBytes'),
  maxDepth: b.maxDepth ?? defaultOf<number>('limits.paramsDepth'),
});

/** A message read from an upstream, or what stands for it when it is refused: nested deeper than
 *  limits.paramsDepth, it becomes a -32603 response failing the call it answers when its id can be read
 *  (its content is never logged), else nothing (`log` says so). Not JSON: the parse error. */
export function readUpstreamMessage(
  name: string,
  /** The message's text, or its bytes: those are kept for a large result, to be passed on as they are, and
   *  its long strings are decoded only when read (wire/lazy.ts). */
  from: string | Uint8Array,
  maxDepth: number,
  log: (line: string) => void,
): unknown {
  try {
    if (typeof from === 'string') return parseJson(from, { maxDepth, exactIds: false });
    const lazy = lazyText(from);
    const message = parseJson(lazy.text, { maxDepth, exactIds: false });
    lazy.finish(message);
    keepBytes(message, from);
    return message;
  } catch (e) {
    if (!(e instanceof RefusedMessage)) throw e;
    const why = `upstream ${name} sent a message nested deeper than ${maxDepth} levels (limits.paramsDepth)`;
    if (e.id === undefined) {
      log(`[${name}] ${why}; it was dropped`);
      return undefined;
    }
    return errorResponse(e.id, { code: CODES.InternalError, message: `Internal error: ${why}` });
  }
}

/** The body of `res` as text, at most `max` bytes: a longer one is cancelled and fails the call. */
export async function boundedText(res: globalThis.Response, max: number, name: string): Promise<string> {
  return (await boundedBytes(res, max, name)).toString('utf8');
}

/** The body of `res` as bytes, at most `max`: a longer one is cancelled and fails the call. */
async function boundedBytes(res: globalThis.Response, max: number, name: string): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      void reader.cancel().catch(() => undefined);
      throw new ProtocolError(
        CODES.InternalError,
        `Internal error: upstream ${name} sent a body longer than ${max} bytes (transport.maxBodyBytes)`,
      );
    }
    parts.push(value);
  }
  return Buffer.concat(parts, size);
}

/** Passes an SSE text stream through, failing it with `over()` once one event (the characters up to a
 *  blank line) grows past `max`: nothing past the bound is handed to the event parser, which would
 *  buffer it whole. */
export function boundedEvents(max: number, over: () => Error): TransformStream<string, string> {
  const within = eventBound(max);
  return new TransformStream({
    transform(chunk, ctl) {
      if (!within(chunk)) return ctl.error(over());
      ctl.enqueue(chunk);
    },
  });
}

/** The failure of a call whose SSE event grew past transport.maxLineBytes. */
export const eventTooLong = (name: string, max: number): ProtocolError =>
  new ProtocolError(
    CODES.InternalError,
    `Internal error: upstream ${name} sent an SSE event longer than ${max} characters (transport.maxLineBytes)`,
  );

/** Answers to an HTTP upstream's own requests (a POST each) that it may leave unanswered at once. An
 *  upstream with more is not reading what mcpx sends it — it floods requests (pings, questions) and
 *  leaves the POSTs hanging — and its connection is closed, as a stdio upstream's is past
 *  transport.maxLineBytes unread (docs/security.md "Bounds"). */
export const MAX_ANSWERS_UNREAD = 64;

export const answersUnread = (name: string): TransportClosed =>
  new TransportClosed(
    `upstream ${name} is not reading what mcpx sends it (${MAX_ANSWERS_UNREAD} answers to its requests unanswered); its connection was closed`,
  );

/** What is logged about one upstream connection's noise — lines that are not JSON-RPC, invalid messages,
 *  responses nobody waits for, stderr — is bounded: a burst of `burst` lines, then `perSecond` a second;
 *  the lines past it are counted and the count is logged once the budget is back, never each line (an
 *  upstream writing 100,000 stray lines a second must not become 100,000 log lines). */
export class LogBudget {
  private tokens: number;
  private last = Date.now();
  private dropped = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly log: (line: string) => void,
    /** Names the connection in the count's line: `[name]`. */
    private readonly name: string,
    private readonly perSecond = 100,
    private readonly burst = 100,
  ) {
    this.tokens = burst;
  }

  line(line: string): void {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.perSecond) / 1000);
    this.last = now;
    if (this.tokens < 1) {
      this.dropped++;
      this.timer ??= setTimeout(() => this.flush(), 1000).unref();
      return;
    }
    this.tokens--;
    this.log(line);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.dropped === 0) return;
    this.log(
      `[${this.name}] ${this.dropped} more line(s) about this upstream were not logged (more than ${this.perSecond} a second)`,
    );
    this.dropped = 0;
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.flush();
  }
}

/** A response mcpx could not read (a result and an error, an error without an integer code and a string
 *  message) to a request still waiting: that request fails now, naming the upstream, rather than at
 *  pool.callTimeout. Undefined when `value` is not such a response. */
export function unreadableResponse(name: string, value: unknown, why: string): Response | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || 'method' in value) return undefined;
  const id = (value as { id?: unknown }).id;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  const what = why.replace(/^Invalid request: /, '');
  return errorResponse(id, {
    code: CODES.InternalError,
    message: `Internal error: upstream ${name} sent an unreadable response: ${what}`,
  });
}
