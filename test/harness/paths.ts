// The client paths into mcpx and one exchange run over each (test/e2e/paths-matrix*.test.ts): Streamable
// HTTP straight to a headless daemon; the stdio shim finding that daemon (`--connect auto`) or told its
// URL; `--standalone` stdio (a whole gateway in the process); the shim over ssh. A client either writes
// everything at once (pipelining, as scripts and some hosts do on a pipe) or waits for each answer. Every
// frame a client receives is validated for its revision by the harness clients (wire.ts); what the
// gateway saw as the client's identity is read from a `scope: "identity"` upstream's whoami.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { cliJs } from './gateway';
import { REVISIONS, type Revision } from './schema';
import { fixtureCommand } from './upstreams';
import { CLIENT_INFO, HttpClient, type Json, StdioClient } from './wire';

export const MODERN: Revision = '2026-07-28';
export const LEGACY: readonly Revision[] = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
export type Mode = 'pipelining' | 'waiting';

/** What every path serves: a fixture upstream in pass-through (tools with annotations and titles, a
 *  prompt, resources, a template), and one run per identity (whoami says which instance served a call). */
export function servers(record?: string): Record<string, unknown> {
  return {
    up: fixtureCommand(['--rev', '2025-11-25', '--name', 'up', ...(record ? ['--record', record] : [])]),
    mine: { ...fixtureCommand(['--rev', '2025-11-25', '--name', 'mine']), scope: 'identity' },
  };
}
const SETTINGS = { 'mcp.passthrough': 'up', 'limits.instancesPerServer': 24, 'pool.idleTimeout': '20s' };

export interface Daemon {
  endpoint: string;
  dir: string;
  /** The daemon's state and config homes: a shim with `--connect auto` finds it through them. */
  env: NodeJS.ProcessEnv;
  config: string;
  pid: number;
  stop(): Promise<void>;
}

export interface DaemonOptions {
  /** The `up` upstream's --record file. */
  record?: string;
  /** A free one by default. */
  port?: string;
  /** The state directory, kept when the daemon stops (one started there again has the same endpoint
   *  secret); a fresh one by default, removed when it stops. */
  dir?: string;
  /** Settings besides the matrix's own. */
  settings?: Record<string, unknown>;
  /** More of the config file (a `permissions` block, say). */
  config?: Record<string, unknown>;
  /** Servers besides (or instead of) servers()'s, by name. */
  servers?: Record<string, unknown>;
}

/** `mcpx daemon` over servers(). */
export async function startDaemon(o: DaemonOptions = {}): Promise<Daemon> {
  const { record, port = '0', dir } = o;
  const home = dir ?? mkdtempSync(join(tmpdir(), 'mcpx-paths-'));
  const env = { ...process.env, XDG_CONFIG_HOME: home, XDG_STATE_HOME: home, MCPX_PORT: '' };
  const config = join(home, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      servers: { ...servers(record), ...o.servers },
      settings: { ...SETTINGS, ...o.settings },
      ...o.config,
    }),
  );
  const daemon = spawn(process.execPath, [cliJs(), 'daemon', '--port', port, '--config', config], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  daemon.stderr!.resume();
  const line = await new Promise<string>((r) => createInterface({ input: daemon.stdout! }).once('line', r));
  const endpoint = /mcpx listening on (\S+)/.exec(line)?.[1];
  if (!endpoint) throw new Error(`the daemon said ${JSON.stringify(line)}`);
  const stop = async () => {
    await stopChild(daemon);
    if (!dir) rmSync(home, { recursive: true, force: true });
  };
  return { endpoint, dir: home, env, config, pid: daemon.pid!, stop };
}

export async function stopChild(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  const gone = new Promise((r) => p.once('exit', r));
  p.kill('SIGTERM');
  const t = setTimeout(() => p.kill('SIGKILL'), 3000);
  await gone;
  clearTimeout(t);
}

/** One request of the exchange. */
export interface Step {
  method: string;
  params?: Json;
}

