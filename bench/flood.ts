// The flood benchmark: 64 well-behaved clients (legacy sessions, sessionless legacy requests and
// 2026-07-28 requests, ids colliding across all of them) make 500 echo calls each through mcpx, first
// alone and then while one client floods (long batches, 2,000 concurrent calls, a fresh identity on
// every call). Every answer is checked against what its own client sent: none may be misrouted. The
// figures: the well-behaved clients' p99 with and without the flood, the gateway's process count and
// resident memory at their peaks. run.ts calls floodBench() and writes its section into
// docs/performance.md; `node build/bench/flood.js` runs it alone.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { descendants, figures, procStatusKb, size, stopTree } from './lib';
import { HttpClient } from './clients';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const fixture = join(root, 'build', 'test', 'fixtures', 'upstream', 'server.js');
const CLIENTS = 64;
const CALLS = size(500, 10, 'FLOOD_CALLS');
const FLOOD_CONCURRENT = size(2000, 200);
const MODERN = '2026-07-28';

type Kind = 'session' | 'sessionless' | 'modern';
const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json' };

interface Client {
  kind: Kind;
  http: HttpClient;
  n: number;
}

function body(kind: Kind, id: number | string, text: string, meta: Record<string, unknown> = {}): string {
  const params: Record<string, unknown> = { name: 'echo', arguments: { text } };
  if (kind === 'modern') {
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': {},
      ...meta,
    };
  }
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });
}

const modernHeaders = {
  ...JSON_HEADERS,
  'MCP-Protocol-Version': MODERN,
  'Mcp-Method': 'tools/call',
  'Mcp-Name': 'echo',
};

async function client(url: URL, kind: Kind, n: number): Promise<Client> {
  const http = new HttpClient(url, kind === 'modern' ? modernHeaders : JSON_HEADERS);
  if (kind === 'session') {
    const init = await http.post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: `c${n}`, version: '1' } },
      }),
    );
    const sid = init.headers['mcp-session-id'];
    if (typeof sid !== 'string') throw new Error(`no session: ${init.status} ${init.body.slice(0, 200)}`);
    http.headers['Mcp-Session-Id'] = sid;
    http.headers['MCP-Protocol-Version'] = '2025-11-25';
    await http.post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  }
  return { kind, http, n };
}

/** CALLS calls, one at a time, ids 1..CALLS (the same ids in every client); each answer is checked: one
 *  that is wrong, or missing after 30 s, counts as misrouted. */
async function behave(c: Client, latencies: number[]): Promise<number> {
  let misrouted = 0;
  for (let i = 1; i <= CALLS; i++) {
    const text = `client ${c.n} call ${i}`;
    const t0 = performance.now();
    const a = await c.http.post(body(c.kind, i, text)).catch(() => ({ status: 0, body: '' }));
    latencies.push(performance.now() - t0);
    const ok = a.status === 200 && a.body.includes(`"id":${i},`) && a.body.includes(JSON.stringify(text).slice(1, -1));
    if (!ok) misrouted++;
  }
  return misrouted;
}

/** The flooding client: batches as long as the gateway takes, 2,000 calls at once, a fresh identity on
 *  every call, until told to stop. Refusals are expected; what it gets is counted, not checked. */
async function flood(url: URL, stop: () => boolean): Promise<{ sent: number; refused: number }> {
  let sent = 0;
  let refused = 0;
  const batcher = new HttpClient(url, JSON_HEADERS);
  const batch = JSON.stringify(Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })));
  const loops: Array<Promise<void>> = [];
  loops.push(
    (async () => {
      while (!stop()) {
        const a = await batcher.post(batch).catch(() => ({ status: 0 }));
        sent++;
        if (a.status !== 200) refused++;
      }
    })(),
  );
  const wide = Array.from({ length: 64 }, () => new HttpClient(url, modernHeaders));
  let k = 0;
  for (let w = 0; w < FLOOD_CONCURRENT; w++) {
    const h = wide[w % wide.length]!;
    loops.push(
      (async () => {
        while (!stop()) {
          const id = k++;
          const meta = { 'dev.mcpx/session': `flood-${id}` };
          // Every other call goes to the per-identity server through mcpx_call.
          const text =
            id % 2 === 0
              ? body('modern', id, `flood ${id}`, meta)
              : JSON.stringify({
                  jsonrpc: '2.0',
                  id,
                  method: 'tools/call',
                  params: {
                    name: 'mcpx_call',
                    arguments: { server: 'solo', tool: 'echo', arguments: { text: `flood ${id}` } },
                    _meta: {
                      'io.modelcontextprotocol/protocolVersion': MODERN,
                      'io.modelcontextprotocol/clientCapabilities': {},
                      ...meta,
                    },
                  },
                });
          const a = await h.post(text, id % 2 === 0 ? {} : { 'Mcp-Name': 'mcpx_call' }).catch(() => ({ status: 0 }));
          sent++;
          if (a.status !== 200) refused++;
        }
      })(),
    );
  }
  await Promise.all(loops);
  batcher.close();
  for (const h of wide) h.close();
  return { sent, refused };
}

