// The `profiles` block of a config file (docs/gateway.md "Profiles"): named tool sets, each reached at
// its own endpoint (/mcp/<secret>/<profile>), offering some servers and some of their tools, in a mode,
// under names it chooses, with its own permission rules. Validated with zod like a server entry: a bad
// entry is refused with its path (`profiles.review.servers.github.prefix`), and a config with one is
// refused whole on a reload.
import { z } from 'zod';
import { type DetectorDef, type Guardrails, parseGuardrails } from './guardrails';
import { type Permissions, type TokenMatch, parsePermissions, tokenFields } from './permissions';
import type { ConfigIssue } from './servers';

/** A profile's name: one path segment of its URL. */
const NAME = /^[a-z0-9-]{1,32}$/;
/** Names that mean something else next to /mcp (or might): refused as a profile's. */
const RESERVED = new Set(['mcp', 'v1', 'health', 'default', 'sse', 'messages']);
/** A tool name a client may be shown (2025-11-25 server/tools "Tool Names"; hosts' 64: names.ts). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

const PROFILE_MODES = ['passthrough', 'aggregated', 'both', 'search'] as const;
type ProfileMode = (typeof PROFILE_MODES)[number];

const globs = z.array(z.string().min(1)).min(1);

const serverEntry = z
  .object({
    include: globs.optional(),
    exclude: globs.optional(),
    /** The server's skills offered, by name (globs; SEP-2640 skills); absent: all of them. */
    skills: globs.optional(),
    rename: z.record(z.string().regex(TOOL_NAME, 'expected a tool name of A-Z a-z 0-9 _ . - (at most 64)')).optional(),
    describe: z.record(z.string().min(1)).optional(),
    prefix: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{0,32}$/, 'expected at most 32 of A-Z a-z 0-9 _ . -')
      .optional(),
  })
  .strict();

