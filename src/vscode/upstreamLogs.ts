// One log per upstream: a LogOutputChannel "mcpx: <server>" made when the server first says something,
// fed by the gateway's events (its notifications/message at their level, its state changes). mcpx's
// own log stays apart; a stdio server's stderr, which mcpx logs as `[server] line`, is copied to its log. "Show Log" on an Upstreams row opens that server's channel.
import * as vscode from 'vscode';
import type { GatewayEvent } from '../gateway/events';
import type { GatewayHost } from './gatewayHost';
import { serverOf } from './commands';

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

export class UpstreamLogs implements vscode.Disposable {
  private readonly channels = new Map<string, vscode.LogOutputChannel>();
  /** The newest lines per server (what a test can read; a channel's text cannot be). */
  readonly recent = new Map<string, string[]>();
  private readonly subs: vscode.Disposable[];

  constructor(private readonly host: GatewayHost) {
    this.subs = [host.onEvent((e) => this.write(e)), host.onLogLine((l) => this.stderr(l))];
  }

  /** A line of mcpx's log that an upstream wrote to stderr (or that is about that upstream). */
  private stderr(l: string): void {
    const m = /^\[([^\]]+)\] (.*)$/s.exec(l);
    if (!m || !this.host.gateway?.servers().some((s) => s.name === m[1])) return;
    this.put(m[1]!, 'info', m[2]!);
  }

  private put(server: string, level: Level, line: string): void {
    this.channel(server)[level](line);
    const kept = this.recent.get(server) ?? [];
    kept.push(line);
    if (kept.length > 100) kept.shift();
    this.recent.set(server, kept);
  }

  channel(server: string): vscode.LogOutputChannel {
    let c = this.channels.get(server);
    if (!c) {
      c = vscode.window.createOutputChannel(`mcpx: ${server}`, { log: true });
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
    for (const s of this.subs) s.dispose();
    for (const c of this.channels.values()) c.dispose();
    this.channels.clear();
  }
}

export function registerUpstreamLogs(host: GatewayHost, logs: UpstreamLogs): vscode.Disposable {
  return vscode.commands.registerCommand('mcpx.showUpstreamLog', async (arg?: { name?: string } | string) => {
    if (!host.gateway)
      return void vscode.window.showWarningMessage(`mcpx: the gateway is not running: ${host.whyStopped}.`);
    const server = await serverOf(arg, host.gateway);
    if (server) logs.channel(server).show(true);
  });
}
