// The gateway benchmark's clients (bench/gateway.ts): the messages, a legacy session opened and closed, the
// paths a call takes (each kind of gateway with N clients) and their turns, and the results' shapes.
import type { SelfTime } from './profile';
import { ALTERNATIONS } from './verdict';
import { type Figures, shown, size } from './lib';
import { type HttpAnswer, FetchClient, HttpClient, type Poster, type Run, Samples, clientsRun } from './clients';
import { PROXY_VERSION } from './gatewayProcs';

export const CLIENT_REV = '2025-03-26'; // what the benchmark clients speak: headerless, sessionless on mcpx
export const CONCURRENCY = [1, 16, 64] as const;
export const WARM_MS = size(300, 50);
/** Turns of the paths within one cell (see takeTurns). */
export const SLICE_MS = size(500, 100);
/** Before the first cell every path answers this many calls (or runs this long): the JIT's warm-up. */
export const JIT_CALLS = size(5000, 50);
export const JIT_MAX_MS = size(4000, 300);
// At least 2: the first start fills the cache a later one is measured with.
export const COLD_RUNS = size(9, 2);

export const say = (s: string) => process.stdout.write(`gateway: ${s}\n`);

const json = { 'Content-Type': 'application/json' };
export const ACCEPT_JSON = { ...json, Accept: 'application/json' };
export const ACCEPT_BOTH = { ...json, Accept: 'application/json, text/event-stream' };
export const call = (name: string, args: Record<string, unknown>) => (id: number) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
export const echoCall = call('echo', { text: 'hello' });
export const bigCall = call('big', {});
const initialize = (rev: string) => (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: rev, capabilities: {}, clientInfo: { name: 'mcpx-bench', version: '0' } },
  });
export const okEcho = (a: HttpAnswer) =>
  a.status === 200 && a.body.includes('"text":"hello"') && !a.body.includes('"error"');
export const okFloor = (a: HttpAnswer) => a.status === 200 && a.body.includes('"result"');
export const okBig = (a: HttpAnswer) => a.status === 200 && a.body.length > 1_000_000 && a.body.includes('"result"');
export const okEchoLine = (l: string) => l.includes('"text":"hello"') && !l.includes('"error"');
export const okBigLine = (l: string) => l.length > 1_000_000 && l.includes('"result"');

/** One client with a legacy (2025-03-26) session: initialize, its Mcp-Session-Id on every later request,
 *  notifications/initialized. */
export async function openSession(url: string): Promise<HttpClient> {
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

export async function closeSession(c: HttpClient): Promise<void> {
  const a = await c.send('DELETE');
  c.close();
  if (a.status >= 300) throw new Error(`DELETE session at ${shown(c.url)}: HTTP ${a.status} ${a.body.slice(0, 300)}`);
}

/** One way of calling the tool with a fixed number of clients, ready to run. */
export interface Path {
  kind: Kind;
  run(ms: number): Promise<Run>;
  close(): Promise<void>;
}

/** `clients` HTTP clients on `url`: with a session each for mcpxSession and proxy, sessionless otherwise. */
export async function httpPath(
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
export async function takeTurns(paths: Path[], ms: number): Promise<Turns> {
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

export interface Turns {
  /** Every slice of each path added up. */
  pooled: Map<Kind, Figures>;
  /** Each alternation's figures. */
  alts: Array<Map<Kind, Figures>>;
}

export type Kind = 'stdio' | 'floor' | 'forward' | 'mcpx' | 'mcpxSession' | 'proxy';
export const KINDS = ['stdio', 'floor', 'forward', 'mcpx', 'mcpxSession', 'proxy'] as const;
/** The paths measured again with one client on fetch. */
export const FETCH_KINDS = ['floor', 'forward', 'mcpx'] as const;
export const LABEL: Record<Kind, string> = {
  stdio: 'upstream direct (stdio pipe, N in flight)',
  floor: 'HTTP floor (bench/floor.ts)',
  forward: 'forward-only gateway (bench/forwarder.ts), same upstream',
  mcpx: 'mcpx, sessionless (2025-03-26 headerless)',
  mcpxSession: 'mcpx, one legacy session per client',
  proxy: `mcp-proxy ${PROXY_VERSION}, one session per client`,
};

export interface Cell {
  kind: Kind;
  clients: number;
  f: Figures;
}

export interface Rss {
  what: string;
  mcpxKb: number;
  proxyKb: number;
}

export interface Results {
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