/** A client of one path: a handshake (legacy), steps sent all at once or one by one, then closed. */
export interface PathClient {
  /** Responses to `steps` in order; legacy clients send initialize (and initialized) first, whose
   *  response comes first. */
  exchange(steps: Step[], mode: Mode): Promise<Json[]>;
  /** One more request, once the exchange is done. */
  request(step: Step): Promise<Json>;
  /** Frames received that answered nothing (a response without a waiter). */
  problems(): string[];
  close(): Promise<void>;
}

export interface Path {
  name: string;
  open(rev: Revision, identity: string): Promise<PathClient>;
}

const initParams = (rev: Revision): Json => ({ protocolVersion: rev, capabilities: {}, clientInfo: CLIENT_INFO });

const running = new Set<StdioClient>();

/** Ends every stdio client still running (its stdin closed, then SIGKILL). */
export async function closeAll(): Promise<void> {
  await Promise.all([...running].map((c) => c.close()));
}

/** A stdio path: `argv` run as the client's server. A 2026-07-28 client names `identity` in every
 *  request's `_meta["dev.mcpx/session"]`. */
function stdioPath(name: string, argv: (rev: Revision) => string[], env?: () => NodeJS.ProcessEnv): Path {
  return {
    name,
    async open(rev, identity) {
      const [command, ...args] = argv(rev);
      const c = new StdioClient(command!, args, rev, {}, env?.());
      // A frame that fails validation throws in the client's line handler, leaving the request unanswered:
      // whatever a cell did not close, closeAll() does.
      running.add(c);
      void c.exited.then(() => running.delete(c));
      const meta = rev === MODERN ? { 'dev.mcpx/session': identity } : {};
      return {
        async exchange(steps, mode) {
          const frames = steps.map((s) => c.frame(s.method, s.params, meta));
          const head = rev === MODERN ? [] : c.handshake();
          if (mode === 'pipelining') return c.pipeline([...head, ...frames]);
          const out: Json[] = [];
          if (head.length) out.push(await c.initialize());
          for (const s of steps) out.push(await c.request(s.method, s.params, meta));
          return out;
        },
        request: (s) => c.request(s.method, s.params, meta),
        problems: () => c.errors,
        close: async () => void (await c.close()),
      };
    },
  };
}

/** Streamable HTTP straight to the gateway: a legacy session (initialize must be answered before its
 *  session can be named; pipelining sends everything after it at once), or 2026-07-28 requests. */
