// One log per upstream: a LogOutputChannel "mcpx: <server>" made when the server first says something,
// fed by the gateway's events (its notifications/message at their level, its state changes). mcpx's
// own log stays apart. "Show Log" on an Upstreams row opens that server's channel.
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
  /** Lines written per server (what a test can read; a channel's text cannot be). */
  readonly written = new Map<string, number>();
  private readonly sub: vscode.Disposable;

  constructor(host: GatewayHost) {
    this.sub = host.onEvent((e) => this.write(e));
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
    if (line === undefined) return;
    this.channel(e.server)[level](line);
    this.written.set(e.server, (this.written.get(e.server) ?? 0) + 1);
  }

  dispose(): void {
    this.sub.dispose();
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
