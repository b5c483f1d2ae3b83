// The gateway benchmark's section of docs/performance.md (bench/gateway.ts): each target's verdict from the
// alternations' spread (bench/verdict.ts), the CPU profile's top functions, and every table.
import { cpus } from 'node:os';
import { median } from './lib';
import { ratioSpread, shown as spreadShown, verdict, verdictAll } from './verdict';
import { PROXY_VERSION } from './gatewayProcs';
import {
  COLD_RUNS,
  CONCURRENCY,
  JIT_CALLS,
  JIT_MAX_MS,
  KINDS,
  type Kind,
  LABEL,
  type Results,
  SLICE_MS,
  WARM_MS,
} from './gatewayPaths';

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

export function report(r: Results): string[] {
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
