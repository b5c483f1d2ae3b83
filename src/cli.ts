// The headless surface: `mcpx daemon`, `mcpx serve --transport stdio`, `mcpx settings`, and the clients
// of a running gateway: `mcpx elicit`, `mcpx tasks` (its /v1 API), `mcpx tools`, `mcpx call`, `mcpx read` (MCP, src/cliTools.ts);
// `mcpx auth` signs in to OAuth upstreams (src/cliAuth.ts).
import { spawn } from 'node:child_process';
import { type Listening, isLoopback, listen, makeServer } from './app/app';
import { gatewayRoutes, identityHeader } from './app/routes';
import { type Config, defaultStateDir, loadConfig } from './config/file';
import { elicitSecret, endpointSecret, readSecret } from './config/secret';
import { SETTINGS, Settings, envLayer, envName, SettingError } from './config/settings';
import { Gateway } from './gateway/gateway';
import { Relay } from './shim/relay';
import { publishDaemon, resolveGateway, unpublishDaemon } from './shim/resolve';
import { authCommand } from './cliAuth';
import { callCommand, readCommand, toolsCommand } from './cliTools';
import { StdioTransport } from './transport/stdio';

const USAGE = `usage:
  mcpx daemon [--port N] [--address ADDR] [--config FILE] [--passthrough a,b] [--mcp-spec REV] [--set key=value]
  mcpx serve --transport stdio [--connect auto|URL|ssh://host[:port]]
                                                     a stdio shim onto a running gateway (auto: this folder's
                                                     editor window, the running daemon, else one started)
  mcpx serve --transport stdio --standalone [--config FILE] [--passthrough a,b] [--mcp-spec REV] [--set key=value]
                                                     a whole gateway in this process
  mcpx settings [--config FILE] [...flags]
  mcpx elicit [--endpoint URL]                       list the questions waiting at a running gateway
  mcpx elicit answer ID 'JSON' [--endpoint URL]      answer one, e.g. '{"action":"accept","content":{"name":"x"}}'
  mcpx tasks (--identity NAME | --session ID | --all) [--endpoint URL]
                                                     list the tasks of one client (its _meta["dev.mcpx/session"]
                                                     NAME, or a legacy session ID), or every task (--all: needs
                                                     tasks.adminAccess on the gateway)
  mcpx tasks cancel ID (--identity NAME | --session ID | --all) [--endpoint URL]
                                                     cancel one
  mcpx tools [SERVER] [--connect auto|URL]           the gateway's tools, or one server's
  mcpx call SERVER TOOL ['JSON' | -] [--text] [--connect auto|URL]
                                                     call a tool (arguments as JSON, - for stdin); exit 1
                                                     on an isError result, 2 on a protocol error
  mcpx read URI [--text] [--connect auto|URL]        read a resource, e.g. mcpx://SERVER/...
  mcpx auth login SERVER [--no-browser] [--config FILE]
                                                     sign in to an OAuth server: prints the URL (and opens a
                                                     browser when there is one), waits for the redirect
  mcpx auth status [--config FILE]                   which servers are signed in (never a token)
  mcpx auth logout SERVER [--config FILE]            forget a sign-in, revoking its tokens where possible
                                                     --connect auto (the default): the editor window for this
                                                     folder, else the running daemon, else one started in the
                                                     background (shim.daemonIdleExit)`;

/** Flags that are settings, by flag name. */
const FLAG_SETTINGS: Record<string, string> = {
  port: 'port',
  address: 'address',
  passthrough: 'mcp.passthrough',
  'mcp-spec': 'spec.first',
};

/** Commands that take positional arguments. */
const POSITIONAL = new Set(['elicit', 'tasks', 'tools', 'call', 'read', 'auth']);
/** Commands that talk MCP to the running gateway (src/cliTools.ts): they take --connect, and call and read --text. */
const GATEWAY_CLIENTS = new Set(['tools', 'call', 'read']);
/** Flags of `mcpx tasks` alone; --all takes no value. */
const TASK_FLAGS = new Set(['identity', 'session', 'all']);

interface Args {
  command: string;
  config?: string;
  transport?: string;
  endpoint?: string;
  /** mcpx serve, tools, call, read: which gateway (auto, a URL; serve also ssh://host); serve --standalone:
   *  none, a gateway in this process. */
  connect?: string;
  standalone?: boolean;
  /** mcpx tasks: whose tasks. */
  identity?: string;
  session?: string;
  all?: boolean;
  /** mcpx call/read: text content as text. */
  text?: boolean;
  /** mcpx auth login: print the URL, open no browser. */
  noBrowser?: boolean;
  positional: string[];
  flags: Record<string, unknown>;
}

