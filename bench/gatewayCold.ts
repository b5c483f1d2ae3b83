// The gateway benchmark's listing and cold-start parts (bench/gateway.ts): many tools listed cold and warm
// through mcpx and directly, and spawn to the first answer for mcpx, its upstream alone and mcp-proxy.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { type Figures, figures, fmt, freePort, median, probeGet } from './lib';
import { type HttpAnswer, HttpClient, clientsLoad } from './clients';
import {
  PROXY_VERSION,
  REV,
  bundles,
  launch,
  node,
  proxyBin,
  startStdioEcho,
  stopProc,
  writeConfig,
} from './gatewayProcs';
import {
  ACCEPT_JSON,
  COLD_RUNS,
  type Results,
  WARM_MS,
  call,
  closeSession,
  echoCall,
  okEcho,
  openSession,
  say,
} from './gatewayPaths';

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
export async function catalogue(
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
    [bundles.cli, 'daemon', '--port', '0', '--config', gwCfg],
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
    [bundles.cli, 'daemon', '--port', '0', '--config', onePt],
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
export async function coldStart(
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
    const f = await launch('floor', [bundles.floorJs], /listening on (\S+)/, process.env);
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
        [bundles.cli, 'daemon', '--port', '0', '--config', passCfg],
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
      [proxyBin, '--host', '127.0.0.1', '--port', String(port), '--', node, bundles.fixture, '--rev', REV],
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
