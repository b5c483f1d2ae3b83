// The stdio shim's run (docs/gateway.md "The stdio shim"), and the entry of its own bundle, dist/shim.js:
// the `mcpx` loader (src/bin.ts) runs it first for `serve` without --standalone, so the shim starts without
// the whole command line (no zod, no gateway; node:http to the gateway). Anything that is not a plain shim
// run — help, a usage error, --standalone, no `--transport stdio` — it leaves to the whole command line
// (dist/mcpx.js), which says what it always said.
import { Settings, envLayer } from '../config/settings';
import { Relay } from '../shim/relay';
import { resolveGateway } from '../shim/resolve';
import { type Args, UsageError, parseArgs } from './args';
import { SERVE, profileEndpoint, profileFlag } from './serveUsage';
import { sshShim } from './ssh';

/** `mcpx serve …` as the shim's bundle sees it: true once it ran the shim; false for arguments the whole
 *  command line answers. */
export async function main(argv: string[]): Promise<boolean> {
  const [name, ...rest] = argv;
  if (name !== 'serve') return false;
  let a: Args;
  try {
    a = parseArgs(name, SERVE, rest);
  } catch (e) {
    if (e instanceof UsageError) return false;
    throw e;
  }
  if (a.help || a.standalone || a.transport !== 'stdio') return false;
  try {
    profileFlag(a.profile);
  } catch (e) {
    if (e instanceof UsageError) return false;
    throw e;
  }
  await shim(a);
  return true;
}

/** A thin shim onto a running gateway: the one `--connect` names (auto: the editor window of this folder,
 *  the running daemon, else one started in the background), said once on stderr; reconnected after a
 *  break. */
export async function shim(a: Args): Promise<void> {
  if (a.config) throw new Error('--config belongs to the gateway: give it to `mcpx daemon`, or add --standalone');
  // No config file of its own: the gateway has it. Settings from the environment and flags only.
  const settings = new Settings([
    { source: 'env', values: envLayer(process.env) },
    { source: 'flag', values: a.flags },
  ]);
  const log = (l: string) => process.stderr.write(`${l}\n`);
  const profile = profileFlag(a.profile);
  if (a.connect?.startsWith('ssh://')) return overSsh(new URL(a.connect), settings, log, profile);
  // A profile's endpoint is its gateway's, one segment further (docs/gateway.md "Profiles").
  const resolve = async () => {
    const r = await resolveGateway({
      connect: a.connect ?? 'auto',
      cwd: process.cwd(),
      env: process.env,
      cli: process.argv[1]!,
      log,
    });
    return { ...r, endpoint: profileEndpoint(r.endpoint, profile) };
  };
  const first = await resolve();
  log(`mcpx: serving stdio through ${first.via}${profile ? `, profile ${profile}` : ''}`);
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

/** `--connect ssh://[user@]host[:port]`: the shim runs on that host, over ssh (cli/ssh.ts), serving
 *  `profile` there. This process is only the pipe: ssh's stdin and stdout are the client's (docs/gateway.md
 *  "MCP over ssh"). */
async function overSsh(
  url: URL,
  settings: Settings,
  log: (l: string) => void,
  profile: string | undefined,
): Promise<void> {
  const { argv, via } = sshShim(url, settings.get<string>('shim.sshCommand'), profile);
  log(`mcpx: serving stdio through ${via} (the gateway there)`);
  // Loaded only here (a require: the bundle may run as a vm.Script): the shim's usual start is without it.
  const { spawn } = require('node:child_process') as typeof import('node:child_process');
  const child = spawn(argv[0]!, argv.slice(1), { stdio: 'inherit' });
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