export function httpPath(endpoint: () => string): Path {
  return {
    name: 'Streamable HTTP',
    async open(rev, identity) {
      const c = new HttpClient(endpoint(), rev);
      const meta = rev === MODERN ? { 'dev.mcpx/session': identity } : {};
      const response = async (s: Step) => (await c.request(s.method, s.params, { meta })).response ?? {};
      return {
        async exchange(steps, mode) {
          const out: Json[] = [];
          if (rev !== MODERN) {
            const init = await c.request('initialize', initParams(rev));
            c.sessionId = init.reply.headers.get('mcp-session-id') ?? undefined;
            out.push(init.response ?? {});
            const initialized = c.notify('notifications/initialized');
            if (mode === 'waiting') await initialized;
          }
          if (mode === 'pipelining') return [...out, ...(await Promise.all(steps.map(response)))];
          for (const s of steps) out.push(await response(s));
          return out;
        },
        request: response,
        problems: () => [],
        close: async () => {
          if (!c.sessionId) return;
          await fetch(c.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': c.sessionId } });
        },
      };
    },
  };
}

export const shimPath = (name: string, connect: () => string, env: () => NodeJS.ProcessEnv): Path =>
  stdioPath(name, () => [process.execPath, cliJs(), 'serve', '--transport', 'stdio', '--connect', connect()], env);

export const standalonePath = (config: () => string, env: () => NodeJS.ProcessEnv): Path =>
  stdioPath(
    '--standalone stdio',
    () => [process.execPath, cliJs(), 'serve', '--transport', 'stdio', '--standalone', '--config', config()],
    env,
  );

export const sshPath = (argv: () => string[]): Path => stdioPath('the shim over ssh', argv);

const WHOAMI: Step = {
  method: 'tools/call',
  params: { name: 'mcpx_call', arguments: { server: 'mine', tool: 'whoami' } },
};

/** The steps: every list method, a tool call, a prompt get, a resource read, and whoami first and last. */
export function steps(rev: Revision): Step[] {
  return [
    WHOAMI,
    { method: 'tools/list' },
    { method: 'prompts/list' },
    { method: 'resources/list' },
    { method: 'resources/templates/list' },
    { method: 'tools/call', params: { name: 'echo', arguments: { text: `hi ${rev}` } } },
    { method: 'prompts/get', params: { name: 'greet', arguments: { who: 'ada' } } },
    { method: 'resources/read', params: { uri: 'fixture://doc' } },
    WHOAMI,
  ];
}

const textOf = (r: Json): string =>
  ((r.content as Json[] | undefined) ?? []).map((b) => String((b as Json).text ?? '')).join('');
const since = (rev: Revision, floor: Revision): boolean => REVISIONS.indexOf(rev) >= REVISIONS.indexOf(floor);

function resultOf(what: string, f: Json | undefined): Json {
  assert.ok(f && 'result' in f, `${what}: ${JSON.stringify(f)}`);
  return f.result as Json;
}

/** Checks the answers to handshake + steps(rev) for a client of `rev`, and returns the upstream instance
 *  both whoami calls ran on (the identity the gateway saw). Beyond the strict schema the harness client
 *  applied: the lists were spelled for the client's own revision — a title only from 2025-06-18, tool
 *  annotations only from 2025-03-26 — so a request that ran outside the client's session shows. */
export function checkExchange(rev: Revision, got: Json[]): string {
  const out = [...got];
  if (rev !== MODERN) assert.equal(resultOf('initialize', out.shift()).protocolVersion, rev);
  const names = ['whoami', 'tools/list', 'prompts/list', 'resources/list', 'templates', 'echo', 'prompt', 'read'];
  const [who, tools, prompts, resources, templates, echo, prompt, read, again] = out.map((f, i) =>
    resultOf(names[i] ?? 'whoami again', f),
  );
  assert.equal(out.length, 9, 'every request answered');
  const list = tools!.tools as Json[];
  assert.ok(list.some((t) => t.name === 'mcpx_call'));
  const echoTool = list.find((t) => t.name === 'echo');
  assert.ok(echoTool, 'the pass-through upstream tool is listed');
  assert.equal(echoTool.title, since(rev, '2025-06-18') ? 'Echo' : undefined, `title of echo for ${rev}`);
  assert.deepEqual(
    echoTool.annotations,
    since(rev, '2025-03-26') ? { readOnlyHint: true } : undefined,
    `annotations of echo for ${rev}`,
  );
  assert.ok((prompts!.prompts as Json[]).some((p) => p.name === 'greet'));
  assert.ok((resources!.resources as Json[]).some((r) => r.uri === 'fixture://doc'));
  assert.ok((templates!.resourceTemplates as Json[]).some((t) => t.uriTemplate === 'fixture://items/{id}'));
  assert.equal(textOf(echo!), `hi ${rev}`);
  const message = (prompt!.messages as Json[])[0]!.content as Json;
  assert.equal(message.text, 'Hello, ada!');
  assert.equal((read!.contents as Json[])[0]!.text, 'doc body');
  const instance = textOf(who!);
  assert.match(instance, /^mine:\d+:[0-9a-f]{12}$/);
  assert.equal(textOf(again!), instance, 'both calls ran as the same identity');
  return instance;
}

/** The instance a whoami answer names. */
export const instanceOf = (f: Json): string => textOf(resultOf('whoami', f));

/** One cell: a client of `rev` on `path` runs the exchange in `mode`, then one more whoami. `seen` holds
 *  the instances of the cells run so far (by cell): no two clients share one. */
export async function runCell(
  path: Path,
  rev: Revision,
  mode: Mode,
  cell: string,
  seen: Map<string, string>,
): Promise<void> {
  const client = await path.open(rev, `matrix-${crypto.randomUUID()}`);
  try {
    const instance = checkExchange(rev, await client.exchange(steps(rev), mode));
    assert.equal(instanceOf(await client.request(WHOAMI)), instance, 'a call after the exchange: the same identity');
    assert.equal(seen.get(instance), undefined, `${cell} ran on the instance of ${seen.get(instance)}`);
    seen.set(instance, cell);
    assert.deepEqual(client.problems(), []);
  } finally {
    await client.close();
  }
}