async function start(dir: string): Promise<{ child: ChildProcess; url: URL }> {
  const config = join(dir, 'flood.json');
  // `echo` is shared (the well-behaved clients' pass-through upstream); `solo` runs one instance per
  // identity, the kind a flood of fresh identities would multiply without a bound.
  const up = (scope: string) => ({ command: process.execPath, args: [fixture, '--rev', '2025-11-25'], scope });
  writeFileSync(
    config,
    JSON.stringify({
      servers: { echo: up('shared'), solo: up('identity') },
      settings: { 'mcp.passthrough': ['echo'] },
    }),
  );
  const child = spawn(process.execPath, [cli, 'daemon', '--port', '0', '--config', config], {
    env: { ...process.env, XDG_STATE_HOME: dir, XDG_CONFIG_HOME: dir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
  const found = /listening on (http:\/\/\S+)/.exec(line)?.[1];
  if (!found) throw new Error(`mcpx did not start: ${line}`);
  return { child, url: new URL(found) };
}

export interface FloodResult {
  quiet: ReturnType<typeof figures>;
  flooded: ReturnType<typeof figures>;
  misrouted: number;
  flood: { sent: number; refused: number };
  peakProcesses: number;
  peakRssKb: number;
}

export async function floodBench(): Promise<FloodResult> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-flood-'));
  const { child, url } = await start(dir);
  // Interrupted, the gateway (and through its reaper the upstreams) goes too.
  const onSignal = () => void stopTree(child).then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let peakProcesses = 0;
  let peakRssKb = 0;
  const sampler = setInterval(() => {
    peakProcesses = Math.max(peakProcesses, descendants(child.pid!).length);
    peakRssKb = Math.max(peakRssKb, procStatusKb(child.pid!, 'VmRSS'));
  }, 100);
  try {
    const kinds: Kind[] = ['session', 'sessionless', 'modern'];
    const run = async () => {
      const clients = await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(url, kinds[n % 3]!, n)));
      const latencies: number[] = [];
      const t0 = performance.now();
      const misrouted = (await Promise.all(clients.map((c) => behave(c, latencies)))).reduce((a, b) => a + b, 0);
      for (const c of clients) c.http.close();
      return { f: figures(latencies, performance.now() - t0), misrouted };
    };
    const quiet = await run();
    let stopped = false;
    const flooding = flood(url, () => stopped);
    await new Promise((r) => setTimeout(r, 500)); // the flood is under way before the clients start
    const flooded = await run();
    stopped = true;
    const f = await flooding;
    return {
      quiet: quiet.f,
      flooded: flooded.f,
      misrouted: quiet.misrouted + flooded.misrouted,
      flood: f,
      peakProcesses,
      peakRssKb,
    };
  } finally {
    clearInterval(sampler);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await stopTree(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

export function floodReport(r: FloodResult): string[] {
  const ratio = r.flooded.p99 / r.quiet.p99;
  return [
    '## Flood (bench/flood.ts)',
    '',
    `${CLIENTS} well-behaved clients (a third each: legacy session, sessionless legacy, 2026-07-28), ${CALLS} echo calls`,
    'each with ids 1..N colliding across all of them, every answer checked against its own call; then the same while one',
    `client floods: 1,000-message batches back to back, ${FLOOD_CONCURRENT} concurrent 2026-07-28 calls each naming a fresh`,
    'identity. The upstream is the fixture server over stdio in pass-through.',
    '',
    '| figure | value | target | verdict |',
    '| --- | --- | --- | --- |',
    `| answers misrouted | ${r.misrouted} | 0 | ${r.misrouted === 0 ? 'met' : '**not met**'} |`,
    `| well-behaved p99 without / with the flood | ${r.quiet.p99.toFixed(2)} ms / ${r.flooded.p99.toFixed(2)} ms (${ratio.toFixed(2)}x) | within 3x | ${ratio <= 3 ? 'met' : '**not met**'} |`,
    `| well-behaved p50 without / with the flood | ${r.quiet.p50.toFixed(2)} ms / ${r.flooded.p50.toFixed(2)} ms | | |`,
    `| flood requests sent / refused at a bound | ${r.flood.sent} / ${r.flood.refused} | | |`,
    `| gateway processes at the peak (mcpx's descendants) | ${r.peakProcesses} | under limits.instancesPerServer + wrappers | |`,
    `| mcpx RSS at the peak | ${(r.peakRssKb / 1024).toFixed(1)} MB | | |`,
    '',
  ];
}

// Run alone (`node build/bench/flood.js`); bundled into run.js it only exports (there `require.main` is
// the bundle itself, so it is not the test).
if (process.argv[1]?.endsWith('flood.js')) {
  floodBench()
    .then((r) => process.stdout.write(`${floodReport(r).join('\n')}\n`))
    .catch((e) => {
      process.stderr.write(`flood: ${(e as Error).stack}\n`);
      process.exit(1);
    });
}
