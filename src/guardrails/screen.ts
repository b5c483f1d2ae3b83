// Guardrails as the gateway applies them (docs/gateway.md "Guardrails"): which rules apply to what is
// screened (`plan`: none, and nothing runs — the usual call pays one lookup), and a message screened
// (`screen`): the detectors those rules name run over its text, each finding is decided by the first rule
// that matches it — in the profile's list and in the top-level one, the stricter of the two — and the
// message comes back with its `redact` findings replaced by markers, its findings (detector, kind, rule,
// action, where; never the text) and its verdict, the strongest action among them.
import { BUILT_IN_DETECTORS, type GuardrailAction, type Guardrails, type ScreenedPlace } from '../config/guardrails';
import { globMatches } from '../kit/globs';
import { type Detector, DetectorUnavailable, type Hit } from './detector';
import { injection } from './detectors/injection';
import { patternDetector } from './detectors/pattern';
import { pii } from './detectors/pii';
import { secrets } from './detectors/secrets';
import { externalDetector } from './external';
import { type Joined, joined, leafIndex, pathText, redacted } from './text';

/** What is screened: its place, and the server and tool (prompt name, resource URI) it is of — either
 *  left out (`mcpx guardrails check` without --server): only the rules that name none apply. */
export interface Subject {
  readonly on: ScreenedPlace;
  readonly server?: string;
  readonly target?: string;
}

/** One finding as the activity record, the log and the person see it: never the text found. */
export interface Finding {
  readonly detector: string;
  /** What it found: `aws`, `email`, `unicode-tags`, an analyzer's entity type; `unavailable` for an
   *  external detector that could not answer. */
  readonly kind: string;
  /** The rule that decided it (`guardrails.rules[0]`, `profiles.x.guardrails.rules[1]`). */
  readonly rule: string;
  readonly action: GuardrailAction;
  /** Where in the message: `result.content[0].text`, `arguments.query`, `description`. */
  readonly where: string;
  /** How many times, where one is found more than once in the same place. */
  readonly count: number;
}

/** The strongest action among the findings, or `pass` with none. */
type Verdict = 'pass' | GuardrailAction;
const STRENGTH: Readonly<Record<Verdict, number>> = { pass: 0, log: 1, redact: 2, ask: 3, block: 4 };
const stronger = (a: Verdict, b: Verdict): Verdict => (STRENGTH[b] > STRENGTH[a] ? b : a);

export interface Screened<T> {
  /** The message with its `redact` findings replaced by markers (the same value where there were none). */
  readonly value: T;
  readonly findings: readonly Finding[];
  readonly verdict: Verdict;
  /** What the log should say that the findings do not: an external detector that could not answer. */
  readonly notes: readonly string[];
  /** The message with every finding replaced by its marker, whatever its action: what a record keeps of
   *  arguments (asked for with `mask`). */
  readonly masked?: T;
}

/** The rules that apply to one subject: per detector, the action and the rule that says it. */
export interface Plan {
  readonly decide: ReadonlyMap<string, { readonly action: GuardrailAction; readonly rule: string }>;
}

/** Findings kept per message: a result with ten thousand addresses is not ten thousand records. */
const MAX_FINDINGS = 64;
/** Plans kept before the cache is emptied (servers × tools × places a gateway sees). */
const MAX_PLANS = 4096;

const anyGlob = (g: string | readonly string[] | undefined, text: string | undefined): boolean =>
  g === undefined || (text !== undefined && (typeof g === 'string' ? [g] : g).some((x) => globMatches(x, text)));

const BUILT_IN: Readonly<Record<string, Detector>> = { secrets, pii, injection };

export class Screen {
  private readonly detectors = new Map<string, Detector & { failure?: 'open' | 'closed' }>();
  private readonly plans = new Map<string, Plan | undefined>();
  /** Nothing configured: every plan is none, found without a lookup. */
  readonly off: boolean;

  /** `lists`: the profile's block (if any) first, then the top-level one. */
  constructor(private readonly lists: readonly Guardrails[]) {
    this.off = lists.every((l) => !l.rules.length);
    for (const name of BUILT_IN_DETECTORS) this.detectors.set(name, BUILT_IN[name]!);
    // The top-level block's detectors, then the profile's own (config/guardrails.ts keeps their names apart).
    for (const list of [...lists].reverse())
      for (const [name, def] of Object.entries(list.detectors))
        this.detectors.set(
          name,
          'url' in def ? { ...externalDetector(name, def), failure: def.failure } : patternDetector(name, def.pattern),
        );
  }

