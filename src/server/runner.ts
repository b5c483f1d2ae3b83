// The one request runner both server adapters (stdio, Streamable HTTP) use for a connection: requests
// tracked by id with their own abort (so notifications/cancelled reaches them), an id already in flight
// refused, batches, initialize refused inside a batch and run as a barrier where messages are ordered.
// Bounded (docs/protocol.md "Bounds on requests and responses"): a batch's length (limits.batchLength)
// and the bytes of a response or of a batch's responses together (limits.responseBytes).
import { CODES, ProtocolError, invalidRequest, toWireError } from '../protocol/errors';
import {
  type Notification,
  type Request,
  type Response,
  batchTooLong,
  classify,
  errorResponse,
} from '../protocol/jsonrpc';
import { BATCHES, type Revision, inSpan } from '../protocol/revisions';
import { Abort } from '../wire/abort';
import { type Json, encodeResponse, jsonArray, jsonLength } from '../wire/raw';
import { type Channel, type Outcome, ServerCall } from './call';
import type { Conn } from './conn';
import type { McpServer } from './server';

export type { Channel };

/** `text`: the responses' JSON array, serialized once (what the writer sends). */
export type BatchOutcome = { refused: ProtocolError } | { responses: Response[]; text: Json };

export class Runner {
  /** initialize is a barrier: what is scheduled after it waits until it has been answered. */
  private barrier?: Promise<unknown>;

  constructor(
    private readonly server: McpServer,
    readonly conn: Conn,
  ) {}

  /** A client notification (initialized, cancelled; any other is read and ignored). */
  notification(n: Notification): void {
    this.server.notify(this.conn, n);
  }

  /** A client's response: the answer to a question mcpx put to it. */
  response(r: Response): void {
    this.conn.asked.settle(r);
  }

  /** Runs `task` after any initialize scheduled before it; an initialize holds back what follows it.
   *  Decided when the message arrives, not when it runs: lines arrive in one burst. */
  schedule<T>(initialize: boolean, task: () => Promise<T>): Promise<T> {
    const p = (this.barrier ?? Promise.resolve()).then(task);
    if (initialize) this.barrier = p.catch(() => undefined);
    return p;
  }

  /** One request. Its id must not be in use by a request in flight on this connection (every
   *  revision's basic page: an id is unique among the requestor's requests in a session); it is tracked
   *  with `ctl` until answered, so a cancellation by id aborts it. */
  async request(req: Request, rev: Revision, channel: Channel, ctl = new Abort()): Promise<Outcome> {
    if (this.conn.inflight.has(req.id)) {
      const e = invalidRequest(
        `Invalid request: id ${JSON.stringify(req.id)} is already in use by a request in flight`,
      );
      return { ...serialize(errorResponse(req.id, toWireError(e, rev)), rev), rev };
    }
    this.conn.track(req.id, ctl);
    try {
      const out = await this.server.handle(
        new ServerCall(this.conn, req, { rev, request: ctl, relay: channel, services: this.server.services }),
      );
      if (!out.response) return out;
      // Serialized once, here: the size check and the writer use the same text.
      let { response, text } = serialize(out.response, rev);
      const max = this.maxResponseBytes;
      const size = jsonLength(text);
      if (size > max) ({ response, text } = serialize(tooLarge(response, rev, size, max, 'the response'), rev));
      return { ...out, response, text };
    } finally {
      this.conn.untrack(req.id, ctl);
    }
  }

  private get maxResponseBytes(): number {
    return this.server.opts.settings.get<number>('limits.responseBytes');
  }

  /** A JSON-RPC batch: accepted in 2025-03-26 only (a batch before initialize is read as 2025-03-26),
   *  never empty, never holding initialize (2025-03-26 basic/lifecycle). Its requests run concurrently;
   *  `signal` aborts every one of them. */
  async batch(items: unknown[], rev: Revision, channel: Channel, signal?: AbortSignal): Promise<BatchOutcome> {
    if (!inSpan(rev, BATCHES))
      return {
        refused: new ProtocolError(
          CODES.InvalidRequest,
          `Invalid request: JSON-RPC batches are accepted in ${BATCHES.since} only, not ${rev}`,
        ),
      };
    if (items.length === 0)
      return { refused: new ProtocolError(CODES.InvalidRequest, 'Invalid request: an empty batch') };
    // Refused whole, before anything in it runs.
    // The transports' parseJson refuses it as it reads it; this holds for any other caller.
    const maxLength = this.server.opts.settings.get<number>('limits.batchLength');
    if (items.length > maxLength) return { refused: batchTooLong(items.length, maxLength) };
    // One listener on the request's signal for the whole batch (not one per item, which past ten trips
    // Node's MaxListenersExceededWarning): it aborts every item still running.
    const running = new Set<Abort>();
    const onAbort = () => {
      for (const ctl of running) ctl.abort(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const out = await Promise.all(
      items.map(async (item): Promise<Serialized | undefined> => {
        const c = classify(item);
        if (c.kind === 'invalid') return serialize(errorResponse(c.id, c.error.toWire()), rev);
        if (c.kind === 'notification') return void this.notification(c.msg);
        if (c.kind === 'response') return undefined;
        if (c.msg.method === 'initialize') {
          const e = invalidRequest('Invalid request: initialize must not be part of a batch');
          return serialize(errorResponse(c.msg.id, e.toWire()), rev);
        }
        const ctl = new Abort();
        running.add(ctl);
        try {
          const { response, text } = await this.request(c.msg, rev, channel, ctl);
          return response && text !== undefined ? { response, text } : undefined;
        } finally {
          running.delete(ctl);
        }
      }),
    ).finally(() => signal?.removeEventListener('abort', onAbort));
    // The responses together stay within limits.responseBytes: in the batch's order, a response
    // that would take the total past it is replaced by an error saying so.
    const max = this.maxResponseBytes;
    let total = 2; // the brackets
    const responses: Response[] = [];
    const texts: Json[] = [];
    for (const r of out) {
      if (r === undefined) continue;
      let size = jsonLength(r.text) + 1;
      let kept = r;
      if (total + size > max) {
        kept = serialize(tooLarge(r.response, rev, size, max, 'the batch'), rev);
        size = jsonLength(kept.text) + 1;
      }
      total += size;
      responses.push(kept.response);
      texts.push(kept.text);
    }
    return { responses, text: jsonArray(texts) };
  }
}

type Serialized = { response: Response; text: Json };

/** A response and its JSON (a result read from an upstream spliced in as its bytes: wire/raw.ts). A response that cannot be serialized (nested past the call stack, a
 *  BigInt) is replaced by a -32603 error for its id: a request is always answered. */
function serialize(response: Response, rev: Revision): Serialized {
  try {
    return { response, text: encodeResponse(response) };
  } catch (e) {
    const err = new ProtocolError(
      CODES.InternalError,
      `Internal error: the response could not be serialized (${(e as Error).message}); it is not sent`,
    );
    const replaced = errorResponse(response.id, toWireError(err, rev));
    return { response: replaced, text: JSON.stringify(replaced) };
  }
}

/** The error that replaces a result past limits.responseBytes. */
function tooLarge(r: Response, rev: Revision, size: number, max: number, what: string): Response {
  const e = new ProtocolError(
    CODES.InternalError,
    `Internal error: ${what} would exceed limits.responseBytes (${max} bytes) with this ${size}-byte response; it is not sent`,
  );
  return errorResponse(r.id, toWireError(e, rev));
}
