// The gateway benchmark: tools/call through mcpx against the same upstream called directly, against
// the HTTP floor, and against mcp-proxy; list latency with many tools, a 1 MB result, cold start and
// resident memory. run.ts calls gatewayBench() after its own part and writes both into
// docs/performance.md; `node build/bench/gateway.js` runs this part alone and prints its section.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type SelfTime, selfTimes } from './profile';
import { ALTERNATIONS, ratioSpread, shown as spreadShown, verdict, verdictAll } from './verdict';
import {
  type Figures,
  type HttpAnswer,
  FetchClient,
  HttpClient,
  type Poster,
  type Run,
  Samples,
  StdioRpc,
  clientsLoad,
  clientsRun,
  figures,
  fmt,
  freePort,
  median,
  probeGet,
  procStatusKb,
  shown,
  size,
  stopTree,
} from './lib';

const root = join(__dirname, '..', '..');
// The bundles this part runs, copied once at its start (see snapshot): paths set there.
let cli = join(root, 'dist', 'cli.js');
let floorJs = join(__dirname, 'floor.js');
let forwarderJs = join(__dirname, 'forwarder.js');
let fixture = join(root, 'build', 'test', 'fixtures', 'upstream', 'server.js');
const proxyBin = join(root, 'node_modules', 'mcp-proxy', 'dist', 'bin', 'mcp-proxy.mjs');
const PROXY_VERSION = '6.7.19';
const node = process.execPath;
const REV = '2025-11-25'; // the upstream's revision
const CLIENT_REV = '2025-03-26'; // what the benchmark clients speak: headerless, sessionless on mcpx
const CONCURRENCY = [1, 16, 64] as const;
const WARM_MS = size(300, 50);
/** Turns of the paths within one cell (see takeTurns). */
const SLICE_MS = size(500, 100);
/** Before the first cell every path answers this many calls (or runs this long): the JIT's warm-up. */
const JIT_CALLS = size(5000, 50);
const JIT_MAX_MS = size(4000, 300);
// At least 2: the first start fills the cache a later one is measured with.
const COLD_RUNS = size(9, 2);

// ---- processes ------------------------------------------------------------------------------------

interface Proc {
  name: string;
  child: ChildProcess;
  /** The first capture group of the ready line. */
  match: string;
  /** The last few kB of what it wrote, for the error report. */
  tail(): string;
}

const running = new Set<Proc>();

/** Spawn a process, keep a tail of its output, resolve when a stdout line matches `ready`; with 'rpc'
 *  at once, stdout left to the caller; with 'none' at once, stdout read into the tail (so that a
 *  chatty process never blocks on a full pipe). Every process started here is stopped by its pid in
 *  `stopAll`. */
