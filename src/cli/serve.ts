// `mcpx serve --transport stdio`: for hosts that spawn their servers. A thin shim onto a running gateway
// (docs/gateway.md "The stdio shim"), or with --standalone a whole gateway in this process
// (src/cli/standalone.ts, loaded only then: the shim's path reaches no gateway, server or app module).
import { spawn } from 'node:child_process';
import { Settings, envLayer } from '../config/settings';
import { Relay } from '../shim/relay';
import { resolveGateway } from '../shim/resolve';
import { type Args, SETTING_FLAGS, UsageError } from './args';
import type { Command } from './command';

export const serve: Command = {
  usage: [
    [
      'serve --transport stdio [--connect auto|URL|ssh://host[:port]]',
      "a stdio shim onto a running gateway (auto: this folder's",
      'editor window, the running daemon, else one started)',
    ],
    [
      'serve --transport stdio --standalone [--config FILE] [--passthrough a,b] [--mcp-spec REV] [--set key=value]',
      'a whole gateway in this process',
    ],
  ],
  flags: ['transport', 'connect', 'standalone', 'config', ...SETTING_FLAGS],
  run,
};

async function run(a: Args): Promise<void> {
  if (a.transport === 'http')
    throw new Error(
      'serve --transport http is removed: run `mcpx daemon` and use the endpoint it prints (http://127.0.0.1:8899/mcp/<secret> by default)',
    );
  if (a.transport !== 'stdio') throw new UsageError('serve needs --transport stdio');
  if (a.standalone) return (await import('./standalone')).standalone(a);
  return shim(a);
}

/** A thin shim onto a running gateway: the one `--connect` names (auto: the editor window of this folder,
 *  the running daemon, else one started in the background), said once on stderr; reconnected after a
 *  break. */
async function shim(a: Args): Promise<void> {
  if (a.config) throw new Error('--config belongs to the gateway: give it to `mcpx daemon`, or add --standalone');
  // No config file of its own: the gateway has it. Settings from the environment and flags only.
  const settings = new Settings([
    { source: 'env', values: envLayer(process.env) },
    { source: 'flag', values: a.flags },
  ]);
  const log = (l: string) => process.stderr.write(`${l}\n`);
  if (a.connect?.startsWith('ssh://')) return overSsh(new URL(a.connect), settings, log);
  const resolve = () =>
    resolveGateway({ connect: a.connect ?? 'auto', cwd: process.cwd(), env: process.env, cli: process.argv[1]!, log });
  const first = await resolve();
  log(`mcpx: serving stdio through ${first.via}`);
  const relay = new Relay({
    endpoint: first.endpoint,
    input: process.stdin,
    output: process.stdout,
    log,
    maxLineBytes: settings.get<number>('transport.maxLineBytes'),
    limits: {
      maxDepth: settings.get<number>('limits.paramsDepth'),
      maxBatch: settings.get<number>('limits.batchLength'),
    },
    maxInflight: settings.get<number>('limits.inflight'),
    maxResponseBytes: settings.get<number>('limits.responseBytes'),
    drainMs: settings.duration('transport.stdioDrain'),
    reconnectForMs: settings.duration('shim.reconnectFor'),
    reconnect: async () => (await resolve()).endpoint,
  });
  process.once('SIGTERM', () => void relay.end());
  await relay.closed;
  process.exit(0);
}

/** `--connect ssh://[user@]host[:port]`: the shim runs on that host, over ssh, onto the gateway there (its
 *  own auto resolution); no port is opened and ssh is the only credential. This process is only the
 *  pipe: ssh's stdin and stdout are the client's (docs/gateway.md "MCP over ssh"). */
async function overSsh(url: URL, settings: Settings, log: (l: string) => void): Promise<void> {
  // An IPv6 host loses its URL brackets; `--` before the destination, so a host or user that starts with
  // "-" is never read as an ssh option.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const target = url.username ? `${decodeURIComponent(url.username)}@${host}` : host;
  const remote = settings.get<string>('shim.sshCommand').split(' ').filter(Boolean);
  const args = ['-T', '-o', 'BatchMode=yes', ...(url.port ? ['-p', url.port] : []), '--', target, ...remote];
  args.push('serve', '--transport', 'stdio');
  log(`mcpx: serving stdio through ssh://${target}${url.port ? `:${url.port}` : ''} (the gateway there)`);
  const child = spawn('ssh', args, { stdio: 'inherit' });
  process.once('SIGTERM', () => child.kill('SIGTERM'));
  const code = await new Promise<number>((resolve) => {
    child.on('error', (e) => {
      log(`mcpx: could not run ssh: ${e.message}`);
      resolve(2);
    });
    child.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0)));
  });
  process.exit(code);
}
