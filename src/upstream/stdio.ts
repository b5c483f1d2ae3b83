// An upstream over stdio: newline-delimited JSON-RPC on a spawned process's pipes. stderr goes to the
// log line by line (bounded like stdout); a line that is not JSON-RPC is logged and skipped, never fatal;
// what is logged about one connection is itself bounded (LogBudget). A line longer than
// transport.maxLineBytes is not buffered, and neither is more than that of the answers to its own
// requests that an upstream does not read: either way the connection is closed and its calls fail
// naming the setting (docs/security.md "Bounds"). When the process ends, whatever it left running in its process
// group is killed (docs/platforms.md: what Windows can find of it).
import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { type Notification, type Request, type Response, classify } from '../protocol/jsonrpc';
import { CoalescedWriter } from '../wire/coalesce';
import { Correlator } from '../wire/correlator';
import { readLines } from '../wire/lines';
import { type SpawnSpec, system } from '../platform';
import {
  type SendOptions,
  TransportClosed,
  type UpstreamBounds,
  type UpstreamTransport,
  LogBudget,
  boundsWithDefaults,
  readUpstreamMessage,
  unreadableResponse,
} from './transport';

/** A line of nothing but JSON's whitespace. */
const isBlank = (b: Buffer): boolean => b.every((c) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a);

export class StdioUpstream implements UpstreamTransport {
  readonly kind = 'stdio' as const;
  private readonly child: ChildProcess;
  /** What is written to the child's stdin: a turn's frames in one write (wire/coalesce.ts). */
  private readonly stdin: CoalescedWriter;
  private readonly pending = new Correlator();
  private readonly maxDepth: number;
  private readonly maxLineBytes: number;
  /** Lines about this connection's noise and its stderr, bounded. */
  private readonly noise: LogBudget;
  private ended = false;
  private readonly released: () => Promise<void>;
  get isClosed(): boolean {
    return this.ended;
  }
  onIncoming?: (msg: Request | Notification) => void;
  onClose?: (reason: Error) => void;