function launch(name: string, args: string[], ready: RegExp | 'rpc' | 'none', env: NodeJS.ProcessEnv): Promise<Proc> {
  const child = spawn(node, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
  let tail = '';
  const keep = (s: string) => (tail = (tail + s).slice(-4000));
  child.stderr!.on('data', (c: Buffer) => keep(c.toString()));
  const p: Proc = { name, child, match: '', tail: () => tail };
  running.add(p);
  child.once('exit', () => running.delete(p));
  if (ready === 'none') child.stdout!.on('data', (c: Buffer) => keep(c.toString()));
  if (ready === 'rpc' || ready === 'none') return Promise.resolve(p);
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${name} printed no ready line within 20 s; output: ${tail}`)), 20_000);
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      keep(line + '\n');
      const m = ready.exec(line);
      if (m && !p.match) {
        clearTimeout(t);
        p.match = m[1] ?? line;
        resolve(p);
      }
    });
    child.once('exit', (code, sig) => {
      clearTimeout(t);
      reject(new Error(`${name} exited (${code ?? sig}) before it was ready; output: ${tail}`));
    });
  });
}

async function stopProc(p: Proc): Promise<void> {
  await stopTree(p.child);
  running.delete(p);
}

async function stopAll(): Promise<void> {
  await Promise.all([...running].map(stopProc));
}

// ---- messages ---------------------------------------------------------------------------------------

const json = { 'Content-Type': 'application/json' };
const ACCEPT_JSON = { ...json, Accept: 'application/json' };
const ACCEPT_BOTH = { ...json, Accept: 'application/json, text/event-stream' };
const call = (name: string, args: Record<string, unknown>) => (id: number) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const echoCall = call('echo', { text: 'hello' });
const bigCall = call('big', {});
const initialize = (rev: string) => (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: rev, capabilities: {}, clientInfo: { name: 'mcpx-bench', version: '0' } },
  });
const okEcho = (a: HttpAnswer) => a.status === 200 && a.body.includes('"text":"hello"') && !a.body.includes('"error"');
const okFloor = (a: HttpAnswer) => a.status === 200 && a.body.includes('"result"');
const okBig = (a: HttpAnswer) => a.status === 200 && a.body.length > 1_000_000 && a.body.includes('"result"');
const okEchoLine = (l: string) => l.includes('"text":"hello"') && !l.includes('"error"');
const okBigLine = (l: string) => l.length > 1_000_000 && l.includes('"result"');

/** One client with a legacy (2025-03-26) session: initialize, its Mcp-Session-Id on every later request,
 *  notifications/initialized. */
async function openSession(url: string): Promise<HttpClient> {
  const c = new HttpClient(new URL(url), ACCEPT_BOTH);
  const a = await c.post(initialize(CLIENT_REV)(0));
  const sid = a.headers['mcp-session-id'];
  if (a.status !== 200 || typeof sid !== 'string')
    throw new Error(`initialize at ${url}: HTTP ${a.status} ${a.body.slice(0, 300)}`);
  c.headers['Mcp-Session-Id'] = sid;
  const n = await c.post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  if (n.status !== 202)
    throw new Error(`notifications/initialized at ${url}: HTTP ${n.status} ${n.body.slice(0, 300)}`);
  return c;
}

async function closeSession(c: HttpClient): Promise<void> {
  const a = await c.send('DELETE');
  c.close();
  if (a.status >= 300) throw new Error(`DELETE session at ${shown(c.url)}: HTTP ${a.status} ${a.body.slice(0, 300)}`);
}

async function startStdioEcho(extra: string[] = []): Promise<{ proc: Proc; rpc: StdioRpc }> {
  const proc = await launch('fixture (stdio)', [fixture, '--rev', REV, ...extra], 'rpc', process.env);
  const rpc = new StdioRpc(proc.child);
  const init = await rpc.request('initialize', {
    protocolVersion: REV,
    capabilities: {},
    clientInfo: { name: 'mcpx-bench', version: '0' },
  });
  if (!init.includes('"result"')) throw new Error(`fixture initialize: ${init.slice(0, 300)}`);
  rpc.notify('notifications/initialized');
  return { proc, rpc };
}

// ---- paths and turns -------------------------------------------------------------------------------

/** One way of calling the tool with a fixed number of clients, ready to run. */
interface Path {
  kind: Kind;
  run(ms: number): Promise<Run>;
  close(): Promise<void>;
}

/** `clients` HTTP clients on `url`: with a session each for mcpxSession and proxy, sessionless otherwise. */
async function httpPath(
  kind: Exclude<Kind, 'stdio'>,
  url: string,
  clients: number,
  call: (id: number) => string,
  onFetch = false,
): Promise<Path> {
  const sessions = kind === 'mcpxSession' || kind === 'proxy';
  const withSession = sessions ? await Promise.all(Array.from({ length: clients }, () => openSession(url))) : [];
  const cs: Poster[] = sessions
    ? withSession
    : Array.from({ length: clients }, () =>
        onFetch ? new FetchClient(new URL(url), ACCEPT_JSON) : new HttpClient(new URL(url), ACCEPT_JSON),
      );
  const ok = call === bigCall ? okBig : kind === 'floor' ? okFloor : okEcho;
  return {
    kind,
    run: (ms) => clientsRun(cs, call, ms, ok),
    close: async () => {
      if (sessions) await Promise.all(withSession.map(closeSession));
      else for (const c of cs) c.close();
    },
  };
}

/** The paths take turns in slices of about SLICE_MS (each round starting with the next path), so that
 *  the noise of a shared machine falls on all of them alike; `ms` in all per path. The rounds fall into
 *  ALTERNATIONS groups, each with figures of its own, so that a ratio can be taken within one group and
 *  shown as a median with its spread (bench/verdict.ts). */
async function takeTurns(paths: Path[], ms: number): Promise<Turns> {
  const per = Math.max(1, Math.round(ms / SLICE_MS / ALTERNATIONS));
  const rounds = per * ALTERNATIONS;
  const samples = paths.map(() => new Samples());
  const alts: Array<Map<Kind, Figures>> = [];
  for (let a = 0; a < ALTERNATIONS; a++) {
    const alt = paths.map(() => new Samples());
    for (let i = a * per; i < (a + 1) * per; i++) {
      for (let j = 0; j < paths.length; j++) {
        const k = (i + j) % paths.length;
        const run = await paths[k]!.run(ms / rounds);
        samples[k]!.add(run);
        alt[k]!.add(run);
      }
    }
    alts.push(new Map(paths.map((p, i) => [p.kind, alt[i]!.figures()])));
  }
  return { pooled: new Map(paths.map((p, i) => [p.kind, samples[i]!.figures()])), alts };
}

interface Turns {
  /** Every slice of each path added up. */
  pooled: Map<Kind, Figures>;
  /** Each alternation's figures. */
  alts: Array<Map<Kind, Figures>>;
}

// ---- the parts ----------------------------------------------------------------------------------------

type Kind = 'stdio' | 'floor' | 'forward' | 'mcpx' | 'mcpxSession' | 'proxy';
const KINDS = ['stdio', 'floor', 'forward', 'mcpx', 'mcpxSession', 'proxy'] as const;
/** The paths measured again with one client on fetch. */
const FETCH_KINDS = ['floor', 'forward', 'mcpx'] as const;
const LABEL: Record<Kind, string> = {
  stdio: 'upstream direct (stdio pipe, N in flight)',
  floor: 'HTTP floor (bench/floor.ts)',
  forward: 'forward-only gateway (bench/forwarder.ts), same upstream',
  mcpx: 'mcpx, sessionless (2025-03-26 headerless)',
  mcpxSession: 'mcpx, one legacy session per client',
  proxy: `mcp-proxy ${PROXY_VERSION}, one session per client`,
};

interface Cell {
  kind: Kind;
  clients: number;
  f: Figures;
}

interface Rss {
  what: string;
  mcpxKb: number;
  proxyKb: number;
}

interface Results {
  date: string;
  ms: number;
  cells: Cell[];
  /** One client on fetch (undici), per FETCH_KINDS. */
  fetch: Array<{ kind: Kind; f: Figures }>;
  rss: Rss[];
  rssPeak: { mcpxKb: number; proxyKb: number };
  catalogue: Array<{ what: string; cold?: number; warm?: Figures; note: string }>;
  big: Array<{ what: string; f: Figures }>;
  /** Each alternation's figures: of each concurrency's cell, of the fetch client, of the 1 MB result. */
  alts: {
    cells: Map<number, Array<Map<Kind, Figures>>>;
    fetch: Array<Map<Kind, Figures>>;
    big: Array<Map<Kind, Figures>>;
  };
  /** mcpx's CPU profile at one client: the top functions by self time. */
  profile?: { top: SelfTime[]; busyMs: number; ms: number };
  cold: Array<{ what: string; runs: number[] }>;
  /** 1-minute load average before and after: the machine is shared, and says so. */
  load: [number, number];
  /** Which mcpx: the commit, and whether src/ had changes not committed. */
  revision: string;
}

function revision(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: root, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head} with uncommitted changes in src/` : head;
  } catch {
    return 'unknown (no git)';
  }
}

