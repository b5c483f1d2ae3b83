// The editor's two sources of servers: the user setting `mcpx.servers` and the workspace's
// `.vscode/mcp.json`. Each is read by the one loader (parseConfig); on a name both define the workspace
// wins and the clash is reported. Issues keep the path of their source, so a message names the file and
// the exact field ("…/.vscode/mcp.json: servers.github.command: expected string").
import { type Config, type SubstitutionContext, parseConfig } from './file';
import { parseProfiles } from './profiles';
import type { ConfigIssue, ServerDef } from './servers';
import { OWN_SKILLS } from './skills';

export interface Source {
  /** Shown in messages: a file path, or "settings (mcpx.servers)". */
  label: string;
  /** The parsed JSON (a file's whole object, or `{servers: …}` for the setting). */
  value: unknown;
  /** Servers from here that spawn processes need a trusted workspace. */
  workspace: boolean;
}

export interface Merged {
  config: Config;
  /** "<source>: <path>: <message>" for every problem; the rest still loads. */
  problems: string[];
  clashes: string[];
  /** Workspace stdio servers held back until the workspace is trusted. */
  untrusted: string[];
  /** Servers whose definition in use comes from a workspace file (VS Code's own MCP support runs those). */
  fromWorkspace: Set<string>;
}

export function mergeSources(sources: Source[], ctx: SubstitutionContext & { trusted: boolean }): Merged {
  const byName = new Map<string, { def: ServerDef; from: Source }>();
  const problems: string[] = [];
  const clashes: string[] = [];
  const untrusted: string[] = [];
  const roots: Config['roots'] = [];
  let permissions: Config['permissions'];
  let guardrails: Config['guardrails'];
  let skills: Config['skills'];
  let profilesFrom: Source | undefined;
  // Later sources win: the caller passes the user setting first, the workspace file last.
  for (const src of sources) {
    const c = parseConfig(src.value, src.label, ctx);
    // A `profiles` block is read below, against the servers of both sources.
    for (const i of c.issues as ConfigIssue[])
      if (i.path !== 'profiles' && !i.path.startsWith('profiles.'))
        problems.push(`${src.label}: ${i.path ? `${i.path}: ` : ''}${i.message}`);
    if (typeof src.value === 'object' && src.value !== null && 'profiles' in src.value) profilesFrom = src;
    roots.push(...c.roots);
    // A `permissions` block is taken whole from the last source that has one (the workspace's over the
    // setting mcpx.permissions): rules are ordered, and two lists merged would have no order to keep.
    if (c.permissions) permissions = c.permissions;
    // So is a `guardrails` block (the workspace's over the setting mcpx.guardrails), for the same reason.
    if (c.guardrails) guardrails = c.guardrails;
    // And `skills`, but a workspace's only once it is trusted: the directories it names are read and served
    // to every agent (docs/gateway.md "Skills").
    if (c.skills && (!src.workspace || ctx.trusted)) skills = c.skills;
    for (const def of c.servers) {
      // Workspace Trust: a workspace's stdio server is a command the workspace chose; it is not spawned
      // until the person trusts the workspace (the user's own definition of that name stays in use).
      if (src.workspace && !ctx.trusted && def.type === 'stdio') {
        untrusted.push(def.name);
        continue;
      }
      const prev = byName.get(def.name);
      if (prev)
        clashes.push(
          `server ${JSON.stringify(def.name)} is defined in ${prev.from.label} and in ${src.label}; the one in ${src.label} is used`,
        );
      byName.set(def.name, { def, from: src });
    }
  }
  // A server named like mcpx's own skills, in another source than the skills block (one source says so itself).
  const own = skills && byName.get(OWN_SKILLS);
  const clash = own && `${own.from.label}: servers.${OWN_SKILLS}: "${OWN_SKILLS}" names mcpx's own skills`;
  if (own && !problems.some((p) => p.startsWith(clash!)))
    problems.push(`${clash} (the skills block); choose another name for this server`);
  // Profiles, like permissions, whole from the last source that has a block; they may name a server of
  // either source (and mcpx's own skills where a skills block is in use).
  const parsed = profilesFrom
    ? parseProfiles(
        (profilesFrom.value as { profiles: unknown }).profiles,
        [...byName.keys(), ...untrusted, ...(skills ? [OWN_SKILLS] : [])],
        guardrails?.detectors,
      )
    : undefined;
  for (const i of parsed?.issues ?? []) problems.push(`${profilesFrom!.label}: ${i.path}: ${i.message}`);
  const profiles = parsed?.profiles.size ? parsed.profiles : undefined;
  const config: Config = {
    servers: [...byName.values()].map((e) => e.def),
    roots,
    settings: {},
    issues: [],
    source: sources.map((s) => s.label).join(' + '),
    ...(permissions ? { permissions } : {}),
    ...(guardrails ? { guardrails } : {}),
    ...(profiles ? { profiles } : {}),
    ...(skills ? { skills } : {}),
  };
  const fromWorkspace = new Set([
    ...[...byName.values()].filter((e) => e.from.workspace).map((e) => e.def.name),
    ...untrusted,
  ]);
  return { config, problems, clashes, untrusted, fromWorkspace };
}
