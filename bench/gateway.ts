// The gateway benchmark: tools/call through mcpx against the same upstream called directly, against
// the HTTP floor, and against mcp-proxy; list latency with many tools, a 1 MB result, cold start and
// resident memory. run.ts calls gatewayBench() after its own part and writes both into
// docs/performance.md; `node build/bench/gateway.js` runs this part alone and prints its section. Its
// parts: the processes (gatewayProcs.ts), the clients and paths (gatewayPaths.ts), listing and cold start
// (gatewayCold.ts), the report (gatewayReport.ts).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfTimes } from './profile';
import { fmt, freePort, probeGet, procStatusKb, size } from './lib';
import { HttpClient } from './clients';
import { catalogue, coldStart } from './gatewayCold';
import {
  REV,
  bundles,
  launch,
  node,
  proxyBin,
  root,
  running,
  snapshot,
  startStdioEcho,
  stopAll,
  stopProc,
  writeConfig,
} from './gatewayProcs';
import {
  ACCEPT_JSON,
  CONCURRENCY,
  FETCH_KINDS,
  JIT_CALLS,
  JIT_MAX_MS,
  KINDS,
  type Kind,
  LABEL,
  type Path,
  type Results,
  WARM_MS,
  bigCall,
  closeSession,
  echoCall,
  httpPath,
  okBigLine,
  okEcho,
  okEchoLine,
  openSession,
  say,
  takeTurns,
} from './gatewayPaths';
import { report } from './gatewayReport';

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

export async function gatewayBench(ms: number): Promise<string[]> {
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'mcpx-bench-')));
  // mcpx keeps its era cache under $XDG_STATE_HOME: a private one, so runs do not touch the user's.
  const envWith = (state: string): NodeJS.ProcessEnv => {
    mkdirSync(state, { recursive: true });
    return { ...process.env, XDG_STATE_HOME: state, XDG_CONFIG_HOME: join(tmp, 'config') };
  };
  // The copies sit in the project, so that a test bundle finds its packages (left external) in node_modules.
  const copies = mkdtempSync(join(root, '.bench-bundles-'));
  const onSignal = () =>
    void stopAll().then(() => {
      rmSync(copies, { recursive: true, force: true });
      process.exit(130);
    });
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
    await snapshot(copies);
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
    rmSync(copies, { recursive: true, force: true });
  }
  return report(r);
}

/** tools/call echo at 1, 16, 64 clients on every path; RSS with 64 sessions; the 1 MB result. */
async function matrix(r: Results, ms: number, passCfg: string, env: NodeJS.ProcessEnv): Promise<void> {
  const direct = await startStdioEcho();
  const floor = await launch('floor', [bundles.floorJs], /listening on (\S+)/, env);
  const forward = await launch(
    'forwarder',
    [bundles.forwarderJs, bundles.fixture, '--rev', REV],
    /listening on (\S+)/,
    env,
  );
  const mcpx = await launch(
    'mcpx daemon',
    [bundles.cli, 'daemon', '--port', '0', '--config', passCfg],
    /listening on (\S+)/,
    env,
  );
  const port = await freePort();
  const proxy = await launch(
    'mcp-proxy',
    [proxyBin, '--host', '127.0.0.1', '--port', String(port), '--', node, bundles.fixture, '--rev', REV],
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
    ['--cpu-prof', `--cpu-prof-dir=${dir}`, bundles.cli, 'daemon', '--port', '0', '--config', passCfg],
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

// `node build/bench/gateway.js`: this part alone, its section on stdout (run.ts bundles this file too,
// so the check is on the script's name, not on require.main).
if (/gateway\.js$/.test(process.argv[1] ?? '')) {
  gatewayBench(size(3000, 200, 'BENCH_MS'))
    .then((lines) => process.stdout.write(`${lines.join('\n')}\n`))
    .catch((e) => {
      process.stderr.write(`bench: ${(e as Error).stack}\n`);
      process.exit(1);
    });
}
