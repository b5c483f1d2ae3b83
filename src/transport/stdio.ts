// MCP over stdio, server side: newline-delimited JSON-RPC. Requests run concurrently, each with its own
// AbortSignal, so a notifications/cancelled read while one runs reaches it; notifications and
// initialize stay in order (seeds 001 §2.4).
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { CODES, ProtocolError, invalidRequest } from '../protocol/errors';
import { type Message, type Request, type Response, classify, errorResponse, parseJson } from '../protocol/jsonrpc';
import { BATCHES, HEADERLESS, OLDEST, type Revision, inSpan } from '../protocol/revisions';
import { Conn } from '../server/conn';
import type { McpServer } from '../server/server';

export interface StdioOptions {
  server: McpServer;
  input: Readable;
  output: Writable;
  /** transport.stdioDrain: how long requests in flight may finish after EOF. */
  drainMs: number;
  identity?: string;
}

export class StdioTransport {
  readonly conn: Conn;
  /** initialize is a barrier: what follows it waits until it has been answered. */
  private barrier: Promise<void> = Promise.resolve();
  private readonly running = new Set<Promise<void>>();
  readonly closed: Promise<void>;

  constructor(private readonly opts: StdioOptions) {
    this.conn = new Conn('stdio', opts.identity ?? `stdio:${process.pid}`, (msg) => this.write(msg));
    opts.server.registerPush(this.conn);
    const rl = createInterface({ input: opts.input, crlfDelay: Infinity });
    rl.on('line', (line) => this.line(line));
    this.closed = new Promise((resolve) => rl.on('close', () => void this.drain().then(resolve)));
  }

  private write(msg: Message | Response[]): boolean {
    if (this.conn.isClosed && !Array.isArray(msg) && !('id' in msg)) return false;
    return this.opts.output.write(JSON.stringify(msg) + '\n');
  }

  /** The revision a message is read in before any _meta says otherwise. */
  private get rev(): Revision {
    return this.conn.revision ?? OLDEST;
  }

  private line(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = parseJson(line);
    } catch (e) {
      this.write(errorResponse(undefined, (e as ProtocolError).toWire()));
      return;
    }
    // Decided now, not when the message runs: lines arrive in one burst, and whatever follows an
    // initialize must wait for it.
    const after = this.barrier;
    if (Array.isArray(value)) return this.track(after.then(() => this.batch(value)));
    const c = classify(value);
    if (c.kind === 'invalid') return void this.write(errorResponse(c.id, c.error.toWire()));
    if (c.kind === 'response') return void this.conn.asked.settle(c.msg); // an answer to a question mcpx asked
    if (c.kind === 'notification') return this.track(after.then(() => this.opts.server.notify(this.conn, c.msg)));
    const p = after.then(() => this.request(c.msg, this.rev));
    if (c.msg.method === 'initialize') this.barrier = p.catch(() => undefined);
    this.track(p);
  }

  /** Everything started is tracked until it settles, so EOF can drain it. */
  private track(task: Promise<unknown>): void {
    const p = task.then(
      () => undefined,
      () => undefined,
    );
    this.running.add(p);
    void p.finally(() => this.running.delete(p));
  }

  private async request(req: Request, rev: Revision): Promise<void> {
    const response = await this.answer(req, rev);
    if (response) this.write(response); // none for a request the client cancelled
  }

  private async answer(req: Request, rev: Revision): Promise<Response | undefined> {
    const ctl = new AbortController();
    if (this.conn.inflight.has(req.id)) {
      return errorResponse(req.id, invalidRequest(`Invalid request: id ${JSON.stringify(req.id)} is already in use by a request in flight`).toWire());
    }
    this.conn.track(req.id, ctl);
    try {
      const o = await this.opts.server.handle({ conn: this.conn, req, rev, signal: ctl.signal, emit: (n) => this.write(n), send: (q) => this.write(q) });
      return o.response;
    } finally {
      this.conn.untrack(req.id, ctl);
    }
  }

  /** A batch before initialize is 2025-03-26 (seeds 000); after it, only a 2025-03-26 session takes one. */
  private async batch(items: unknown[]): Promise<void> {
    const rev = this.conn.revision ?? HEADERLESS;
    if (!inSpan(rev, BATCHES) || items.length === 0) {
      const why = items.length === 0 ? 'an empty batch' : `JSON-RPC batches are accepted in 2025-03-26 only, not ${rev}`;
      return void this.write(errorResponse(undefined, new ProtocolError(CODES.InvalidRequest, `Invalid request: ${why}`).toWire()));
    }
    const out = await Promise.all(
      items.map(async (item): Promise<Response | undefined> => {
        const c = classify(item);
        if (c.kind === 'invalid') return errorResponse(c.id, c.error.toWire());
        if (c.kind === 'notification') return void this.opts.server.notify(this.conn, c.msg);
        if (c.kind === 'response') return undefined;
        if (c.msg.method === 'initialize') {
          return errorResponse(c.msg.id, invalidRequest('Invalid request: initialize must not be part of a batch').toWire());
        }
        return this.answer(c.msg, rev);
      }),
    );
    const responses = out.filter((r): r is Response => r !== undefined);
    if (responses.length) this.write(responses);
  }

  /** EOF: requests in flight get drainMs to answer, then are aborted. */
  private async drain(): Promise<void> {
    const all = Promise.all([...this.running]);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((r) => {
      timer = setTimeout(r, this.opts.drainMs);
    });
    await Promise.race([all, timeout]);
    clearTimeout(timer);
    this.conn.close('stdin closed');
    await Promise.race([Promise.all([...this.running]), new Promise((r) => setTimeout(r, 100))]);
  }
}
