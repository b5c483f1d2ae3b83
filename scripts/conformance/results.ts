import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT, OWNERS, type Owner, type Suite, SUITES, run, suiteArgs } from './setup';

// ---------------------------------------------------------------------------------------------
// Expected failures: the suite's format, plus an owner and a reason in each entry's comment
// ---------------------------------------------------------------------------------------------

export interface Entry {
  entry: string;
  scenario: string;
  check?: string;
  owner: Owner;
  reason: string;
  line: number;
}

export function readExpected(file: string, leg: 'server' | 'client', wholeOnly: boolean): Entry[] {
  if (!existsSync(file)) throw new Error(`missing expected-failures file ${relative(ROOT, file)}`);
  const out: Entry[] = [];
  let section = '';
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((raw, i) => {
      const line = raw.replace(/\s+$/, '');
      if (line === '' || /^\s*#/.test(line)) return;
      const top = /^([A-Za-z_]+):\s*(\[\])?\s*(#.*)?$/.exec(line);
      if (top) {
        section = top[1]!;
        if (section !== leg) throw new Error(`${relative(ROOT, file)}:${i + 1}: only a '${leg}:' list belongs here`);
        return;
      }
      const m = /^\s+-\s+(\S+)\s+#\s*(.*)$/.exec(line);
      if (!m || section !== leg)
        throw new Error(
          `${relative(ROOT, file)}:${i + 1}: expected '  - <scenario>[:<check-id>]  # <owner>: <reason>'`,
        );
      const [, entry, comment] = m as unknown as [string, string, string];
      const owner = OWNERS.find((o) => comment.startsWith(`${o}:`));
      if (!owner)
        throw new Error(
          `${relative(ROOT, file)}:${i + 1}: the comment must start with one of ${OWNERS.map((o) => `'${o}:'`).join(', ')}`,
        );
      const reason = comment.slice(owner.length + 1).trim();
      if (!reason) throw new Error(`${relative(ROOT, file)}:${i + 1}: no reason given`);
      const colon = entry.indexOf(':');
      if (colon >= 0 && wholeOnly)
        throw new Error(
          `${relative(ROOT, file)}:${i + 1}: this suite version takes whole scenarios only (no ':<check-id>')`,
        );
      out.push({
        entry,
        scenario: colon >= 0 ? entry.slice(0, colon) : entry,
        check: colon >= 0 ? entry.slice(colon + 1) : undefined,
        owner,
        reason,
        line: i + 1,
      });
    });
  const whole = new Set(out.filter((e) => !e.check).map((e) => e.scenario));
  for (const e of out) {
    if (e.check && whole.has(e.scenario))
      throw new Error(`${relative(ROOT, file)}:${e.line}: ${e.scenario} is listed whole; ${e.entry} is redundant`);
    if (out.filter((x) => x.entry === e.entry).length > 1)
      throw new Error(`${relative(ROOT, file)}:${e.line}: ${e.entry} is listed twice`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------------

export interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}
export interface Scenario {
  scenario: string;
  checks: Check[];
}

export const bad = (c: Check): boolean => c.status === 'FAILURE' || c.status === 'WARNING';

/** The scenarios of one output directory (`[server-]<scenario>-<time>/checks.json`). A directory
 *  without checks.json is a scenario that threw: one failure, as the suite counts it. */
export function collect(dir: string, leg: 'server' | 'client'): Scenario[] {
  if (!existsSync(dir)) return [];
  const out: Scenario[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (!statSync(p).isDirectory()) continue;
    // A scenario named with a folder (auth/…) writes its results one level down.
    if (!/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.test(name)) {
      out.push(...collect(p, leg).map((r) => ({ ...r, scenario: `${name}/${r.scenario}` })));
      continue;
    }
    let scenario = name.replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    if (leg === 'server') scenario = scenario.replace(/^server-/, '');
    const file = join(p, 'checks.json');
    let checks: Check[];
    try {
      const v: unknown = JSON.parse(readFileSync(file, 'utf8'));
      checks = Array.isArray(v) ? (v as Check[]) : [];
    } catch {
      checks = [{ id: 'ERR', status: 'FAILURE', errorMessage: 'the scenario threw: no checks.json was written' }];
    }
    out.push({ scenario, checks });
  }
  return out.sort((a, b) => a.scenario.localeCompare(b.scenario));
}

export interface Tally {
  passed: number;
  failed: number;
  warnings: number;
  skipped: number;
  scenarios: number;
  clean: number;
}

export function tally(rs: Scenario[]): Tally {
  const t: Tally = { passed: 0, failed: 0, warnings: 0, skipped: 0, scenarios: rs.length, clean: 0 };
  for (const r of rs) {
    for (const c of r.checks) {
      if (c.status === 'SUCCESS') t.passed++;
      else if (c.status === 'FAILURE') t.failed++;
      else if (c.status === 'WARNING') t.warnings++;
      else if (c.status === 'SKIPPED') t.skipped++;
    }
    if (!r.checks.some((c) => c.status === 'FAILURE')) t.clean++;
  }
  return t;
}

export const cell = (t: Tally): string =>
  `${t.passed}/${t.failed}${t.warnings || t.skipped ? ` (${t.warnings}w, ${t.skipped}s)` : ''}`;

export interface Verdict {
  unexpected: string[];
  stale: string[];
  expected: string[];
  unknown: string[];
}

/** The suite's baseline rules (0.2.0-alpha.12 README), applied to every scenario run, scored or not:
 *  a failing or warning check must be listed (its scenario whole, or scenario:check-id); a listed entry
 *  whose scenario ran clean (whole) or whose check now succeeds (per check) is stale; a listed check
 *  that is absent or skipped is tolerated. An entry naming a scenario that did not run is an error. */
export function judge(rs: Scenario[], entries: Entry[]): Verdict {
  const v: Verdict = { unexpected: [], stale: [], expected: [], unknown: [] };
  const whole = new Set(entries.filter((e) => !e.check).map((e) => e.scenario));
  const perCheck = new Map<string, Set<string>>();
  for (const e of entries) if (e.check) perCheck.set(e.scenario, (perCheck.get(e.scenario) ?? new Set()).add(e.check));
  for (const r of rs) {
    if (whole.has(r.scenario)) {
      (r.checks.some(bad) ? v.expected : v.stale).push(r.scenario);
      continue;
    }
    const ids = perCheck.get(r.scenario) ?? new Set<string>();
    const seen = new Set<string>();
    for (const c of r.checks.filter(bad)) {
      if (seen.has(c.id)) continue;
      seen.add(c.id);
      (ids.has(c.id) ? v.expected : v.unexpected).push(`${r.scenario}:${c.id}`);
    }
    for (const id of ids) {
      const all = r.checks.filter((c) => c.id === id);
      if (!all.some(bad) && all.some((c) => c.status === 'SUCCESS')) v.stale.push(`${r.scenario}:${id}`);
    }
  }
  const ran = new Set(rs.map((r) => r.scenario));
  for (const e of entries) if (!ran.has(e.scenario)) v.unknown.push(e.entry);
  return v;
}

/** The first failing message of an entry, for the report. */
export function why(rs: Scenario[], key: string): string {
  const [scenario, id] = key.includes(':')
    ? [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)]
    : [key, undefined];
  const r = rs.find((x) => x.scenario === scenario);
  const c = r?.checks.find((x) => bad(x) && (id === undefined || x.id === id));
  return c ? `${c.status} ${c.id}: ${(c.errorMessage ?? '').replace(/\s+/g, ' ').slice(0, 220)}` : '';
}

export interface Leg {
  leg: 'server' | 'client';
  suite: Suite;
  set: string;
  /** Scored scenarios (a frozen requirement set); undefined: every scenario counts. */
  scored?: Set<string>;
  mcpx: Scenario[];
  fixture?: Scenario[];
  entries: Entry[];
  verdict?: Verdict;
  /** What the suite itself said about the same expected-failures file. */
  suiteExit: Array<{ what: string; code: number | null; timedOut: boolean; tail: string }>;
  fixtureExit?: { code: number | null; timedOut: boolean; tail: string };
}

// ---------------------------------------------------------------------------------------------
// Requirement sets and scenario lists, read from the installed suites
// ---------------------------------------------------------------------------------------------

/** The scored scenarios of a frozen requirement set (requirements/<rev>.yaml, top-level lists). */
export function scoredSet(rev: string, leg: 'server' | 'client'): Set<string> {
  const text = readFileSync(join(ROOT, 'node_modules', SUITES.alpha.pkg, 'requirements', `${rev}.yaml`), 'utf8');
  const out = new Set<string>();
  let section = '';
  for (const line of text.split('\n')) {
    const top = /^([A-Za-z_]+):/.exec(line);
    if (top) section = top[1]!;
    const item = /^ {2}- ([\w/.-]+)\s*$/.exec(line);
    if (item && section === leg) out.add(item[1]!);
  }
  if (out.size === 0) throw new Error(`no ${leg} scenarios found in the ${rev} requirement set`);
  return out;
}

/** `conformance list`: the client scenarios and the revisions (or `extension`) each applies to. */
export async function clientScenarios(s: Suite): Promise<Array<{ name: string; tags: string[] }>> {
  const r = await run(suiteArgs(s, ['list']), { timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`conformance ${s.version} list failed:\n${r.stderr}`);
  const out: Array<{ name: string; tags: string[] }> = [];
  let section = '';
  for (const line of r.stdout.split('\n')) {
    if (/^\S/.test(line)) section = line;
    const m = /^\s+- (\S+) \[([^\]]*)\]/.exec(line);
    if (m && section.startsWith('Client scenarios'))
      out.push({ name: m[1]!, tags: m[2]!.split(',').map((t) => t.trim()) });
  }
  if (out.length === 0) throw new Error(`conformance ${s.version} list named no client scenario`);
  return out;
}
