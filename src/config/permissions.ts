// The `permissions` block of a config file (.vscode/mcp.json, the mcpx.permissions setting): a default
// and an ordered list of rules, first match wins (docs/gateway.md "Permissions"). Validated with zod like
// a server entry: a bad rule is refused with its path (`permissions.rules.2.action`), and a config with
// one is refused whole on a reload.
import { z } from 'zod';
import type { ConfigIssue } from './servers';
import { parseDuration } from './settings';

const ACTIONS = ['allow', 'ask', 'deny'] as const;
export type PermissionAction = (typeof ACTIONS)[number];
const KINDS = ['tool', 'resource', 'prompt', 'completion', 'skill'] as const;
export type CallKind = (typeof KINDS)[number];
/** Every kind of call the gate decides (docs/gateway.md "Permissions"). */
export const CALL_KINDS: readonly CallKind[] = KINDS;
/** The tool annotations a rule may test: the server's own hints, untrusted (2025-11-25 server/tools
 *  "Tool Annotations"). */
const HINTS = ['destructiveHint', 'readOnlyHint', 'openWorldHint', 'idempotentHint'] as const;

/** When the person takes no decision: `permissions.askTimeout`'s default. */
const ASK_TIMEOUT_MS = 120_000;

const glob = z.string().min(1);
const globs = z.union([glob, z.array(glob).min(1)]);

/** Who a verified access token names (docs/security.md "Two ways in"): its subject, its issuer, and
 *  claims by name (a list claim, such as groups, matches when one of its values does). A caller without
 *  a token matches none of them. */
export const tokenFields = {
  subject: globs.optional(),
  issuer: globs.optional(),
  claims: z.record(globs).optional(),
};
export type TokenMatch = {
  subject?: string | string[];
  issuer?: string | string[];
  claims?: Record<string, string | string[]>;
};

/** The client a rule names: its declared name (a glob; untrusted), or who it is — its identity, or the
 *  subject and claims of its token. */
const clientMatch = z.union([
  globs,
  z
    .object({ identity: globs.optional(), ...tokenFields })
    .strict()
    .refine((c) => Object.values(c).some((v) => v !== undefined), {
      message: 'name an identity, a subject, an issuer or claims',
    }),
]);

const rule = z
  .object({
    server: globs.optional(),
    tool: globs.optional(),
    kind: z.union([z.enum(KINDS), z.array(z.enum(KINDS)).min(1)]).optional(),
    annotations: z
      .object(Object.fromEntries(HINTS.map((h) => [h, z.boolean().optional()])))
      .strict()
      .optional(),
    /** The client's declared name (a glob), or who it is (docs/protocol.md "Client identity"). */
    client: clientMatch.optional(),
    action: z.enum(ACTIONS),
    /** Ask the call's own client (a form elicitation) rather than the person through the host. */
    askVia: z.literal('client').optional(),
  })
  .strict()
  .refine((r) => r.askVia === undefined || r.action === 'ask', {
    message: 'askVia applies to a rule whose action is ask',
    path: ['askVia'],
  });

const block = z
  .object({
    default: z.enum(ACTIONS).default('allow'),
    askTimeout: z
      .union([z.number(), z.string()])
      .refine((v) => (parseDuration(v) ?? 0) > 0, 'expected a duration above zero, e.g. "2m", "90s" or milliseconds')
      .optional(),
    rules: z.array(rule).default([]),
  })
  .strict();

export type PermissionRule = z.infer<typeof rule>;

export interface Permissions {
  readonly default: PermissionAction;
  readonly askTimeoutMs: number;
  readonly rules: readonly PermissionRule[];
}

/** No block: every call is allowed, as before permissions existed. */
export const ALLOW_ALL: Permissions = { default: 'allow', askTimeoutMs: ASK_TIMEOUT_MS, rules: [] };

/** The block at `permissions` of a config file, or its issues, each with its path. */
export function parsePermissions(raw: unknown): { permissions?: Permissions; issues: ConfigIssue[] } {
  if (raw === undefined) return { issues: [] };
  const parsed = block.safeParse(raw);
  if (!parsed.success)
    return {
      issues: parsed.error.issues.map((i) => ({
        path: ['permissions', ...i.path].join('.'),
        message: i.message.toLowerCase(),
      })),
    };
  const p = parsed.data;
  const askTimeoutMs = p.askTimeout === undefined ? ASK_TIMEOUT_MS : parseDuration(p.askTimeout)!;
  return { permissions: { default: p.default, askTimeoutMs, rules: p.rules }, issues: [] };
}
