// The guardrails as the gateway runs them (docs/gateway.md "Guardrails"): one Screen per endpoint — the
// top-level block, and a profile's on top — made again when a reload replaces a block; a message screened
// and acted on (`pass`: redacted, logged, blocked, or held for the person as an approval is, through the
// same Approver), which the chain's `screened` step and a sampling request use alike; and each listed tool
// and prompt screened where the catalogue fetches it (`listed`: withheld, or its description redacted and
// flagged, never passed on silently).
import { randomUUID } from 'node:crypto';
import type { Config } from '../../config/file';
import type { Guardrails, ScreenedPlace } from '../../config/guardrails';
import { ALLOW_ALL } from '../../config/permissions';
import { type Finding, Screen } from '../../guardrails/screen';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { ActivityFinding } from '../activity/record';
import type { ListKind } from '../catalogue/catalogue';
import type { ApprovalRequest, Approver } from '../permissions/approval';

export interface GuardsDeps {
  /** The top-level block and a profile's, read per use: a reload replaces them. */
  guardrails(): Guardrails | undefined;
  profileGuardrails(profile: string): Guardrails | undefined;
  /** Who the person is asked through (the editor's prompt, else the broker's `mcpx elicit`). */
  approver(): Approver;
  /** How long the person has to answer (permissions.askTimeout). */
  askTimeoutMs(): number;
  log(line: string): void;
}

/** A message a guardrail stopped: its text is what the caller reads (a tool's isError result, a -32602). */
export class Blocked extends Error {
  override readonly name = 'Blocked';
}

/** One message to screen: where it is going, what it is, and how to ask the person about it. */
export interface Passing {
  readonly on: Exclude<ScreenedPlace, 'descriptions'>;
  readonly server: string;
  readonly target: string;
  readonly profile?: string;
  /** Its name in each finding's `where`, and in what the person and the refused caller read: `result`,
   *  `arguments`, `sampling request`. */
  readonly at: string;
  readonly signal?: AbortSignal;
  /** Where its findings go (the call's, for its activity record). */
  readonly findings?: ActivityFinding[];
  /** Told the message with every finding masked (the call's arguments as its record keeps them, and as
   *  the person is shown them), before anyone is asked or it is blocked. */
  readonly masked?: (value: unknown) => void;
  /** The approval the person is shown for an `ask`, but for what was found. */
  readonly request: () => Omit<ApprovalRequest, 'id' | 'rule' | 'deadline' | 'screened'>;
}

/** What a listed item is screened as, and what of it: a tool's or prompt's text a model reads before it
 *  calls it (all but its name), a skill's frontmatter (what a client shows the model to choose it by).
 *  Its key — a rule's `tool` glob, and the log's name — is a tool's or prompt's name, a skill's SKILL.md
 *  URI (as permission rules match a skill). */
const DESCRIBED: Partial<
  Record<ListKind, { what: string; key(item: JsonObject): string; text(item: JsonObject): JsonObject }>
> = {
  tools: { what: 'tool', key: (i) => String(i.name), text: ({ name: _name, ...text }) => text },
  prompts: { what: 'prompt', key: (i) => String(i.name), text: ({ name: _name, ...text }) => text },
  skills: { what: 'skill', key: (i) => String(i.uri), text: (i) => ({ frontmatter: i.frontmatter }) },
};

const named = (f: Finding) => `${f.detector}/${f.kind}`;

export class Guards {
  private readonly screens = new Map<string, { top?: Guardrails; own?: Guardrails; screen: Screen }>();

  constructor(private readonly d: GuardsDeps) {}

  /** The gateway's: the config's blocks read per use (a reload replaces them, Gateway.apply), the person
   *  asked through `approver` within permissions.askTimeout. */
  static of(
    config: Pick<Config, 'guardrails' | 'profiles' | 'permissions'>,
    approver: () => Approver,
    log: (line: string) => void,
  ): Guards {
    return new Guards({
      guardrails: () => config.guardrails,
      profileGuardrails: (profile) => config.profiles?.get(profile)?.guardrails,
      approver,
      askTimeoutMs: () => (config.permissions ?? ALLOW_ALL).askTimeoutMs,
      log,
    });
  }

  /** The Screen of an endpoint: its profile's rules (if any) first, then the top level's. */
  of(profile?: string): Screen {
    const top = this.d.guardrails();
    const own = profile === undefined ? undefined : this.d.profileGuardrails(profile);
    const key = profile ?? '';
    const had = this.screens.get(key);
    if (had && had.top === top && had.own === own) return had.screen;
    const screen = new Screen([own, top].filter((g): g is Guardrails => g !== undefined));
    this.screens.set(key, { top, own, screen });
    return screen;
  }