const say = (s: string) => process.stdout.write(`gateway: ${s}\n`);

function writeConfig(
  dir: string,
  file: string,
  servers: Record<string, string[]>,
  settings: Record<string, unknown>,
): string {
  const path = join(dir, file);
  const defs = Object.fromEntries(
    Object.entries(servers).map(([n, args]) => [n, { command: node, args: [fixture, '--rev', REV, ...args] }]),
  );
  writeFileSync(path, JSON.stringify({ servers: defs, settings }, null, 2));
  return path;
}

/** Copies of dist/cli.js, the fixture and the floor (each a self-contained bundle) taken at the start, so
 *  that a rebuild elsewhere in the tree (which empties build/) cannot pull them away mid-run or mix
 *  versions. A file briefly missing is waited for. */
async function snapshot(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const copy = async (from: string, name: string): Promise<string> => {
    for (let i = 0; ; i++) {
      try {
        copyFileSync(from, join(dir, name));
        return join(dir, name);
      } catch (e) {
        if (i >= 50 || (e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        await new Promise((res) => setTimeout(res, 100));
      }
    }
  };
  cli = await copy(cli, 'cli.js');
  await copy(join(root, 'dist', 'mcpx.js'), 'mcpx.js'); // what cli.js loads, beside it
  floorJs = await copy(floorJs, 'floor.js');
  forwarderJs = await copy(forwarderJs, 'forwarder.js');
  fixture = await copy(fixture, 'fixture-server.js');
}

export async function gatewayBench(ms: number): Promise<string[]> {
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'mcpx-bench-')));
  // mcpx keeps its era cache under $XDG_STATE_HOME: a private one, so runs do not touch the user's.
  const envWith = (state: string): NodeJS.ProcessEnv => {
    mkdirSync(state, { recursive: true });
    return { ...process.env, XDG_STATE_HOME: state, XDG_CONFIG_HOME: join(tmp, 'config') };
  };
  const onSignal = () => void stopAll().then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const r: Results = {
    date: new Date().toISOString().slice(0, 10),
    ms,
    cells: [],
    fetch: [],
    rss: [],
    rssPeak: { mcpxKb: 0, proxyKb: 0 },
    catalogue: [],
    big: [],
    alts: { cells: new Map(), fetch: [], big: [] },
    cold: [],
    load: [loadavg()[0]!, 0],
    revision: revision(),
  };
  try {
    await snapshot(join(tmp, 'bundles'));
    const passCfg = writeConfig(tmp, 'echo.json', { echo: [] }, { 'mcp.passthrough': ['echo'] });
    await matrix(r, ms, passCfg, envWith(join(tmp, 'state-main')));
    r.profile = await profileAtOne(ms, passCfg, envWith(join(tmp, 'state-profile')), join(tmp, 'profile'));
    await catalogue(r, ms, tmp, envWith);
    await coldStart(r, tmp, passCfg, envWith);
    r.load[1] = loadavg()[0]!;
  } catch (e) {
    for (const p of running) process.stderr.write(`--- ${p.name} (pid ${p.child.pid}) output tail:\n${p.tail()}\n`);
    throw e;
  } finally {
    await stopAll();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    rmSync(tmp, { recursive: true, force: true });
  }
  return report(r);
}