export function parseArgs(argv: string[]): Args {
  const [command = 'help', ...rest] = argv;
  const a: Args = { command, flags: {}, positional: [] };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') ? (eq > 0 ? arg.slice(2, eq) : arg.slice(2)) : undefined;
    if (name === undefined) {
      if (!POSITIONAL.has(command)) throw new SettingError(arg, `unexpected argument\n${USAGE}`);
      a.positional.push(arg);
      continue;
    }
    if (TASK_FLAGS.has(name) && command !== 'tasks')
      throw new SettingError(`--${name}`, `only mcpx tasks takes it\n${USAGE}`);
    if (name === 'all') {
      if (eq > 0) throw new SettingError('--all', 'takes no value');
      a.all = true;
      continue;
    }
    if (name === 'no-browser') {
      if (command !== 'auth') throw new SettingError('--no-browser', `only mcpx auth login takes it\n${USAGE}`);
      a.noBrowser = true;
      continue;
    }
    if (name === 'standalone') {
      if (command !== 'serve') throw new SettingError('--standalone', `only mcpx serve takes it\n${USAGE}`);
      a.standalone = true;
      continue;
    }
    if (
      (name === 'connect' && !GATEWAY_CLIENTS.has(command) && command !== 'serve') ||
      (name === 'text' && !GATEWAY_CLIENTS.has(command))
    )
      throw new SettingError(`--${name}`, `only mcpx serve, tools, call and read take it\n${USAGE}`);
    if (name === 'text') {
      if (eq > 0) throw new SettingError('--text', 'takes no value');
      a.text = true;
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : rest[++i];
    if (value === undefined) throw new SettingError(`--${name}`, 'needs a value');
    if (name === 'config') a.config = value;
    else if (name === 'endpoint') a.endpoint = value;
    else if (name === 'connect') a.connect = value;
    else if (name === 'transport') a.transport = value;
    else if (name === 'identity') a.identity = value;
    else if (name === 'session') a.session = value;
    else if (name === 'set') {
      const j = value.indexOf('=');
      if (j <= 0) throw new SettingError('--set', `expected key=value, got ${JSON.stringify(value)}`);
      a.flags[value.slice(0, j)] = value.slice(j + 1);
    } else if (FLAG_SETTINGS[name]) a.flags[FLAG_SETTINGS[name]!] = value;
    else throw new SettingError(`--${name}`, `unknown flag\n${USAGE}`);
  }
  return a;
}

function settingsFor(config: Config, a: Args, env: NodeJS.ProcessEnv): Settings {
  return new Settings([
    { source: 'config', values: config.settings },
    { source: 'env', values: envLayer(env) },
    { source: 'flag', values: a.flags },
  ]);
}

function reportIssues(config: Config): void {
  for (const i of config.issues)
    process.stderr.write(`mcpx: config ${config.source}: ${i.path || '(file)'}: ${i.message}\n`);
}

