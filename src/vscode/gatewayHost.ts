// Runs one gateway in the extension host: on mcpx.port, or the next free port if it is taken.
import * as vscode from 'vscode';
import { type Listening, listen } from '../app';
import { parseConfig } from '../config/file';
import { Settings, envLayer } from '../config/settings';
import { Gateway } from '../gateway/gateway';
import { vscodeLayer } from './settings';

const PORT_TRIES = 20;

export class GatewayHost implements vscode.Disposable {
  private listening?: Listening;
  private gateway?: Gateway;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly stateDir?: string,
  ) {}

  get endpoint(): string | undefined {
    return this.listening?.url;
  }

  async start(): Promise<string> {
    if (this.listening) return this.listening.url;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const config = parseConfig({ servers: {} }, 'VS Code', { env: process.env, workspaceFolder: folder });
    const settings = new Settings([
      { source: 'vscode', values: vscodeLayer() },
      { source: 'env', values: envLayer(process.env) },
    ]);
    const gateway = new Gateway(config, settings, { log: (l) => this.log.info(l), stateDir: this.stateDir });
    const first = settings.get<number>('port');
    let lastError: unknown;
    for (let port = first; port < first + PORT_TRIES; port++) {
      try {
        this.listening = await listen({ provider: gateway, settings, port, routes: gateway.routes(), log: (l) => this.log.error(l) });
        break;
      } catch (e) {
        lastError = e;
        if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || first === 0) break;
      }
    }
    if (!this.listening) {
      await gateway.close();
      throw new Error(`mcpx could not listen on ports ${first}..${first + PORT_TRIES - 1}: ${(lastError as Error)?.message}`);
    }
    this.gateway = gateway;
    this.log.info(`gateway listening on ${this.listening.url}`);
    this.changed.fire();
    return this.listening.url;
  }

  async stop(): Promise<void> {
    const l = this.listening;
    const g = this.gateway;
    this.listening = undefined;
    this.gateway = undefined;
    await l?.close();
    await g?.close();
    this.changed.fire();
  }

  dispose(): void {
    void this.stop();
    this.changed.dispose();
  }
}
