// The `guardrails` block of a config file (docs/gateway.md "Guardrails"), at the top level and in a
// profile: ordered rules `{detect, on, server?, tool?, action}` — the first that matches decides each
// finding — and the detectors a person adds, a pattern (RE2 syntax, matched in linear time) or an external
// analyzer `{url}` speaking Presidio's API, with a timeout and a declared failure mode. Validated with zod
// like every block: a bad rule is refused with its path (`guardrails.rules.1.detect`), and a config with
// one is refused whole on a reload.
import { RE2JS } from 're2js';
import { z } from 'zod';
import type { ConfigIssue } from './servers';
import { parseDuration } from './settings';

/** The detectors mcpx carries (docs/gateway.md "Guardrails"). */
export const BUILT_IN_DETECTORS = ['secrets', 'pii', 'injection'] as const;

const ACTIONS = ['log', 'redact', 'block', 'ask'] as const;
export type GuardrailAction = (typeof ACTIONS)[number];
/** What is screened: an upstream's answers (tool results, prompts, resources, sampling requests), a
 *  tool's or prompt's description when it is listed, and the arguments a client sends. */
const PLACES = ['results', 'descriptions', 'arguments'] as const;
export type ScreenedPlace = (typeof PLACES)[number];

/** A detector's name: a word a rule names and a redaction marker shows. */
const NAME = /^[a-z][a-z0-9-]{0,31}$/;
/** An external analyzer waits this long by default, and at most the longest. */
const TIMEOUT_MS = 2_000;
const MAX_TIMEOUT_MS = 60_000;

const glob = z.string().min(1);
const globs = z.union([glob, z.array(glob).min(1)]);

const rule = z
  .object({
    detect: z.string().min(1),
    on: z.array(z.enum(PLACES)).min(1).default(['results']),
    server: globs.optional(),
    tool: globs.optional(),
    action: z.enum(ACTIONS),
  })
  .strict()
  // A list is screened when a client lists it: there is nobody to ask, nothing to hold.
  .refine((r) => r.action !== 'ask' || !r.on.includes('descriptions'), {
    message: 'ask holds a call; descriptions are screened when listed — use block, redact or log for them',
    path: ['action'],
  });

const pattern = z
  .object({
    pattern: z
      .string()
      .min(1)
      .superRefine((p, ctx) => {
        const why = re2Problem(p);
        if (why) ctx.addIssue({ code: z.ZodIssueCode.custom, message: why });
      }),
  })
  .strict();

const duration = z.union([z.number(), z.string()]).refine(
  (v) => {
    const ms = parseDuration(v);
    return ms !== undefined && ms > 0 && ms <= MAX_TIMEOUT_MS;
  },
  `expected a duration above zero and at most ${MAX_TIMEOUT_MS / 1000} s, e.g. "2s" or milliseconds`,
);

const external = z
  .object({
    url: z
      .string()
      .url()
      .refine((u) => /^https?:$/.test(new URL(u).protocol), 'expected an http or https URL'),
    timeout: duration.optional(),
    /** What a text is when the analyzer cannot answer in time: passed unscreened (open), or treated as
     *  found whole (closed). Declared, never assumed. */
    failure: z.enum(['open', 'closed']),
    /** The analyzer's entity types to ask for; all of them where absent. */
    entities: z
      .array(z.string().regex(/^[A-Z0-9_]{1,64}$/, 'expected an entity type such as EMAIL_ADDRESS'))
      .optional(),
    /** Findings scored below this are not findings. */
    threshold: z.number().min(0).max(1).optional(),
    language: z
      .string()
      .regex(/^[a-z]{2}$/, 'expected a two-letter language code')
      .default('en'),
  })
  .strict();

const block = z
  .object({
    rules: z.array(rule).default([]),
    detectors: z.record(z.object({}).passthrough()).default({}),
  })
  .strict();