  /** The rules that apply to `s`, or undefined where none does. */
  plan(s: Subject): Plan | undefined {
    if (this.off) return undefined;
    const key = `${s.on}\0${s.server ?? '\u0001'}\0${s.target ?? '\u0001'}`;
    if (this.plans.has(key)) return this.plans.get(key);
    const decide = new Map<string, { action: GuardrailAction; rule: string }>();
    for (const list of this.lists) {
      const firstOfList = new Set<string>();
      for (const r of list.rules) {
        if (firstOfList.has(r.detect) || !r.on.includes(s.on)) continue;
        if (!anyGlob(r.server, s.server) || !anyGlob(r.tool, s.target)) continue;
        firstOfList.add(r.detect);
        const had = decide.get(r.detect);
        if (!had || STRENGTH[r.action] > STRENGTH[had.action]) decide.set(r.detect, { action: r.action, rule: r.id });
      }
    }
    const plan = decide.size ? { decide } : undefined;
    if (this.plans.size >= MAX_PLANS) this.plans.clear();
    this.plans.set(key, plan);
    return plan;
  }

  /** `value` screened under `plan`; `at` names the message in each finding's `where` (`result`). */
  async screen<T>(
    value: T,
    plan: Plan,
    at: string,
    o: { signal?: AbortSignal; mask?: boolean } = {},
  ): Promise<Screened<T>> {
    const { signal } = o;
    const j = joined(value);
    if (!j.text) return { value, findings: [], verdict: 'pass', notes: [] };
    const notes: string[] = [];
    const found = await Promise.all(
      [...plan.decide.keys()].map(async (name) => ({ name, hits: await this.run(name, j.text, notes, signal) })),
    );
    const findings = new Map<string, Finding>();
    const redactions: { start: number; end: number; marker: string }[] = [];
    const masks: typeof redactions = [];
    let verdict: Verdict = 'pass';
    for (const { name, hits } of found) {
      const { action, rule } = plan.decide.get(name)!;
      for (const h of hits) {
        // An empty range is a detector that failed open: logged, whatever the rule says.
        const act: GuardrailAction = h.end === h.start ? 'log' : action;
        verdict = stronger(verdict, act);
        const where = h.end === h.start ? at : whereOf(j, h, at);
        const key = `${name}\0${h.kind}\0${where}`;
        const had = findings.get(key);
        if (had) findings.set(key, { ...had, count: had.count + 1 });
        else if (findings.size < MAX_FINDINGS)
          findings.set(key, { detector: name, kind: h.kind, rule, action: act, where, count: 1 });
        const r = { start: h.start, end: h.end, marker: markerOf(name, h.kind) };
        if (act === 'redact') redactions.push(r);
        if (o.mask && h.end > h.start) masks.push(r);
      }
    }
    return {
      value: redacted(value, j, redactions),
      findings: [...findings.values()],
      verdict,
      notes,
      ...(o.mask ? { masked: redacted(value, j, masks) } : {}),
    };
  }

  /** A detector's hits; one that cannot answer fails as its definition declares: open, a note and a
   *  finding logged (an empty range); closed, the whole text found. */
  private async run(name: string, text: string, notes: string[], signal?: AbortSignal): Promise<Hit[]> {
    const d = this.detectors.get(name)!;
    try {
      return await d.find(text, signal);
    } catch (e) {
      if (!(e instanceof DetectorUnavailable)) throw e;
      notes.push(`guardrails: detector ${name} could not answer (${e.message}); failing ${d.failure ?? 'closed'}`);
      return [{ start: 0, end: d.failure === 'open' ? 0 : text.length, kind: 'unavailable' }];
    }
  }
}

/** A redaction's marker: the detector that found it, and what (`[redacted:secrets/aws]`). */
const markerOf = (detector: string, kind: string): string =>
  `[redacted:${detector}${kind === detector ? '' : `/${kind}`}]`;

function whereOf(j: Joined, h: Hit, at: string): string {
  const leaf = j.leaves[leafIndex(j, h.start)];
  const path = leaf ? pathText(leaf.path) : '';
  return path ? `${at}${path.startsWith('[') ? '' : '.'}${path}` : at;
}
