// Which rule decides a call (docs/gateway.md "Permissions"): the first rule of `permissions.rules` whose
// every field matches, else the default. Pure data in, a verdict out; the gate (gate.ts) acts on it and
// `mcpx permissions SERVER TOOL` explains it.
import type { CallKind, PermissionAction, PermissionRule, Permissions, TokenMatch } from '../../config/permissions';
import { globMatches } from '../../kit/globs';
import type { JsonObject } from '../../protocol/jsonrpc';
import { type Principal, claimValues } from '../../protocol/principal';

/** What a rule is matched against. */
export interface Subject {
  readonly kind: CallKind;
  readonly server: string;
  /** The tool's or prompt's name, or the resource's URI, as the upstream has it. */
  readonly target: string;
  /** The tool's annotations as its server listed them (untrusted hints); none for a prompt or resource. */
  readonly annotations?: JsonObject;
  /** clientInfo's name as the client declared it (untrusted), its identity, and its verified token's
   *  subject and claims. */
  readonly clientName?: string;
  readonly identity: string;
  readonly principal?: Principal;
}

export interface Verdict {
  readonly action: PermissionAction;
  /** `permissions.rules[N]` or `default`. */
  readonly rule: string;
  readonly askVia?: 'client';
}

/** A hint's value where a tool does not say: the defaults of 2025-11-25 server/tools "Tool Annotations"
 *  (destructive and open-world unless it says otherwise; a read-only tool is not destructive). */
function hint(annotations: JsonObject | undefined, name: string): boolean {
  const v = annotations?.[name];
  if (typeof v === 'boolean') return name === 'destructiveHint' && annotations?.readOnlyHint === true ? false : v;
  if (name === 'destructiveHint') return annotations?.readOnlyHint !== true;
  return name === 'openWorldHint';
}

const anyGlob = (g: string | readonly string[], text: string | undefined): boolean =>
  text !== undefined && (typeof g === 'string' ? [g] : g).some((x) => globMatches(x, text));

/** Whether a token's caller is who `m` names (docs/security.md "Two ways in"): every field it has
 *  matches; a caller without a token matches no field. A rule or access with none matches everyone. */
export function principalMatches(m: TokenMatch, p: Principal | undefined): boolean {
  if (m.subject === undefined && m.issuer === undefined && m.claims === undefined) return true;
  if (!p) return false;
  return (
    (m.subject === undefined || anyGlob(m.subject, p.subject)) &&
    (m.issuer === undefined || anyGlob(m.issuer, p.issuer)) &&
    Object.entries(m.claims ?? {}).every(([k, g]) => claimValues(p, k).some((v) => anyGlob(g, v)))
  );
}

type ClientWho = TokenMatch & { identity?: string | string[] };

/** Each field of a rule as a test; an absent field matches everything. */
const FIELDS: ReadonlyArray<(r: PermissionRule, s: Subject) => boolean> = [
  (r, s) => r.server === undefined || anyGlob(r.server, s.server),
  (r, s) => r.tool === undefined || anyGlob(r.tool, s.target),
  (r, s) => r.kind === undefined || (typeof r.kind === 'string' ? r.kind === s.kind : r.kind.includes(s.kind)),
  // Annotations are a tool's: a rule that tests them matches no prompt and no resource.
  (r, s) =>
    r.annotations === undefined ||
    (s.kind === 'tool' &&
      Object.entries(r.annotations).every(([k, want]) => want === undefined || hint(s.annotations, k) === want)),
  (r, s) => {
    if (r.client === undefined) return true;
    if (!byIdentity(r)) return anyGlob(r.client as string | string[], s.clientName);
    const who = r.client as ClientWho;
    return (who.identity === undefined || anyGlob(who.identity, s.identity)) && principalMatches(who, s.principal);
  },
];

const matches = (r: PermissionRule, s: Subject): boolean => FIELDS.every((f) => f(r, s));

/** Verdicts already reached, per rule set (a reload makes a new one): a call matched against the rules
 *  once per kind of call, not once per call — keyed by only the fields its rules test (an identity is
 *  often one per connection). Bounded: emptied when full. */
const verdicts = new WeakMap<
  Permissions,
  { byClient: boolean; byIdentity: boolean; claims: readonly string[]; kept: Map<string, Verdict> }
>();
const VERDICTS_KEPT = 4096;
const HINTS = ['destructiveHint', 'readOnlyHint', 'openWorldHint', 'idempotentHint'] as const;

const byIdentity = (r: PermissionRule): boolean => typeof r.client === 'object' && !Array.isArray(r.client);

export function decide(p: Permissions, s: Subject): Verdict {
  if (p.rules.length === 0) return { action: p.default, rule: 'default' };
  let cache = verdicts.get(p);
  if (!cache) {
    cache = {
      byClient: p.rules.some((r) => r.client !== undefined && !byIdentity(r)),
      byIdentity: p.rules.some(byIdentity),
      // The claims any rule tests: a token's values of them are part of the key.
      claims: [
        ...new Set(p.rules.flatMap((r) => (byIdentity(r) ? Object.keys((r.client as ClientWho).claims ?? {}) : []))),
      ],
      kept: new Map(),
    };
    verdicts.set(p, cache);
  }
  // Every field a rule can test: the hints as they read with the spec's defaults.
  const hints = s.kind === 'tool' ? HINTS.map((h) => (hint(s.annotations, h) ? 1 : 0)).join('') : '';
  const key = [
    s.kind,
    s.server,
    s.target,
    cache.byClient ? (s.clientName ?? '\u0001') : '',
    cache.byIdentity ? s.identity : '',
    // A token's claims may differ from one token of a subject to the next (a group joined).
    s.principal && cache.claims.length ? JSON.stringify(cache.claims.map((c) => claimValues(s.principal!, c))) : '',
    hints,
  ].join('\u0000');
  const known = cache.kept.get(key);
  if (known) return known;
  const v = verdictOf(p, s);
  if (cache.kept.size >= VERDICTS_KEPT) cache.kept.clear();
  cache.kept.set(key, v);
  return v;
}

function verdictOf(p: Permissions, s: Subject): Verdict {
  const i = p.rules.findIndex((r) => matches(r, s));
  if (i < 0) return { action: p.default, rule: 'default' };
  const r = p.rules[i]!;
  return { action: r.action, rule: `permissions.rules[${i}]`, ...(r.askVia ? { askVia: r.askVia } : {}) };
}

/** A rule on one line, as `mcpx permissions` prints it. */
export function describeRule(r: PermissionRule): string {
  const parts: string[] = [];
  const list = (v: string | readonly string[]) => (typeof v === 'string' ? v : v.join('|'));
  if (r.server !== undefined) parts.push(`server=${list(r.server)}`);
  if (r.tool !== undefined) parts.push(`tool=${list(r.tool)}`);
  if (r.kind !== undefined) parts.push(`kind=${list(r.kind)}`);
  for (const [k, v] of Object.entries(r.annotations ?? {})) if (v !== undefined) parts.push(`${k}=${v}`);
  if (r.client !== undefined && !byIdentity(r)) parts.push(`client=${list(r.client as string | string[])}`);
  else if (r.client !== undefined) {
    const who = r.client as ClientWho;
    for (const k of ['identity', 'subject', 'issuer'] as const)
      if (who[k] !== undefined) parts.push(`${k}=${list(who[k]!)}`);
    for (const [k, v] of Object.entries(who.claims ?? {})) parts.push(`claims.${k}=${list(v)}`);
  }
  return `${r.action}${r.askVia ? ' (asking the client)' : ''}${parts.length ? ` when ${parts.join(', ')}` : ' always'}`;
}
