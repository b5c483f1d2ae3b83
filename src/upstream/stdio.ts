// An upstream over stdio: newline-delimited JSON-RPC on a spawned process's pipes. stderr goes to the
// log line by line (bounded like stdout); a line that is not JSON-RPC is logged and skipped, never fatal. A line longer than
// transport.maxLineBytes is not buffered: the connection is closed and its calls fail naming the
// setting (docs/security.md "Bounds").
import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { type Notification, type Request, type Response, classify } from '../protocol/jsonrpc';
import { Correlator } from '../wire/correlator';
import { readLines } from '../wire/lines';
import { type SpawnSpec, killGroup, spawnGuarded } from './spawn';
import {
  type SendOptions,
  TransportClosed,
  type UpstreamBounds,
  type UpstreamTransport,
  boundsWithDefaults,
  readUpstreamMessage,
} from './transport';

export class StdioUpstream implements UpstreamTransport {
  readonly kind = 'stdio' as const;
  private readonly child: ChildProcess;
  private readonly pending = new Correlator();
  private readonly maxDepth: number;
  private ended = false;
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
  ) {
    const { maxLineBytes, maxDepth } = boundsWithDefaults(bounds);
    this.maxDepth = maxDepth;
    this.child = spawnGuarded(spec);
    (this.child.stdio[3] as Socket | null)?.unref?.();
    readLines(this.child.stdout!, maxLineBytes, {
      line: (l) => this.line(l),
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
      line: (l) => this.log(`[${name}] ${l}`),
      overlong: (bytes) =>
        this.log(
          `[${name}] a stderr line longer than ${maxLineBytes} bytes (transport.maxLineBytes; ${bytes} bytes seen) was dropped`,
        ),
    });
    this.child.stdin!.on('error', () => undefined); // EPIPE after the child died: reported by 'exit'
    this.child.on('error', (e) => this.end(new TransportClosed(`upstream ${name} could not start: ${e.message}`)));
    this.child.on('exit', (code, signal) => {
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      this.end(new TransportClosed(`upstream ${name} ${how}`));
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  private line(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = readUpstreamMessage(this.name, line, this.maxDepth, this.log);
    } catch {
      this.log(`[${this.name}] not JSON-RPC, skipped: ${line.slice(0, 200)}`);
      return;
    }
    if (value === undefined) return;
    const c = classify(value);
    if (c.kind === 'response') {
      if (!this.pending.settle(c.msg)) this.log(`[${this.name}] a response nobody waits for (id ${String(c.msg.id)})`);
    } else if (c.kind === 'request' || c.kind === 'notification') this.onIncoming?.(c.msg);
    else this.log(`[${this.name}] invalid message skipped: ${c.error.message}`);
  }

  private write(msg: unknown): void {
    if (this.ended) throw new TransportClosed(`upstream ${this.name} is closed`);
    this.child.stdin!.write(JSON.stringify(msg) + '\n');
  }

  request(req: Request, opts: SendOptions = {}): Promise<Response> {
    const p = this.pending.wait(req.id, opts.signal);
    try {
      this.write(req);
    } catch (e) {
      this.pending.forget(req.id);
      return Promise.reject(e);
    }
    return p;
  }

  async notify(n: Notification): Promise<void> {
    this.write(n);
  }

  async respond(r: Response): Promise<void> {
    this.write(r);
  }

  private end(reason: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.pending.close(reason);
    this.onClose?.(reason);
  }

  async close(): Promise<void> {
    if (!this.ended) {
      this.ended = true;
      this.pending.close(new TransportClosed(`upstream ${this.name} is stopping`));
      this.child.stdin!.end();
    }
    // stdio transport, shutdown: close stdin, give the server a moment to exit, then signal its group.
    if (this.child.exitCode === null && this.child.signalCode === null) {
      await Promise.race([new Promise((r) => this.child.once('exit', r)), new Promise((r) => setTimeout(r, 300))]);
    }
    await killGroup(this.child);
  }
}