/** tools/call echo at 1, 16, 64 clients on every path; RSS with 64 sessions; the 1 MB result. */
async function matrix(r: Results, ms: number, passCfg: string, env: NodeJS.ProcessEnv): Promise<void> {
  const direct = await startStdioEcho();
  const floor = await launch('floor', [floorJs], /listening on (\S+)/, env);
  const forward = await launch('forwarder', [forwarderJs, fixture, '--rev', REV], /listening on (\S+)/, env);
  const mcpx = await launch(
    'mcpx daemon',
    [cli, 'daemon', '--port', '0', '--config', passCfg],
    /listening on (\S+)/,
    env,
  );
  const port = await freePort();
  const proxy = await launch(
    'mcp-proxy',
    [proxyBin, '--host', '127.0.0.1', '--port', String(port), '--', node, fixture, '--rev', REV],
    'none',
    env,
  );
  const proxyUrl = `http://127.0.0.1:${port}/mcp`;
  const t0 = performance.now();
  while ((await probeGet(`http://127.0.0.1:${port}/ping`)) !== 200) {
    if (performance.now() - t0 > 20_000 || proxy.child.exitCode !== null)
      throw new Error(`mcp-proxy did not come up: ${proxy.tail()}`);
    await new Promise((res) => setTimeout(res, 20));
  }

  // Resident memory: idle after one call, then with 64 legacy sessions open (each did initialize and one call).
  const one = new HttpClient(new URL(mcpx.match), ACCEPT_JSON);
  if (!okEcho(await one.post(echoCall(1)))) throw new Error('mcpx: the first echo call failed');
  one.close();
  const p1 = await openSession(proxyUrl);
  if (!okEcho(await p1.post(echoCall(1)))) throw new Error('mcp-proxy: the first echo call failed');
  await closeSession(p1);
  await new Promise((res) => setTimeout(res, 200));
  r.rss.push({
    what: 'idle, upstream started, after one call',
    mcpxKb: procStatusKb(mcpx.child.pid!, 'VmRSS'),
    proxyKb: procStatusKb(proxy.child.pid!, 'VmRSS'),
  });
  for (const [kind, url] of [
    ['mcpx', mcpx.match],
    ['proxy', proxyUrl],
  ] as const) {
    const sessions = await Promise.all(Array.from({ length: 64 }, () => openSession(url)));
    const answers = await Promise.all(sessions.map((s, i) => s.post(echoCall(i + 10))));
    if (!answers.every(okEcho)) throw new Error(`${kind}: a session call failed`);
    await new Promise((res) => setTimeout(res, 200));
    const kb = procStatusKb((kind === 'mcpx' ? mcpx : proxy).child.pid!, 'VmRSS');
    if (kind === 'mcpx')
      r.rss.push({ what: '64 legacy sessions open, each did initialize + 1 call', mcpxKb: kb, proxyKb: 0 });
    else r.rss[r.rss.length - 1]!.proxyKb = kb;
    await Promise.all(sessions.map(closeSession));
  }
  say(
    `RSS idle ${r.rss[0]!.mcpxKb} kB mcpx / ${r.rss[0]!.proxyKb} kB mcp-proxy; 64 sessions ${r.rss[1]!.mcpxKb} / ${r.rss[1]!.proxyKb} kB`,
  );

  // The JIT first: every path at 16 clients until it has answered JIT_CALLS calls (or for JIT_MAX_MS).
  const urls: Record<Exclude<Kind, 'stdio'>, string> = {
    floor: floor.match,
    forward: forward.match,
    mcpx: mcpx.match,
    mcpxSession: mcpx.match,
    proxy: proxyUrl,
  };
  const paths = (clients: number, call: (id: number) => string, kinds: readonly Kind[], onFetch = false) =>
    Promise.all(
      kinds.map((kind): Promise<Path> => {
        if (kind === 'stdio')
          return Promise.resolve({
            kind,
            run: (t: number) => direct.rpc.run(call, clients, t, call === bigCall ? okBigLine : okEchoLine),
            close: async () => undefined,
          });
        return httpPath(kind, urls[kind], clients, call, onFetch);
      }),
    );
  for (const p of await paths(16, echoCall, KINDS)) {
    let calls = 0;
    const t0 = performance.now();
    while (calls < JIT_CALLS && performance.now() - t0 < JIT_MAX_MS) calls += (await p.run(250)).latencies.length;
    await p.close();
  }

  for (const clients of CONCURRENCY) {
    const ps = await paths(clients, echoCall, KINDS);
    for (const p of ps) await p.run(WARM_MS);
    const turns = await takeTurns(ps, ms);
    const got = turns.pooled;
    r.alts.cells.set(clients, turns.alts);
    if (clients === 64) {
      r.rss.push({
        what: '64 sessions open, right after 64-client load',
        mcpxKb: procStatusKb(mcpx.child.pid!, 'VmRSS'),
        proxyKb: procStatusKb(proxy.child.pid!, 'VmRSS'),
      });
    }
    for (const p of ps) await p.close();
    for (const kind of KINDS) {
      r.cells.push({ kind, clients, f: got.get(kind)! });
      say(`tools/call echo x${clients} ${LABEL[kind]}: ${fmt(got.get(kind)!)}`);
    }
  }

  // One client on fetch, as the official SDK's HTTP client sends: its own per-request cost is larger than
  // node:http's, and every path pays it alike.
  const fp = await paths(1, echoCall, FETCH_KINDS, true);
  for (const p of fp) await p.run(WARM_MS * 3);
  const fetchTurns = await takeTurns(fp, ms);
  const viaFetch = fetchTurns.pooled;
  r.alts.fetch = fetchTurns.alts;
  for (const p of fp) await p.close();
  for (const kind of FETCH_KINDS) {
    r.fetch.push({ kind, f: viaFetch.get(kind)! });
    say(`tools/call echo x1 on fetch ${LABEL[kind]}: ${fmt(viaFetch.get(kind)!)}`);
  }

  // 1 MB result (tool `big`), one client.
  const BIG_KINDS = ['stdio', 'mcpx', 'proxy'] as const;
  const bp = await paths(1, bigCall, BIG_KINDS);
  for (const p of bp) await p.run(WARM_MS);
  const bigTurns = await takeTurns(bp, Math.max(600, ms / 2));
  const big = bigTurns.pooled;
  r.alts.big = bigTurns.alts;
  for (const p of bp) await p.close();
  for (const kind of BIG_KINDS) r.big.push({ what: LABEL[kind], f: big.get(kind)! });
  for (const b of r.big) say(`tools/call big (1 MB) ${b.what}: ${fmt(b.f)}`);
  r.rssPeak = { mcpxKb: procStatusKb(mcpx.child.pid!, 'VmHWM'), proxyKb: procStatusKb(proxy.child.pid!, 'VmHWM') };

  direct.proc.child.stdin!.end();
  await Promise.all([direct.proc, floor, forward, mcpx, proxy].map(stopProc));
}

/** mcpx's CPU profile while one client calls echo for `ms` (after the JIT's warm-up): a daemon of its own
 *  under `node --cpu-prof`, which writes the profile as it exits. */
async function profileAtOne(
  ms: number,
  passCfg: string,
  env: NodeJS.ProcessEnv,
  dir: string,
): Promise<NonNullable<Results['profile']>> {
  const mcpx = await launch(
    'mcpx daemon (profiled)',
    ['--cpu-prof', `--cpu-prof-dir=${dir}`, cli, 'daemon', '--port', '0', '--config', passCfg],
    /listening on (\S+)/,
    env,
  );
  const p = await httpPath('mcpx', mcpx.match, 1, echoCall);
  await p.run(Math.min(JIT_MAX_MS, 2000));
  const from = performance.now();
  await p.run(ms);
  const to = performance.now();
  await p.close();
  await stopProc(mcpx);
  const exited = performance.now();
  const { top, busyMs } = selfTimes(dir, { fromMs: exited - from, toMs: exited - to });
  return { top, busyMs, ms };
}