async function daemon(a: Args): Promise<void> {
  const config = loadConfig(a.config, { env: process.env, workspaceFolder: process.cwd() });
  reportIssues(config);
  const settings = settingsFor(config, a, process.env);
  const stateDir = defaultStateDir(process.env);
  const gateway = new Gateway(config, settings, {
    log: (l) => process.stderr.write(l + '\n'),
    stateDir,
  });
  // The install's endpoint secret (docs/security.md "The endpoint secret"), shared with the editor.
  const secret = settings.get<boolean>('transport.secret') ? endpointSecret(stateDir) : undefined;
  const address = settings.get<string>('address');
  if (!isLoopback(address)) {
    process.stderr.write(
      `mcpx: WARNING: listening on ${address}, beyond loopback: anything that can reach this port can run tools as you.\n`,
    );
  }
  let l: Listening;
  try {
    l = await listen({
      provider: gateway,
      settings,
      routes: gatewayRoutes(gateway),
      log: (x) => process.stderr.write(x + '\n'),
      secret,
      stateDir,
    });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why =
      err.code === 'EADDRINUSE' ? `port ${settings.get('port')} is in use (use --port 0 for a free one)` : err.message;
    throw new Error(`cannot listen on ${address}: ${why}`);
  }
  // The URL that works, secret included: on the user's own stdout, where they look for it (never a log).
  // <state>/daemon.json: how a stdio shim or `mcpx call` finds this daemon (src/shim/resolve.ts).
  publishDaemon(stateDir, l.endpoint);
  process.stdout.write(`mcpx listening on ${l.endpoint}\n`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    unpublishDaemon(stateDir);
    await l.close();
    await gateway.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  // daemon.idleExit: no request, no session and no open stream for that long, and the daemon exits.
  const idle = settings.duration('daemon.idleExit');
  if (idle > 0) {
    const timer = setInterval(
      () => {
        if (!l.http.busy && Date.now() - l.http.lastActivity >= idle) void stop();
      },
      Math.max(10, Math.min(idle / 4, 30_000)),
    );
    timer.unref();
  }
}

async function serve(a: Args): Promise<void> {
  if (a.transport !== 'stdio') {
    throw new Error(
      a.transport === 'http'
        ? 'serve --transport http is removed: run `mcpx daemon` and use the endpoint it prints (http://127.0.0.1:8899/mcp/<secret> by default)'
        : `serve needs --transport stdio\n${USAGE}`,
    );
  }
  if (!a.standalone) return shim(a);
  const config = loadConfig(a.config, { env: process.env, workspaceFolder: process.cwd() });
  reportIssues(config);
  const settings = settingsFor(config, a, process.env);
  const gateway = new Gateway(config, settings, {
    log: (l) => process.stderr.write(l + '\n'),
    stateDir: defaultStateDir(process.env),
  });
  const server = makeServer(gateway, settings);
  const t = new StdioTransport({
    server,
    input: process.stdin,
    output: process.stdout,
    drainMs: settings.duration('transport.stdioDrain'),
  });
  process.once('SIGTERM', () => {
    // Listen streams end first (notifications/cancelled, then the result), then the upstreams stop.
    server.close();
    setTimeout(() => void gateway.close().then(() => process.exit(0)), 100);
  });
  await t.closed;
  server.close();
  await gateway.close();
  process.exit(0);
}

/** `mcpx serve --transport stdio`: a thin shim onto a running gateway (docs/gateway.md "The stdio shim"):
 *  the one `--connect` names (auto: the editor window of this folder, the running daemon, else one
 *  started in the background), said once on stderr; reconnected after a break. */
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

function showSettings(a: Args): void {
  const config = loadConfig(a.config, { env: process.env, workspaceFolder: process.cwd() });
  const settings = settingsFor(config, a, process.env);
  const width = Math.max(...SETTINGS.map((s) => s.key.length));
  for (const [key, r] of settings.entries()) {
    process.stdout.write(
      `${key.padEnd(width)}  ${JSON.stringify(r.value)}  (${r.source}${r.source === 'env' ? ': ' + envName(key) : ''})\n`,
    );
  }
  process.stdout.write(`config: ${config.source}\n`);
}

/** A running gateway's /v1 API, as the person: it holds the endpoint secret — the one in an --endpoint
 *  URL's /mcp/<secret> path, else the install's. */
function v1(a: Args) {
  const base = new URL(a.endpoint ?? `http://127.0.0.1:${process.env.MCPX_PORT || 8899}/mcp`);
  const secret = elicitSecret(base, () => readSecret(defaultStateDir(process.env)));
  return {
    at: (path: string) => new URL(path, base).toString(),
    auth: (secret ? { Authorization: `Bearer ${secret}` } : {}) as Record<string, string>,
    /** A refused request as the error it names. */
    refusal: async (res: Response) => {
      const out = (await res.json().catch(() => ({}))) as { error?: string | { message?: string } };
      return new Error((typeof out.error === 'string' ? out.error : out.error?.message) ?? `HTTP ${res.status}`);
    },
  };
}

/** `mcpx elicit`: the broker's questions at a running gateway, through its /v1 API. */
async function elicit(a: Args): Promise<void> {
  const { at, auth, refusal } = v1(a);
  const [verb, id, answer] = a.positional;
  if (verb === undefined || verb === 'list') {
    const res = await fetch(at('/v1/questions'), { headers: auth });
    if (!res.ok) throw await refusal(res);
    const { questions } = (await res.json()) as {
      questions: Array<{ id: string; server: string; method: string; params: { message?: string }; deadline: number }>;
    };
    if (questions.length === 0) return void process.stdout.write('no questions waiting\n');
    for (const q of questions) {
      const left = Math.max(0, Math.round((q.deadline - Date.now()) / 1000));
      process.stdout.write(`${q.id}  ${q.server}  ${q.method}  ${q.params.message ?? ''}  (${left} s left)\n`);
    }
    return;
  }
  if (verb !== 'answer' || !id || !answer) throw new Error(`usage: mcpx elicit answer ID 'JSON'\n${USAGE}`);
  const res = await fetch(at(`/v1/questions/${id}`), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...auth },
    body: answer,
  });
  if (!res.ok) throw await refusal(res);
  process.stdout.write(`answered ${id}\n`);
}

