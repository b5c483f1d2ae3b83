// One log per upstream: a LogOutputChannel "mcpx: <server>" made when the server first says something,
// fed by each gateway run's events (its notifications/message at their level, its state changes). mcpx's
// own log stays apart; a stdio server's stderr, which mcpx logs as `[server] line`, is copied to its log.
// "Show Log" on an Upstreams row opens that server's channel (commands/showUpstreamLog.ts).
import type * as vscode from 'vscode';
import type { GatewayEvent } from '../../gateway/facade';
import { printable } from '../../kit/printable';
import { type Disposable, type Event, type Lifetimes, disposable } from '../lifetimes';
import type { GatewayRun } from '../ports';

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error';
/** MCP's syslog levels as a LogOutputChannel's. */
const LEVEL: Record<string, Level> = {
  debug: 'debug',
  info: 'info',
  notice: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'error',
  alert: 'error',
  emergency: 'error',
};
/** The newest lines kept per server. */
const KEPT = 100;

type Channel = Pick<vscode.LogOutputChannel, Level | 'show' | 'dispose'>;

export class UpstreamLogs implements Disposable {
  private readonly channels = new Map<string, Channel>();
  /** The newest lines per server (what a test can read; a channel's text cannot be). */
  readonly recent = new Map<string, string[]>();
  private readonly sub: Disposable;

  constructor(
    private readonly life: Lifetimes<GatewayRun>,
    /** Every line mcpx logs (an upstream's stderr among them). */
    logLines: Event<string>,
    private readonly createChannel: (name: string) => Channel,
  ) {
    life.perRun(({ gateway }) => [disposable(gateway.onEvent((e) => this.write(e)))]);
    this.sub = logLines((l) => this.stderr(l));
  }

  /** A line of mcpx's log that an upstream wrote to stderr (or that is about that upstream). */
  private stderr(l: string): void {
    const m = /^\[([^\]]+)\] (.*)$/s.exec(l);
    if (!m || !this.life.run?.gateway.servers().some((s) => s.name === m[1])) return;
    this.put(m[1]!, 'info', m[2]!);
  }

  private put(server: string, level: Level, text: string): void {
    // What the upstream logged is its own text: one line, no escape sequences (kit/printable.ts).
    const line = printable(text);
    this.channel(server)[level](line);
    const kept = this.recent.get(server) ?? [];
    kept.push(line);
    if (kept.length > KEPT) kept.shift();
    this.recent.set(server, kept);
  }

  channel(server: string): Channel {
    let c = this.channels.get(server);
    if (!c) {
      c = this.createChannel(`mcpx: ${server}`);
      this.channels.set(server, c);
    }
    return c;
  }

  private write(e: GatewayEvent): void {
    let line: string | undefined;
    let level: Level = 'info';
    if (e.type === 'server.log') {
      const data = typeof e.data === 'string' ? e.data : JSON.stringify(e.data);
      line = e.logger ? `[${e.logger}] ${data}` : data;
      level = LEVEL[e.level] ?? 'info';
    } else if (e.type === 'server.state') {
      line = `state: ${e.state}${e.error ? ` — ${e.error}` : ''}`;
      if (e.state === 'failed') level = 'error';
    }
    if (line !== undefined) this.put(e.server, level, line);
  }

  dispose(): void {
    this.sub.dispose();
    for (const c of this.channels.values()) c.dispose();
    this.channels.clear();
  }
}