/** The result of one mcpx_tools call: how many tools, how many servers failed. */
function toolsIn(a: HttpAnswer): { tools: number; errors: number } {
  const v = JSON.parse(a.body) as { result?: { content?: Array<{ text?: string }> } };
  const inner = JSON.parse(v.result?.content?.[0]?.text ?? '{}') as { tools?: unknown[]; errors?: unknown[] };
  return { tools: inner.tools?.length ?? 0, errors: inner.errors?.length ?? 0 };
}

/** Every page of tools/list; the number of tools and pages. */
async function listAll(c: HttpClient, id: number): Promise<{ tools: number; pages: number }> {
  let cursor: string | undefined;
  let tools = 0;
  let pages = 0;
  do {
    const a = await c.post(
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: cursor ? { cursor } : {} }),
    );
    if (a.status !== 200) throw new Error(`tools/list: HTTP ${a.status} ${a.body.slice(0, 300)}`);
    const v = JSON.parse(a.body) as { result?: { tools?: unknown[]; nextCursor?: string } };
    if (!v.result?.tools) throw new Error(`tools/list: ${a.body.slice(0, 300)}`);
    tools += v.result.tools.length;
    pages++;
    cursor = v.result.nextCursor;
  } while (cursor);
  return { tools, pages };
}

/** Repeats `fn` for `ms` (at least 20 times); figures of its durations. */
async function repeat(ms: number, fn: () => Promise<void>): Promise<Figures> {
  const lat: number[] = [];
  const start = performance.now();
  while (performance.now() - start < ms || lat.length < 20) {
    const t0 = performance.now();
    await fn();
    lat.push(performance.now() - t0);
  }
  return figures(lat, performance.now() - start);
}

/** Listing with many tools: 10 upstreams x 100 extra tools in gateway mode (mcpx_tools), and one
 *  pass-through upstream with 100 extra tools (tools/list, every page). Cold = first call after the
 *  daemon printed its listening line (it starts the upstreams); warm = later calls, one client. */
async function catalogue(
  r: Results,
  ms: number,
  tmp: string,
  envWith: (state: string) => NodeJS.ProcessEnv,
): Promise<void> {
  const warmMs = Math.max(500, ms / 2);
  const ten = Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => [`s${i}`, ['--tools', '100', '--name', `s${i}`]]),
  );
  const gwCfg = writeConfig(tmp, 'ten.json', ten, {});
  const m = await launch(
    'mcpx daemon (10 upstreams)',
    [cli, 'daemon', '--port', '0', '--config', gwCfg],
    /listening on (\S+)/,
    envWith(join(tmp, 'state-ten')),
  );
  const c = new HttpClient(new URL(m.match), ACCEPT_JSON);
  const body = call('mcpx_tools', {});
  let t0 = performance.now();
  const first = await c.post(body(1));
  const cold = performance.now() - t0;
  const n = toolsIn(first);
  if (n.errors || n.tools < 1000)
    throw new Error(`mcpx_tools: ${n.tools} tools, ${n.errors} errors: ${first.body.slice(0, 300)}`);
  const warm = await repeat(warmMs, async () => {
    const a = await c.post(body(2));
    if (a.status !== 200 || !a.body.includes('"result"')) throw new Error(`mcpx_tools: ${a.body.slice(0, 300)}`);
  });
  r.catalogue.push({
    what: 'mcpx: tools/call mcpx_tools {} (gateway mode, 10 upstreams x 100 extra tools)',
    cold,
    warm,
    note: `${n.tools} tools, ${(first.body.length / 1024).toFixed(0)} kB answer`,
  });
  c.close();
  await stopProc(m);

  const onePt = writeConfig(tmp, 'hundred.json', { echo: ['--tools', '100'] }, { 'mcp.passthrough': ['echo'] });
  const p = await launch(
    'mcpx daemon (100 tools)',
    [cli, 'daemon', '--port', '0', '--config', onePt],
    /listening on (\S+)/,
    envWith(join(tmp, 'state-hundred')),
  );
  const pc = new HttpClient(new URL(p.match), ACCEPT_JSON);
  t0 = performance.now();
  const shape = await listAll(pc, 1);
  const coldList = performance.now() - t0;
  const warmList = await repeat(warmMs, async () => void (await listAll(pc, 2)));
  r.catalogue.push({
    what: 'mcpx: tools/list, every page (pass-through of 1 upstream with 100 extra tools)',
    cold: coldList,
    warm: warmList,
    note: `${shape.tools} tools in ${shape.pages} page(s) (mcp.pageSize 100)`,
  });
  // A call while pass-through lists 100+ tools: the price of the per-call lookup.
  await clientsLoad([pc], echoCall, WARM_MS, okEcho);
  const callF = await clientsLoad([pc], echoCall, warmMs, okEcho);
  r.catalogue.push({
    what: `mcpx: tools/call echo, same daemon (pass-through of ${shape.tools} tools)`,
    warm: callF,
    note: 'compare with the 1-client sessionless mcpx row',
  });
  pc.close();
  await stopProc(p);

  const d = await startStdioEcho(['--tools', '100']);
  const dl = await repeat(warmMs, async () => {
    const line = await d.rpc.request('tools/list', {});
    if (!line.includes('"tools"')) throw new Error(`tools/list direct: ${line.slice(0, 300)}`);
  });
  r.catalogue.push({ what: 'upstream direct (stdio): tools/list (100 extra tools)', warm: dl, note: 'one page' });
  d.proc.child.stdin!.end();
  await stopProc(d.proc);
  for (const x of r.catalogue)
    say(`${x.what}: cold ${x.cold?.toFixed(1) ?? '-'} ms; warm ${x.warm ? fmt(x.warm) : '-'} (${x.note})`);
}