  constructor(
    readonly name: string,
    spec: SpawnSpec,
    private readonly log: (line: string) => void,
    bounds: Partial<UpstreamBounds> = {},
    /** What the instance holds beside its process (a sandbox's directories and relays): let go once it
     *  has ended. */
    release?: () => Promise<void>,
  ) {
    const { maxLineBytes, maxDepth } = boundsWithDefaults(bounds);
    this.maxDepth = maxDepth;
    this.maxLineBytes = maxLineBytes;
    this.noise = new LogBudget(log, name);
    this.child = system.spawnGuarded(spec);
    this.stdin = new CoalescedWriter(this.child.stdin!);
    let released: Promise<void> | undefined;
    this.released = () =>
      (released ??= release?.().catch((e: Error) => log(`[${name}] ${e.message}`)) ?? Promise.resolve());
    (this.child.stdio[3] as Socket | null)?.unref?.();
    readLines(this.child.stdout!, maxLineBytes, {
      bytes: (b) => this.line(b),
      overlong: (bytes) => {
        // Its content is not logged. Which call it answered is unknown, so every call on it fails now
        // rather than waiting out pool.callTimeout; the next call starts it again.
        const why = `upstream ${name} sent a line longer than ${maxLineBytes} bytes (transport.maxLineBytes; ${bytes} bytes seen); its connection was closed`;
        this.log(`[${name}] ${why}`);
        this.end(new TransportClosed(why));
        void this.close();
      },
    });
    // stderr is read as lines bounded like stdout: an overlong one is noted, never buffered or logged.
    readLines(this.child.stderr!, maxLineBytes, {
      line: (l) => this.noise.line(`[${name}] ${l}`),
      overlong: (bytes) =>
        this.noise.line(
          `[${name}] a stderr line longer than ${maxLineBytes} bytes (transport.maxLineBytes; ${bytes} bytes seen) was dropped`,
        ),
    });
    this.child.stdin!.on('error', () => undefined); // EPIPE after the child died: reported by 'exit'
    this.child.on('error', (e) => {
      this.end(new TransportClosed(`upstream ${name} could not start: ${e.message}`));
      void this.released();
    });
    this.child.on('exit', (code, signal) => {
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      this.end(new TransportClosed(`upstream ${name} ${how}`));
      // What the upstream started and left behind in its group (a forked child, a grandchild holding its
      // pipes) goes with it: nothing outlives the process mcpx started (docs/security.md "Bounds").
      void system.killTree(this.child).then(this.released);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  private line(bytes: Buffer): void {
    // Lines already read when the connection ended (closed for a bound, or the process gone) are nobody's.
    if (this.ended || isBlank(bytes)) return;
    let value: unknown;
    try {
      value = readUpstreamMessage(this.name, bytes, this.maxDepth, this.log);
    } catch {
      this.noise.line(`[${this.name}] not JSON-RPC, skipped: ${bytes.toString('utf8', 0, 800).slice(0, 200)}`);
      return;
    }
    if (value === undefined) return;
    const c = classify(value);
    if (c.kind === 'response') {
      if (!this.pending.settle(c.msg))
        this.noise.line(`[${this.name}] a response nobody waits for (id ${JSON.stringify(c.msg.id)})`);
    } else if (c.kind === 'request' || c.kind === 'notification') this.onIncoming?.(c.msg);
    else {
      // A response mcpx cannot read fails the request it answers now, not at pool.callTimeout.
      const failed = unreadableResponse(this.name, value, c.error.message);
      if (!failed || !this.pending.settle(failed))
        this.noise.line(`[${this.name}] invalid message skipped: ${c.error.message}`);
    }
  }

  /** `answer`: a response to the upstream's own request. What the upstream has not read stays in mcpx's
   *  memory; answers it asked for and does not read, past transport.maxLineBytes unread, mean it floods
   *  requests (pings, questions) and never reads the answers, and the connection goes. (mcpx's own
   *  requests are its callers', bounded where they come in.) */
  private write(msg: unknown, answer = false): void {
    if (this.ended) throw new TransportClosed(`upstream ${this.name} is closed`);
    if (answer && this.child.stdin!.writableLength + this.stdin.pending > this.maxLineBytes) {
      const why = `upstream ${this.name} is not reading what mcpx sends it (more than ${this.maxLineBytes} bytes unread, transport.maxLineBytes); its connection was closed`;
      this.log(`[${this.name}] ${why}`);
      this.end(new TransportClosed(why));
      void this.close();
      throw new TransportClosed(why);
    }
    this.stdin.write(JSON.stringify(msg) + '\n');
  }

  request(req: Request, opts: SendOptions = {}): Promise<Response> {
    const p = this.pending.wait(req.id, opts.signal);
    try {
      this.write(req);
    } catch (e) {
      this.pending.forget(req.id);
      p.catch(() => undefined); // already rejected when the connection had ended: `e` says why
      return Promise.reject(e);
    }
    return p;
  }

  async notify(n: Notification): Promise<void> {
    this.write(n);
  }

  async respond(r: Response): Promise<void> {
    this.write(r, true);
  }

  private end(reason: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.stdin.discard();
    this.noise.close();
    this.pending.close(reason);
    this.onClose?.(reason);
  }

  async close(): Promise<void> {
    if (!this.ended) {
      this.ended = true;
      this.noise.close();
      this.pending.close(new TransportClosed(`upstream ${this.name} is stopping`));
      this.stdin.flush(); // a notification sent just before (cancelled) still reaches it
      this.child.stdin!.end();
    }
    // stdio transport, shutdown: close stdin, give the server a moment to exit, then signal its group.
    if (this.child.exitCode === null && this.child.signalCode === null) {
      await Promise.race([new Promise((r) => this.child.once('exit', r)), new Promise((r) => setTimeout(r, 300))]);
    }
    await system.killTree(this.child);
    await this.released();
  }
}
