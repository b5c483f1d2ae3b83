// MCP over stdio, server side: newline-delimited JSON-RPC. Requests run concurrently, each with its own
// AbortSignal, so a notifications/cancelled read while one runs reaches it; notifications and
// initialize stay in order (docs/protocol.md "stdio order").
import type { Readable, Writable } from 'node:stream';
import {
  type Message,
  type ReadLimits,
  RefusedMessage,
  type Request,
  type Response,
  classify,
  errorResponse,
  parseJson,
} from '../protocol/jsonrpc';
import { type ProtocolError, invalidRequest } from '../protocol/errors';
import { HEADERLESS, OLDEST, type Revision } from '../protocol/revisions';
import { Conn } from '../server/conn';
import { type Channel, Runner } from '../server/runner';
import type { McpServer } from '../server/server';
import { readLines } from '../wire/lines';
import type { Json } from '../wire/raw';

export interface StdioOptions {
  server: McpServer;
  input: Readable;
  output: Writable;
  /** transport.stdioDrain: how long requests in flight may finish after EOF. */
  drainMs: number;
  identity?: string;
  /** The profile this process serves (`mcpx serve --standalone --profile NAME`; docs/gateway.md
   *  "Profiles"); undefined: the default endpoint's set. */
  profile?: string;
}

export class StdioTransport {
  readonly conn: Conn;
  private readonly runner: Runner;
  /** Questions and notifications related to a request ride the pipe itself. */
  private readonly channel: Channel = { emit: (n) => this.write(n), send: (q) => this.write(q) };
  private readonly running = new Set<Promise<void>>();
  readonly closed: Promise<void>;

  constructor(private readonly opts: StdioOptions) {
    this.conn = new Conn('stdio', opts.identity ?? `stdio:${process.pid}`, (msg) => this.write(msg));
    this.conn.profile = opts.profile;
    this.runner = new Runner(opts.server, this.conn);
    opts.server.listens.registerPush(this.conn);
    // transport.maxLineBytes: a longer line is answered -32600 and discarded.
    const max = opts.server.opts.settings.get<number>('transport.maxLineBytes');
    this.closed = new Promise((resolve) =>
      readLines(
        opts.input,
        max,
        {
          line: (line) => this.line(line),
          // Not buffered past the bound (docs/security.md "Bounds"); the next line is read as usual.
          overlong: () =>
            void this.write(
              errorResponse(
                undefined,
                invalidRequest(
                  `Invalid request: a line longer than ${max} bytes (transport.maxLineBytes) was discarded`,
                ).toWire(),
              ),
            ),
        },
        () => void this.drain().then(resolve),
      ),
    );
  }

  /** `text`: `msg` already serialized (by the runner, which measured it). */
  private write(msg: Message | Response[], text?: Json): boolean {
    if (this.conn.isClosed && !Array.isArray(msg) && !('id' in msg)) return false;
    if (typeof text !== 'object') return this.opts.output.write((text ?? JSON.stringify(msg)) + '\n');
    this.opts.output.write(text);
    return this.opts.output.write('\n');
  }

  private get limits(): ReadLimits {
    const settings = this.opts.server.opts.settings;
    return {
      maxDepth: settings.get<number>('limits.paramsDepth'),
      maxBatch: settings.get<number>('limits.batchLength'),
    };
  }

  /** The revision a message is read in before any _meta says otherwise. */
  private get rev(): Revision {
    return this.conn.revision ?? OLDEST;
  }

  private line(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = parseJson(line, this.limits);
    } catch (e) {
      this.write(errorResponse(e instanceof RefusedMessage ? e.id : undefined, (e as ProtocolError).toWire()));
      return;
    }
    const runner = this.runner;
    if (Array.isArray(value)) return this.track(runner.schedule(false, () => this.batch(value)));
    const c = classify(value);
    if (c.kind === 'invalid') return void this.write(errorResponse(c.id, c.error.toWire()));
    if (c.kind === 'response') return runner.response(c.msg); // an answer to a question mcpx asked
    if (c.kind === 'notification') return this.track(runner.schedule(false, async () => runner.notification(c.msg)));
    const req = c.msg;
    this.track(runner.schedule(req.method === 'initialize', () => this.request(req)));
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

  private async request(req: Request): Promise<void> {
    const { response, text } = await this.runner.request(req, this.rev, this.channel);
    if (response) this.write(response, text); // none for a request the client cancelled
  }

  /** A batch before initialize is 2025-03-26 (2025-03-26 basic: batches); after it, only a 2025-03-26
   *  session takes one. */
  private async batch(items: unknown[]): Promise<void> {
    const out = await this.runner.batch(items, this.conn.revision ?? HEADERLESS, this.channel);
    if ('refused' in out) return void this.write(errorResponse(undefined, out.refused.toWire()));
    if (out.responses.length) this.write(out.responses, out.text);
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