/** Spawn to listening line, and spawn to the first tools/call answered through the upstream. */
async function coldStart(
  r: Results,
  tmp: string,
  passCfg: string,
  envWith: (state: string) => NodeJS.ProcessEnv,
): Promise<void> {
  const floorRuns: number[] = [];
  const bareRuns: number[] = [];
  const listenFresh: number[] = [];
  const callFresh: number[] = [];
  const listenCached: number[] = [];
  const callCached: number[] = [];
  const proxyRuns: number[] = [];
  const upstreamRuns: number[] = [];
  const cachedState = join(tmp, 'state-cold-cached');
  for (let i = 0; i < COLD_RUNS; i++) {
    let t0 = performance.now();
    execFileSync(node, ['-e', '0']);
    bareRuns.push(performance.now() - t0);
    t0 = performance.now();
    const f = await launch('floor', [floorJs], /listening on (\S+)/, process.env);
    floorRuns.push(performance.now() - t0);
    await stopProc(f);
    t0 = performance.now();
    const u = await startStdioEcho();
    upstreamRuns.push(performance.now() - t0);
    u.proc.child.stdin!.end();
    await stopProc(u.proc);
    // i = 0 fills cachedState's era and code caches; it is not counted as a later start.
    for (const [state, listen, first] of [
      [join(tmp, `state-cold-${i}`), listenFresh, callFresh],
      [cachedState, listenCached, callCached],
    ] as const) {
      t0 = performance.now();
      const m = await launch(
        'mcpx daemon (cold)',
        [cli, 'daemon', '--port', '0', '--config', passCfg],
        /listening on (\S+)/,
        envWith(state),
      );
      const tl = performance.now() - t0;
      const c = new HttpClient(new URL(m.match), ACCEPT_JSON);
      const a = await c.post(echoCall(1));
      const tc = performance.now() - t0;
      if (!okEcho(a)) throw new Error(`cold mcpx call: HTTP ${a.status} ${a.body.slice(0, 300)}`);
      c.close();
      await stopProc(m);
      if (state === cachedState && i === 0) continue;
      listen.push(tl);
      first.push(tc);
    }
  }
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const t0 = performance.now();
    const p = await launch(
      'mcp-proxy (cold)',
      [proxyBin, '--host', '127.0.0.1', '--port', String(port), '--', node, fixture, '--rev', REV],
      'none',
      process.env,
    );
    while ((await probeGet(`http://127.0.0.1:${port}/ping`)) !== 200) {
      if (performance.now() - t0 > 20_000 || p.child.exitCode !== null)
        throw new Error(`mcp-proxy did not come up: ${p.tail()}`);
      await new Promise((res) => setTimeout(res, 5));
    }
    const s = await openSession(`http://127.0.0.1:${port}/mcp`);
    const a = await s.post(echoCall(1));
    proxyRuns.push(performance.now() - t0);
    if (!okEcho(a)) throw new Error(`cold mcp-proxy call: HTTP ${a.status} ${a.body.slice(0, 300)}`);
    await closeSession(s);
    await stopProc(p);
  }
  r.cold.push(
    { what: 'bare `node -e 0`: spawn → exit', runs: bareRuns },
    { what: 'node floor.js: spawn → listening line (Node itself)', runs: floorRuns },
    { what: 'the upstream alone: spawn → initialize answered on stdio', runs: upstreamRuns },
    { what: 'mcpx daemon, first start: spawn → listening line', runs: listenFresh },
    { what: 'mcpx daemon, first start: spawn → first tools/call answered by the upstream', runs: callFresh },
    { what: 'mcpx daemon, later start (era and code caches filled): spawn → listening line', runs: listenCached },
    { what: 'mcpx daemon, later start: spawn → first tools/call answered', runs: callCached },
    { what: `mcp-proxy ${PROXY_VERSION}: spawn → /ping → initialize → first tools/call answered`, runs: proxyRuns },
  );
  for (const c of r.cold)
    say(`cold ${c.what}: median ${median(c.runs).toFixed(0)} ms (${c.runs.map((x) => x.toFixed(0)).join(', ')})`);
}

// ---- the report -----------------------------------------------------------------------------------------

/** The profile's top functions by self time, where mcpx's busy time goes at one client. */
function profileLines(r: Results): string[] {
  if (!r.profile) return [];
  const { top, busyMs, ms } = r.profile;
  return [
    '### Where mcpx spends its time at one client (CPU profile)',
    '',
    `\`node --cpu-prof\` on a daemon of its own, one sessionless client calling echo: the samples of ${(ms / 1000).toFixed(1)} s after`,
    `a warm-up (start-up and shutdown left out), ${busyMs.toFixed(0)} ms busy. The top ${top.length} functions by self time (dist/mcpx.js`,
    "is minified for whitespace and syntax only, so a function's name is the source's; the line is the bundle's):",
    '',
    '| function | self ms | share of busy |',
    '| --- | --- | --- |',
    ...top.map((x) => `| \`${x.what.replace(/\|/g, '\\|')}\` | ${x.ms.toFixed(0)} | ${(x.share * 100).toFixed(1)}% |`),
    '',
  ];
}

/** Each ratio target taken within each alternation: its median and spread (bench/verdict.ts). */
function targetSpreads(r: Results) {
  const at = (n: number) => r.alts.cells.get(n)!;
  return {
    fwdP50: ratioSpread(at(1), (f) => f('mcpx').p50 / f('forward').p50),
    fwdP50Session: ratioSpread(at(1), (f) => f('mcpxSession').p50 / f('forward').p50),
    fwdFetch: ratioSpread(r.alts.fetch, (f) => f('mcpx').p50 / f('forward').p50),
    fwdRps: ([16, 64] as const).map((n) => ({ n, s: ratioSpread(at(n), (f) => f('mcpx').rps / f('forward').rps) })),
    proxy: CONCURRENCY.map((n) => ({
      n,
      session: ratioSpread(at(n), (f) => f('mcpxSession').rps / f('proxy').rps),
      sessionless: ratioSpread(at(n), (f) => f('mcpx').rps / f('proxy').rps),
    })),
    big: ratioSpread(r.alts.big, (f) => f('mcpx').p50 / f('stdio').p50),
  };
}