interface TaskRow {
  id: string;
  label: string;
  client: string | null;
  era: string;
  status: string;
  statusMessage: string | null;
  createdAt: string;
  updatedAt: string;
  progress: { progress: number; total?: number } | null;
}

/** `mcpx tasks`: one client's tasks at a running gateway (GET /v1/tasks), or every task with --all;
 *  `mcpx tasks cancel ID` cancels one (POST /v1/tasks/{id}/cancel). */
async function tasks(a: Args): Promise<void> {
  const { at, auth, refusal } = v1(a);
  const whose = [a.identity !== undefined, a.session !== undefined, a.all === true].filter(Boolean).length;
  if (whose !== 1)
    throw new Error(`mcpx tasks: name whose tasks with one of --identity NAME, --session ID or --all\n${USAGE}`);
  const headers: Record<string, string> = {
    ...auth,
    ...(a.identity !== undefined ? identityHeader(a.identity) : {}),
    ...(a.session !== undefined ? { 'Mcp-Session-Id': a.session } : {}),
  };
  const [verb, id, ...extra] = a.positional;
  if (verb === undefined || verb === 'list') {
    if (id !== undefined) throw new Error(`mcpx tasks: unexpected argument ${JSON.stringify(id)}\n${USAGE}`);
    const res = await fetch(at('/v1/tasks'), { headers });
    if (!res.ok) throw await refusal(res);
    const { tasks: rows } = (await res.json()) as { tasks: TaskRow[] };
    if (rows.length === 0) return void process.stdout.write('no tasks\n');
    process.stdout.write(taskTable(rows));
    return;
  }
  if (verb !== 'cancel' || !id || extra.length) throw new Error(`usage: mcpx tasks cancel ID\n${USAGE}`);
  const res = await fetch(at(`/v1/tasks/${encodeURIComponent(id)}/cancel`), { method: 'POST', headers });
  if (!res.ok) throw await refusal(res);
  const { task } = (await res.json()) as { task: TaskRow };
  process.stdout.write(`cancelled ${task.id}  ${task.label}\n`);
}

/** Tasks as a table, oldest first: one line each, columns padded to their widest cell. */
function taskTable(rows: TaskRow[], now = Date.now()): string {
  const age = (iso: string) => {
    const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
    return s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;
  };
  const progress = (p: TaskRow['progress']) =>
    p ? (p.total !== undefined ? `${p.progress}/${p.total}` : `${p.progress}`) : '';
  const cells = [
    ['ID', 'STATUS', 'ERA', 'AGE', 'CLIENT', 'PROGRESS', 'LABEL', 'MESSAGE'],
    ...rows.map((t) => [
      t.id,
      t.status,
      t.era,
      age(t.createdAt),
      t.client ?? '',
      progress(t.progress),
      t.label,
      t.statusMessage ?? '',
    ]),
  ];
  for (const r of cells) for (let i = 0; i < r.length; i++) r[i] = printable(r[i]!);
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells
    .map(
      (r) =>
        `${r
          .map((c, i) => c.padEnd(widths[i]!))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}

/** A cell on one line, with nothing a terminal would act on (labels and messages come from clients and
 *  upstreams). */
function printable(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  return s.replace(/[\x00-\x1f\x7f-\x9f]+/g, ' ');
}

/** All of stdin, for `mcpx call … -`. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function main(argv: string[]): Promise<void> {
  const a = parseArgs(argv);
  switch (a.command) {
    case 'daemon':
      return daemon(a);
    case 'serve':
      return serve(a);
    case 'settings':
      return showSettings(a);
    case 'elicit':
      return elicit(a);
    case 'tasks':
      return tasks(a);
    case 'tools':
      return toolsCommand(a);
    case 'call':
      return callCommand(a, readStdin);
    case 'read':
      return readCommand(a);
    case 'auth': {
      const config = loadConfig(a.config, { env: process.env, workspaceFolder: process.cwd() });
      reportIssues(config);
      return authCommand(a, config, settingsFor(config, a, process.env), defaultStateDir(process.env));
    }
    case 'help':
    case '--help':
      process.stdout.write(USAGE + '\n');
      return;
    default:
      throw new Error(`unknown command ${JSON.stringify(a.command)}\n${USAGE}`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((e: Error) => {
    process.stderr.write(`mcpx: ${e.message}\n`);
    process.exit(2);
  });
}