type GuardrailRule = Omit<z.infer<typeof rule>, 'on'> & { readonly on: readonly ScreenedPlace[] };
type PatternDetector = z.infer<typeof pattern>;
export interface ExternalDetector {
  readonly url: string;
  readonly timeoutMs: number;
  readonly failure: 'open' | 'closed';
  readonly entities?: readonly string[];
  readonly threshold?: number;
  readonly language: string;
}
export type DetectorDef = PatternDetector | ExternalDetector;

export interface Guardrails {
  /** Each rule with where it was written (`guardrails.rules[0]`, `profiles.x.guardrails.rules[1]`). */
  readonly rules: readonly (GuardrailRule & { readonly id: string })[];
  readonly detectors: Readonly<Record<string, DetectorDef>>;
}

/** Why RE2 refuses a pattern (a backreference, a lookaround), or undefined. RE2's syntax is what a
 *  person's detector is written in: it matches in time linear in the text an upstream chose. */
function re2Problem(p: string): string | undefined {
  try {
    RE2JS.compile(p);
    return undefined;
  } catch (e) {
    return `not a pattern RE2 accepts (${(e as Error).message}); write it without backreferences or lookarounds`;
  }
}

/** The block at `at` (`guardrails`, `profiles.x.guardrails`), or its issues, each with its path. Its rules
 *  may name a built-in detector, one of its own, or one of `shared` (the top-level block's). */
export function parseGuardrails(
  raw: unknown,
  at = 'guardrails',
  shared: Readonly<Record<string, DetectorDef>> = {},
): { guardrails?: Guardrails; issues: ConfigIssue[] } {
  if (raw === undefined) return { issues: [] };
  const path = (p: readonly (string | number)[]) => [at, ...p].join('.');
  const parsed = block.safeParse(raw);
  if (!parsed.success)
    return { issues: parsed.error.issues.map((i) => ({ path: path(i.path), message: i.message.toLowerCase() })) };
  const issues: ConfigIssue[] = [];
  const detectors: Record<string, DetectorDef> = {};
  for (const [name, raw] of Object.entries(parsed.data.detectors)) {
    const at = ['detectors', name];
    if (!NAME.test(name))
      issues.push({ path: path(at), message: 'a detector name is 1 to 32 of a-z 0-9 -, starting with a letter' });
    else if ((BUILT_IN_DETECTORS as readonly string[]).includes(name))
      issues.push({ path: path(at), message: `${name} is a built-in detector; choose another name` });
    else {
      // A detector is a pattern or an analyzer's URL: which, its fields say, and its issues are that one's.
      const d = 'url' in raw ? external.safeParse(raw) : pattern.safeParse(raw);
      if (!d.success)
        for (const i of d.error.issues)
          issues.push({ path: path([...at, ...i.path]), message: i.message.toLowerCase() });
      else detectors[name] = 'url' in d.data ? externalOf(d.data) : d.data;
    }
  }
  const known = (name: string) =>
    (BUILT_IN_DETECTORS as readonly string[]).includes(name) || name in detectors || name in shared;
  parsed.data.rules.forEach((r, i) => {
    if (!known(r.detect))
      issues.push({
        path: path(['rules', i, 'detect']),
        message: `no detector named ${JSON.stringify(r.detect)}: expected ${[...BUILT_IN_DETECTORS, ...Object.keys({ ...shared, ...detectors })].join(', ')}`,
      });
  });
  if (issues.length) return { issues };
  const rules = parsed.data.rules.map((r, i) => ({ ...r, id: `${at}.rules[${i}]` }));
  return { guardrails: { rules, detectors }, issues };
}

function externalOf(d: z.infer<typeof external>): ExternalDetector {
  return {
    url: d.url,
    timeoutMs: d.timeout === undefined ? TIMEOUT_MS : parseDuration(d.timeout)!,
    failure: d.failure,
    language: d.language,
    ...(d.entities ? { entities: d.entities } : {}),
    ...(d.threshold !== undefined ? { threshold: d.threshold } : {}),
  };
}