const profile = z
  .object({
    servers: z.union([z.array(z.string().min(1)).min(1), z.record(serverEntry)]),
    mode: z.enum(PROFILE_MODES),
    prefix: z.enum(['none', 'server']).default('none'),
    pinned: z.array(z.string().regex(/^[^/]+\/.+$/, 'expected "server/tool"')).optional(),
    permissions: z.unknown().optional(),
    guardrails: z.unknown().optional(),
    // Bytes past which this profile's tool results become artifacts; 0 turns them off for it.
    artifactOver: z.number().int().min(0).optional(),
    /** Who a token's caller must be to use the endpoint, and the scopes its token must carry (the
     *  person, by the endpoint secret, always may). */
    access: z
      .object({
        ...tokenFields,
        scopes: z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'expected a scope token')).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/** One server as a profile offers it. */
interface ProfileServer {
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
  /** Its skills offered, by name (globs); absent: every skill it serves. */
  readonly skills?: readonly string[];
  /** Upstream tool name -> the name the profile shows (as is: no prefix is added to it). */
  readonly rename: Readonly<Record<string, string>>;
  /** Upstream tool name -> the description the profile shows. */
  readonly describe: Readonly<Record<string, string>>;
  /** Put before each shown name (a rename aside); absent: the profile's prefix rule. */
  readonly prefix?: string;
}

export interface Profile {
  readonly name: string;
  /** Its servers, in the order the profile names them. */
  readonly servers: ReadonlyMap<string, ProfileServer>;
  readonly mode: ProfileMode;
  /** The rule for pass-through names: `none` (the tool's own) or `server` (`<server>_<tool>`). */
  readonly prefix: 'none' | 'server';
  /** Search mode: the upstream tools listed besides mcpx_search and mcpx_call, as `server/tool`. */
  readonly pinned: readonly { server: string; tool: string }[];
  /** Rules applied in addition to the top-level block: the stricter verdict wins. */
  readonly permissions?: Permissions;
  /** Guardrails applied in addition to the top-level block: per finding, the stricter action wins. */
  readonly guardrails?: Guardrails;
  /** results.artifactOver for this profile's clients, where it says (docs/gateway.md "Artifacts"). */
  readonly artifactOver?: number;
  /** Who a token's caller must be here, and the scopes its token must carry (docs/gateway.md
   *  "Profiles"). */
  readonly access?: TokenMatch & { readonly scopes?: readonly string[] };
}

export type Profiles = ReadonlyMap<string, Profile>;

const issue = (path: (string | number)[], message: string): ConfigIssue => ({
  path: ['profiles', ...path].join('.'),
  message,
});

/** The block at `profiles`, checked against the configured `servers` (and a profile's guardrails against
 *  the top level's detectors); each problem with its path. */
export function parseProfiles(
  raw: unknown,
  servers: readonly string[],
  detectors: Readonly<Record<string, DetectorDef>> = {},
): { profiles: Profiles; issues: ConfigIssue[] } {
  const profiles = new Map<string, Profile>();
  const issues: ConfigIssue[] = [];
  if (raw === undefined) return { profiles, issues };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { profiles, issues: [issue([], 'expected an object of profiles by name')] };
  const known = new Set(servers);
  for (const [name, value] of Object.entries(raw)) {
    if (!NAME.test(name) || RESERVED.has(name)) {
      issues.push(
        issue(
          [name],
          RESERVED.has(name)
            ? `${JSON.stringify(name)} is reserved; choose another profile name`
            : 'a profile name is 1 to 32 of a-z 0-9 - (it is a segment of the profile URL)',
        ),
      );
      continue;
    }
    const parsed = profile.safeParse(value);
    if (!parsed.success) {
      for (const i of parsed.error.issues) issues.push(issue([name, ...i.path], i.message.toLowerCase()));
      continue;
    }
    const p = parsed.data;
    const entries: Array<[string, z.infer<typeof serverEntry>]> = Array.isArray(p.servers)
      ? p.servers.map((s) => [s, {}])
      : Object.entries(p.servers);
    const before = issues.length;
    for (const [s] of entries)
      if (!known.has(s)) issues.push(issue([name, 'servers', s], `no server named ${JSON.stringify(s)} is configured`));
    const pinned = (p.pinned ?? []).map((pin, i) => {
      const at = pin.indexOf('/');
      const server = pin.slice(0, at);
      if (!entries.some(([s]) => s === server))
        issues.push(issue([name, 'pinned', i], `${JSON.stringify(server)} is not one of this profile's servers`));
      return { server, tool: pin.slice(at + 1) };
    });
    if (pinned.length && p.mode !== 'search')
      issues.push(issue([name, 'pinned'], 'pinned applies to a profile whose mode is search'));
    const perms = parsePermissions(p.permissions);
    for (const i of perms.issues) issues.push({ path: `profiles.${name}.${i.path}`, message: i.message });
    const guards = parseGuardrails(p.guardrails, `profiles.${name}.guardrails`, detectors);
    issues.push(...guards.issues);
    // A server's list is fetched and screened once for every endpoint (gateway/guardrails/guards.ts).
    guards.guardrails?.rules.forEach((r, i) => {
      if (r.on.includes('descriptions'))
        issues.push(
          issue(
            [name, 'guardrails', 'rules', i, 'on'],
            'descriptions are screened once for every endpoint: write this rule in the top-level guardrails block',
          ),
        );
    });
    if (issues.length > before) continue;
    profiles.set(name, {
      name,
      servers: new Map(
        entries.map(([s, e]) => [
          s,
          {
            ...(e.include ? { include: e.include } : {}),
            ...(e.exclude ? { exclude: e.exclude } : {}),
            ...(e.skills ? { skills: e.skills } : {}),
            rename: e.rename ?? {},
            describe: e.describe ?? {},
            ...(e.prefix !== undefined ? { prefix: e.prefix } : {}),
          },
        ]),
      ),
      mode: p.mode,
      prefix: p.prefix,
      pinned,
      ...(perms.permissions ? { permissions: perms.permissions } : {}),
      ...(guards.guardrails ? { guardrails: guards.guardrails } : {}),
      ...(p.artifactOver !== undefined ? { artifactOver: p.artifactOver } : {}),
      ...(p.access ? { access: p.access } : {}),
    });
  }
  return { profiles, issues };
}