  /** `value` as it may go on: as it was where no rule applies; else screened — redacted, its findings
   *  added to `p.findings` and logged, the person asked where a rule says ask. Throws Blocked where a rule
   *  blocks it or the person does not let it through. */
  async pass<T>(value: T, p: Passing): Promise<T> {
    const screen = this.of(p.profile);
    if (screen.off) return value;
    const plan = screen.plan(p);
    if (!plan) return value;
    const s = await screen.screen(value, plan, p.at, { signal: p.signal, mask: p.masked !== undefined });
    for (const note of s.notes) this.d.log(`[${p.server}] ${note}`);
    if (!s.findings.length) return s.value;
    p.findings?.push(...s.findings);
    p.masked?.(s.masked);
    this.d.log(`[${p.server}] guardrails: ${p.at} of ${p.server}/${p.target}: ${summary(s.findings)}`);
    if (s.verdict === 'block') {
      const f = s.findings.find((x) => x.action === 'block')!;
      throw new Blocked(
        `mcpx guardrails blocked the ${p.at} of ${p.server}/${p.target}: ${named(f)} found by ${f.rule} (docs/gateway.md "Guardrails")`,
      );
    }
    if (s.verdict === 'ask') await this.ask(p, s.findings);
    return s.value;
  }

  /** The person decides whether what was found passes: any answer but deny passes it, once. */
  private async ask(p: Passing, findings: readonly Finding[]): Promise<void> {
    const asked = findings.filter((f) => f.action === 'ask');
    const rule = [...new Set(asked.map((f) => f.rule))].join(', ');
    const ms = this.d.askTimeoutMs();
    const expiry = AbortSignal.timeout(ms);
    const signal = p.signal ? AbortSignal.any([p.signal, expiry]) : expiry;
    const request: ApprovalRequest = {
      ...p.request(),
      id: randomUUID(),
      rule,
      deadline: Date.now() + ms,
      screened: { what: `the ${p.at}`, findings },
    };
    let answer: string;
    try {
      answer = await this.d.approver().ask(request, signal);
    } catch (e) {
      // The call itself ended: that is its outcome, not a block.
      if (p.signal?.aborted && !expiry.aborted) throw e;
      answer = expiry.aborted
        ? 'no answer within permissions.askTimeout'
        : `the person could not be asked (${(e as Error).message})`;
    }
    if (answer === 'deny' || !['once', 'session', 'always'].includes(answer)) {
      const why = answer === 'deny' ? 'the person blocked it' : answer;
      throw new Blocked(
        `mcpx guardrails blocked the ${p.at} of ${p.server}/${p.target}: ${asked.map(named).join(', ')} found by ${rule}, and ${why}`,
      );
    }
  }

  /** A server's list as it is fetched, each tool's, prompt's and skill's text screened by the top-level rules
   *  for `descriptions` (a profile's lists are the same fetch; config/guardrails.ts keeps such rules at the
   *  top level): one a rule blocks is withheld, a tool or prompt it redacts is listed with its hidden text
   *  replaced by a marker; each logged. A skill a rule redacts is withheld too: its frontmatter is checked
   *  against its SKILL.md when the file is read, which a redacted copy would fail. */
  async listed(server: string, kind: ListKind, items: JsonObject[]): Promise<JsonObject[]> {
    const screen = this.of();
    const described = DESCRIBED[kind];
    if (screen.off || !described) return items;
    const { what } = described;
    const out: JsonObject[] = [];
    for (const item of items) {
      const key = described.key(item);
      const plan = screen.plan({ on: 'descriptions', server, target: key });
      if (!plan) {
        out.push(item);
        continue;
      }
      // A tool's or prompt's name is the catalogue's key, checked apart (catalogue/screen.ts).
      const s = await screen.screen(described.text(item), plan, what);
      for (const note of s.notes) this.d.log(`[${server}] ${note}`);
      if (!s.findings.length) {
        out.push(item);
        continue;
      }
      const withheld = s.verdict === 'block' || (kind === 'skills' && s.verdict === 'redact');
      this.d.log(
        `[${server}] guardrails: ${what} ${key} ${withheld ? 'withheld' : s.verdict === 'redact' ? 'listed redacted' : 'listed'}: ${summary(s.findings)}`,
      );
      if (!withheld) out.push(s.verdict === 'redact' ? { ...item, ...(s.value as JsonObject) } : item);
    }
    return out;
  }
}

/** The findings as the log says them: never the text, only what, where and what was done. */
const summary = (findings: readonly Finding[]): string =>
  findings
    .map((f) => `${named(f)}${f.count > 1 ? ` ×${f.count}` : ''} at ${f.where} (${f.rule}: ${f.action})`)
    .join('; ');