function report(r: Results): string[] {
  const cell = (kind: Kind, clients: number) => r.cells.find((c) => c.kind === kind && c.clients === clients)!.f;
  const mb = (kb: number) => (kb / 1024).toFixed(1);
  const p50Ratio = cell('mcpx', 1).p50 / cell('floor', 1).p50;
  const fwdRatio = cell('forward', 1).p50 / cell('floor', 1).p50;
  const onFetch = (kind: Kind) => r.fetch.find((x) => x.kind === kind)!.f;
  const fetchRatio = onFetch('mcpx').p50 / onFetch('floor').p50;
  const fetchFwdRatio = onFetch('forward').p50 / onFetch('floor').p50;
  const rss64 = r.rss[1]!.mcpxKb;
  const rssLoaded = r.rss[2]!.mcpxKb;
  const coldBare = median(r.cold[0]!.runs);
  const coldUpstream = median(r.cold[2]!.runs);
  const coldFirstCall = median(r.cold[4]!.runs);
  const coldCall = median(r.cold[6]!.runs);
  const coldListen = median(r.cold[5]!.runs);
  const coldShare = coldCall - coldBare - coldUpstream;
  const bigDirect = r.big.find((b) => b.what === LABEL.stdio)!.f.p50;
  const bigMcpx = r.big.find((b) => b.what === LABEL.mcpx)!.f.p50;
  const met = (ok: boolean) => (ok ? '**met**' : '**not met**');
  const t = targetSpreads(r);
  const lines = [
    '## Gateway (bench/gateway.ts)',
    '',
    `Written by \`npm run bench\` on ${r.date}, ${r.ms} ms per cell (BENCH_MS), on ${cpus().length} cores (1-minute load average ${r.load[0].toFixed(2)} before,`,
    `${r.load[1].toFixed(2)} after: other work shares this machine, so read ratios, not absolute numbers). Before the first cell every`,
    `path answers ${JIT_CALLS} calls at 16 clients (or runs ${JIT_MAX_MS / 1000} s), for the JIT; each cell has ${WARM_MS} ms of warm-up, then the paths of`,
    `one cell take turns in ${SLICE_MS} ms slices until each has run BENCH_MS, so that load from elsewhere falls on all alike. mcpx is`,
    `dist/cli.js as built from ${r.revision}. Every process binds 127.0.0.1. The upstream is the fixture server (\`test/fixtures/upstream\`, revision 2025-11-25) over stdio, tool`,
    '`echo {text:"hello"}`. HTTP clients are keep-alive, one connection per client, back to back; they speak 2025-03-26.',
    'mcpx runs as `mcpx daemon --port 0` with the upstream in `mcp.passthrough`, so `tools/call echo` goes straight to it.',
    `mcp-proxy ${PROXY_VERSION} runs as \`mcp-proxy --host 127.0.0.1 --port N -- node server.js …\` (its defaults otherwise; it`,
    'answers POSTs as SSE). It needs a session, so each of its clients does initialize + notifications/initialized first (not',
    'timed) and sends its Mcp-Session-Id after. For the comparison mcpx is measured the same way (one legacy session per',
    'client, `Accept: application/json, text/event-stream`), and also sessionless (`Accept: application/json`), which is',
    'the row compared with the floor. The floor answers `{}` to anything over node:http, driven by the same client.',
    '',
    '### Targets',
    '',
    '| target | measured | verdict |',
    '| --- | --- | --- |',
    `| p50 at 1 client at most 1.25x the forward-only gateway (node:http client), sessionless | ${spreadShown(t.fwdP50)}: mcpx ${cell('mcpx', 1).p50.toFixed(3)} ms / forward-only ${cell('forward', 1).p50.toFixed(3)} ms (against the HTTP floor: ${p50Ratio.toFixed(2)}x; forward-only against the floor ${fwdRatio.toFixed(2)}x) | ${verdict(t.fwdP50, 1.25, 'atMost')} |`,
    `| the same, one legacy session | ${spreadShown(t.fwdP50Session)}: mcpx ${cell('mcpxSession', 1).p50.toFixed(3)} ms | ${verdict(t.fwdP50Session, 1.25, 'atMost')} |`,
    `| p50 at 1 client at most 1.15x the forward-only gateway (fetch client, as the official SDK) | ${spreadShown(t.fwdFetch)} (against the floor: mcpx ${fetchRatio.toFixed(2)}x, forward-only ${fetchFwdRatio.toFixed(2)}x) | ${verdict(t.fwdFetch, 1.15, 'atMost')} |`,
    `| calls/s at 16 and 64 clients at least 0.7x the forward-only gateway's | ${t.fwdRps.map((x) => `x${x.n}: ${spreadShown(x.s)}`).join(', ')} | ${verdictAll(
      t.fwdRps.map((x) => x.s),
      0.7,
      'atLeast',
    )} |`,
    `| calls/s at least 3x mcp-proxy's at 1, 16 and 64 clients | ${t.proxy.map((x) => `x${x.n}: ${spreadShown(x.session)}`).join(', ')} (session vs session); sessionless mcpx: ${t.proxy.map((x) => spreadShown(x.sessionless)).join(', ')} | ${verdictAll(
      t.proxy.map((x) => x.session),
      3,
      'atLeast',
    )} |`,
    `| a 1 MB result at most 1.3x the direct call | ${spreadShown(t.big)}: p50 mcpx ${bigMcpx.toFixed(2)} ms / direct ${bigDirect.toFixed(2)} ms | ${verdict(t.big, 1.3, 'atMost')} |`,
    `| mcpx's own share of a cold first answer at most 20 ms | later start, spawn → first tools/call answered ${coldCall.toFixed(0)} ms, less bare \`node -e 0\` ${coldBare.toFixed(0)} ms, less the upstream started alone ${coldUpstream.toFixed(0)} ms = ${coldShare.toFixed(0)} ms (spawn → listening ${coldListen.toFixed(0)} ms; a first start ${coldFirstCall.toFixed(0)} ms) | ${met(coldShare <= 20)} |`,
    `| at most 80 MB resident right after the 64-client load | ${mb(rssLoaded)} MB (64 legacy sessions open and idle: ${mb(rss64)} MB) | ${met(rssLoaded <= 80 * 1024)} |`,
    '| 1,000 idle legacy sessions at most 50 KB each | see "Idle sessions" below (bench/sessions.ts) | |',
    '',
    ...profileLines(r),
    '### tools/call echo',
    '',
    '| path | clients | calls/s | p50 ms | p99 ms | p50 / floor p50 | calls/s / mcp-proxy |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...CONCURRENCY.flatMap((n) =>
      KINDS.map((k) => {
        const f = cell(k, n);
        return `| ${LABEL[k]} | ${n} | ${f.rps.toFixed(0)} | ${f.p50.toFixed(3)} | ${f.p99.toFixed(3)} | ${(f.p50 / cell('floor', n).p50).toFixed(2)}x | ${(f.rps / cell('proxy', n).rps).toFixed(2)}x |`;
      }),
    ),
    '',
    'The forward-only gateway (bench/forwarder.ts) is the least any Node gateway of one stdio upstream can do: node:http in,',
    "the upstream's stdio out, ids mapped, nothing checked. It bounds what the p50 target can ask of mcpx on this machine.",
    '',
    '### One client on fetch',
    '',
    "The same calls from one client on `fetch` (undici), the way the official TypeScript SDK's HTTP client sends them; its",
    "own cost per request is larger than node:http's, and every path pays it alike.",
    '',
    '| path | calls/s | p50 ms | p99 ms | p50 / floor p50 |',
    '| --- | --- | --- | --- | --- |',
    ...r.fetch.map(
      (x) =>
        `| ${LABEL[x.kind]} | ${x.f.rps.toFixed(0)} | ${x.f.p50.toFixed(3)} | ${x.f.p99.toFixed(3)} | ${(x.f.p50 / onFetch('floor').p50).toFixed(2)}x |`,
    ),
    '',
    '### Resident memory (VmRSS of the gateway process alone, not its upstream)',
    '',
    `| when | mcpx MB | mcp-proxy ${PROXY_VERSION} MB |`,
    '| --- | --- | --- |',
    ...r.rss.map((x) => `| ${x.what} | ${mb(x.mcpxKb)} | ${mb(x.proxyKb)} |`),
    `| peak over the whole run (VmHWM) | ${mb(r.rssPeak.mcpxKb)} | ${mb(r.rssPeak.proxyKb)} |`,
    '',
    '### Listing many tools',
    '',
    'Pass-through of all 10 upstreams would fail the list (their built-in tools share names), so the 10-upstream case is',
    "gateway mode and `mcpx_tools` (every server's tools in one answer; plain tools/list there is only the gateway's own",
    'tools and touches no upstream). Cold: the first call after the listening line (it starts the upstreams and fetches',
    'their lists); warm: repeated, one client, lists cached by mcpx.',
    '',
    '| what | cold ms | warm p50 ms | warm p99 ms | note |',
    '| --- | --- | --- | --- | --- |',
    ...r.catalogue.map(
      (x) =>
        `| ${x.what} | ${x.cold?.toFixed(1) ?? '-'} | ${x.warm?.p50.toFixed(3) ?? '-'} | ${x.warm?.p99.toFixed(3) ?? '-'} | ${x.note} |`,
    ),
    '',
    '### A 1 MB result (tool `big`), one client',
    '',
    '| path | calls/s | p50 ms | p99 ms | p50 / direct p50 |',
    '| --- | --- | --- | --- | --- |',
    ...r.big.map(
      (b) =>
        `| ${b.what} | ${b.f.rps.toFixed(0)} | ${b.f.p50.toFixed(2)} | ${b.f.p99.toFixed(2)} | ${(b.f.p50 / r.big[0]!.f.p50).toFixed(2)}x |`,
    ),
    '',
    `### Cold start (${COLD_RUNS} runs each; mcp-proxy 3)`,
    '',
    'A first start has an empty state directory: mcpx probes the upstream with server/discover first (the fixture answers',
    '-32601 at once) and then initializes, and compiles its bundle. A later start finds the era cache (straight to',
    'initialize) and the code cache the previous start wrote (src/bin.ts). mcpx starts the upstream on the first call, so',
    'that call pays for a second Node start (the upstream-alone row). mcp-proxy starts its upstream before it listens; its',
    'time includes the initialize round trip its session needs.',
    '',
    '| what | median ms | runs ms |',
    '| --- | --- | --- |',
    ...r.cold.map(
      (c) => `| ${c.what} | ${median(c.runs).toFixed(0)} | ${c.runs.map((x) => x.toFixed(0)).join(', ')} |`,
    ),
    '',
  ];
  return lines;
}

// `node build/bench/gateway.js`: this part alone, its section on stdout (run.ts bundles this file too,
// so the check is on the script's name, not on require.main).
if (/gateway\.js$/.test(process.argv[1] ?? '')) {
  gatewayBench(size(3000, 200, 'BENCH_MS'))
    .then((lines) => process.stdout.write(lines.join('\n') + '\n'))
    .catch((e) => {
      process.stderr.write(`bench: ${(e as Error).stack}\n`);
      process.exit(1);
    });
}
