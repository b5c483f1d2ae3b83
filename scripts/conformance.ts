import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import {
  ROOT,
  BUNDLES,
  bundles,
  EXPECTED_DIR,
  RESULTS_DIR,
  PARALLEL,
  OWNERS,
  type Suite,
  SUITES,
  setWorkDir,
  cleanupAndExit,
  type Done,
  run,
  withoutSecret,
  startGateway,
  startFixture,
  suiteArgs,
} from './conformance/setup';
import {
  readExpected,
  bad,
  collect,
  tally,
  cell,
  judge,
  why,
  type Leg,
  scoredSet,
  clientScenarios,
} from './conformance/results';
import { type Baseline, sumCells, legName, writeDoc } from './conformance/report';

// ---------------------------------------------------------------------------------------------
// The runs
// ---------------------------------------------------------------------------------------------

function expectedFile(leg: 'server' | 'client', s: Suite, set: string): string {
  return join(EXPECTED_DIR, `${leg}-${s.version}${set === 'all' ? '' : `-${set}`}.yaml`);
}

const tail = (d: Done): string => (d.stdout + d.stderr).split('\n').slice(-25).join('\n');

async function serverLeg(
  work: string,
  s: Suite,
  set: string,
  args: string[],
  target: 'mcpx' | 'fixture',
  leg: Leg,
): Promise<void> {
  const dir = join(work, `server-${s.version}-${set}-${target}`);
  const server = target === 'mcpx' ? await startGateway(dir) : await startFixture(dir);
  const started = Date.now();
  try {
    const out = join(dir, 'results');
    const file = expectedFile('server', s, set);
    const extra = target === 'mcpx' ? ['--expected-failures', file] : [];
    const d = await run(suiteArgs(s, ['server', '--url', server.url, ...args, ...extra, '-o', out]), {
      timeoutMs: 900_000,
    });
    writeFileSync(join(dir, 'suite.log'), withoutSecret(`${d.stdout}\n--- stderr ---\n${d.stderr}`));
    const rs = collect(out, 'server');
    if (target === 'mcpx') {
      leg.mcpx = rs;
      leg.suiteExit.push({ what: `server ${args.join(' ')}`, code: d.code, timedOut: d.timedOut, tail: tail(d) });
    } else {
      leg.fixture = rs;
      leg.fixtureExit = { code: d.code, timedOut: d.timedOut, tail: tail(d) };
    }
    console.log(
      `  ${target === 'mcpx' ? 'mcpx   ' : 'fixture'}  server ${s.version} ${set}: ${cell(tally(rs))} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  } finally {
    await server.stop();
  }
}

async function clientScenario(work: string, s: Suite, set: string, scenario: string, leg: Leg): Promise<void> {
  const dir = join(work, `client-${s.version}-${set}`);
  mkdirSync(dir, { recursive: true });
  const out = join(dir, 'results');
  const spec = /^\d{4}-\d{2}-\d{2}$/.test(set) ? ['--spec-version', set] : [];
  const command = `${process.execPath} ${bundles.client}`;
  const d = await run(
    suiteArgs(s, [
      'client',
      '--command',
      command,
      '--scenario',
      scenario,
      ...spec,
      '--expected-failures',
      expectedFile('client', s, set),
      '-o',
      out,
    ]),
    {
      timeoutMs: 180_000,
    },
  );
  writeFileSync(join(dir, `${scenario.replace(/\//g, '-')}.log`), `${d.stdout}\n--- stderr ---\n${d.stderr}`);
  leg.suiteExit.push({ what: `client --scenario ${scenario}`, code: d.code, timedOut: d.timedOut, tail: tail(d) });
}

/** Runs tasks, at most `n` at once, longest first as given. */
async function pool(tasks: Array<() => Promise<void>>, n: number): Promise<unknown[]> {
  const errors: unknown[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const t = tasks[next++]!;
      await t().catch((e: unknown) => void errors.push(e));
    }
  };
  await Promise.all(Array.from({ length: n }, worker));
  return errors;
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const started = Date.now();
  for (const f of Object.values(BUNDLES))
    if (!existsSync(f))
      throw new Error(
        `${relative(ROOT, f)} is missing: run \`node esbuild.mjs --tests\` first (npm run conformance does)`,
      );
  for (const s of Object.values(SUITES)) {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules', s.pkg, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
    };
    if (pkg.name !== '@modelcontextprotocol/conformance' || pkg.version !== s.version) {
      throw new Error(
        `node_modules/${s.pkg} is ${pkg.name}@${pkg.version}, not @modelcontextprotocol/conformance@${s.version}: run npm ci`,
      );
    }
  }
  const baseline = JSON.parse(readFileSync(join(ROOT, 'test', 'conformance', 'sdk-baseline.json'), 'utf8')) as Baseline;
  // Every run's config, state, logs and checks.json files live in a directory of its own (workDir).
  const work = mkdtempSync(join(tmpdir(), 'mcpx-conformance-'));
  setWorkDir(work);
  const bin = join(work, 'bin');
  mkdirSync(bin);
  for (const [k, f] of Object.entries(BUNDLES)) {
    copyFileSync(f, join(bin, `${k}.js`));
    if (existsSync(`${f}.map`)) copyFileSync(`${f}.map`, join(bin, `${k}.js.map`));
  }
  bundles.fixture = join(bin, 'fixture.js');
  bundles.client = join(bin, 'client.js');
  bundles.cli = join(bin, 'cli.js');
  if (/\s/.test(process.execPath + bundles.client))
    throw new Error('the suite splits --command on spaces: node and the temporary directory need paths without spaces');
  console.log(`conformance: working in ${work}; logs and results go to ${relative(ROOT, RESULTS_DIR)}/`);

  const legs: Leg[] = [];
  const leg = (l: Omit<Leg, 'mcpx' | 'entries' | 'suiteExit'>): Leg => {
    const full: Leg = {
      ...l,
      mcpx: [],
      suiteExit: [],
      entries: readExpected(expectedFile(l.leg, l.suite, l.set), l.leg, l.suite.key === 'stable'),
    };
    legs.push(full);
    return full;
  };
  const tasks: Array<() => Promise<void>> = [];

  // Server leg: the long 2026-07-28 run first.
  const serverRuns: Array<{ s: Suite; set: string; args: string[] }> = [
    { s: SUITES.alpha, set: '2026-07-28', args: ['--requirements', '2026-07-28'] },
    { s: SUITES.alpha, set: '2025-11-25', args: ['--requirements', '2025-11-25'] },
    { s: SUITES.stable, set: 'all', args: ['--suite', 'all'] },
  ];
  const serverLegs = serverRuns.map((r) => ({
    r,
    l: leg({ leg: 'server', suite: r.s, set: r.set, scored: r.set === 'all' ? undefined : scoredSet(r.set, 'server') }),
  }));
  for (const { r, l } of serverLegs) tasks.push(() => serverLeg(work, r.s, r.set, r.args, 'mcpx', l));
  for (const { r, l } of serverLegs) tasks.push(() => serverLeg(work, r.s, r.set, r.args, 'fixture', l));

  // Client leg: every scenario, the authorization ones included; the alpha ones at each revision they
  // apply to (2025-03-26 has authorization scenarios only; 2025-06-18's are 2025-11-25's too).
  const [stableList, alphaList] = await Promise.all([clientScenarios(SUITES.stable), clientScenarios(SUITES.alpha)]);
  const clientPlan: Array<{ s: Suite; set: string; scenarios: string[] }> = [
    { s: SUITES.stable, set: 'all', scenarios: stableList.map((c) => c.name) },
    ...['2025-03-26'].map((set) => ({
      s: SUITES.alpha,
      set,
      scenarios: alphaList
        .filter((c) => c.name.startsWith('auth/') && c.tags.includes(set) && !c.tags.includes('2025-11-25'))
        .map((c) => c.name),
    })),
    ...['2025-11-25', '2026-07-28', 'extension'].map((set) => ({
      s: SUITES.alpha,
      set,
      scenarios: alphaList.filter((c) => c.tags.includes(set)).map((c) => c.name),
    })),
  ];
  const clientLegs: Array<{ l: Leg; dir: string }> = [];
  for (const c of clientPlan) {
    const l = leg({
      leg: 'client',
      suite: c.s,
      set: c.set,
      scored: c.set === '2025-11-25' || c.set === '2026-07-28' ? scoredSet(c.set, 'client') : undefined,
    });
    clientLegs.push({ l, dir: join(work, `client-${c.s.version}-${c.set}`, 'results') });
    for (const sc of c.scenarios) tasks.push(() => clientScenario(work, c.s, c.set, sc, l));
  }

  const errors = await pool(tasks, PARALLEL);
  for (const { l, dir } of clientLegs) {
    l.mcpx = collect(dir, 'client');
    console.log(`  mcpx     client ${l.suite.version} ${l.set}: ${cell(tally(l.mcpx))} (${l.mcpx.length} scenarios)`);
  }

  // Verdicts.
  const problems: string[] = [
    ...errors.map((e) => `a run failed to complete: ${e instanceof Error ? e.message : String(e)}`),
  ];
  for (const l of legs) {
    l.verdict = judge(l.mcpx, l.entries);
    const name = legName(l);
    for (const u of l.verdict.unexpected) problems.push(`${name}: unexpected ${why(l.mcpx, u)} [${u}]`);
    for (const st of l.verdict.stale)
      problems.push(`${name}: ${st} now passes: remove it from ${relative(ROOT, expectedFile(l.leg, l.suite, l.set))}`);
    for (const k of l.verdict.unknown) problems.push(`${name}: ${k} is listed but its scenario did not run`);
    if (l.mcpx.length === 0) problems.push(`${name}: no results`);
    for (const x of l.suiteExit) {
      if (x.timedOut) problems.push(`${name}: ${x.what} timed out`);
      else if (x.code !== 0 && l.verdict.unexpected.length === 0 && l.verdict.stale.length === 0) {
        problems.push(
          `${name}: the suite's own expected-failures verdict disagrees (${x.what} exited ${x.code}):\n${x.tail}`,
        );
      }
    }
    if (l.fixture) {
      const f = l.fixture.flatMap((r) =>
        r.checks.filter(bad).map((c) => `${r.scenario}:${c.id} ${c.status} ${c.errorMessage ?? ''}`),
      );
      for (const x of f) problems.push(`${name}: the fixture alone fails ${x}`);
      if (l.fixture.length === 0 || l.fixtureExit?.code !== 0)
        problems.push(
          `${name}: the fixture alone did not pass (exit ${l.fixtureExit?.code}):\n${l.fixtureExit?.tail ?? ''}`,
        );
    }
  }

  writeDoc(legs, baseline);

  // Summary.
  const rows = legs.map((l) => {
    const t = tally(l.mcpx);
    const key = `${l.suite.version}/${l.set}`;
    const b =
      l.leg === 'server'
        ? (baseline.server[key]?.cells._checks ?? '–')
        : baseline.client[key]
          ? sumCells(baseline.client[key]!.cells)
          : '–';
    return [
      legName(l),
      cell(t),
      `${t.clean}/${t.scenarios}`,
      l.scored ? cell(tally(l.mcpx.filter((r) => l.scored!.has(r.scenario)))) : '–',
      l.fixture ? cell(tally(l.fixture)) : '–',
      b,
      `${l.verdict!.expected.length}`,
    ];
  });
  const head = [
    'leg · suite · set',
    'mcpx passed/failed',
    'clean scenarios',
    'scored',
    'fixture alone',
    'reference SDK',
    'expected',
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]): string => r.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(`\n${fmt(head)}`);
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(fmt(r));
  const byOwner = OWNERS.map(
    (o) => `${o}: ${legs.reduce((n, l) => n + l.entries.filter((e) => e.owner === o).length, 0)}`,
  ).join(', ');
  console.log(`\nexpected failures by owner: ${byOwner}`);
  console.log(`docs/conformance.md written; ${((Date.now() - started) / 1000).toFixed(0)} s in all`);
  if (problems.length) {
    console.log(`\nconformance FAILED (${problems.length}):`);
    for (const p of problems) console.log(`  - ${p}`);
    return 1;
  }
  console.log('conformance passed: every failure is an expected one and every expected one still fails');
  return 0;
}

main().then(
  (code) => cleanupAndExit(code),
  (e: unknown) => {
    console.error(`conformance: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    cleanupAndExit(1);
  },
);
