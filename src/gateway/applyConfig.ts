// A change of configuration applied to a running gateway, in place (docs/gateway.md "Changing the
// configuration"): the parts share one `defs` map and `passthrough` list, changed where they are; the
// Settings object every part reads adopts the new values; the pool retires the instances of removed or
// changed servers; the clients are told of the lists that changed. The sessions, streams and tasks live in
// server/ and transport/, which a reload never touches.
import type { Config } from '../config/file';
import type { ServerDef } from '../config/servers';
import type { Settings } from '../config/settings';
import { OWN_SKILLS } from '../config/skills';
import { CODES, ProtocolError } from '../protocol/errors';
import type { ListKind } from '../server/provider';
import type { Pool } from '../upstream/pool';
import type { Calls } from './call/inFlight';
import type { Catalogue } from './catalogue/catalogue';
import type { Subscriptions } from './inbox/subscriptions';
import { type Profiles, sameProfiles } from './profiles/profiles';
import { AT_NEXT_START, type ConfigDiff, ReloadError, diffConfig, enabledServers, problemsOf } from './reload';

/** The running gateway as a reload changes it: its configuration and settings (changed in place), the
 *  parts that hold servers, and how it tells its clients. */
export interface Running {
  readonly config: Config;
  readonly settings: Settings;
  readonly parts: {
    readonly defs: Map<string, ServerDef>;
    readonly passthrough: string[];
    readonly pool: Pick<Pool, 'retire'>;
    readonly calls: Pick<Calls, 'endServer'>;
    readonly catalogue: Pick<Catalogue, 'invalidate'>;
    readonly subscriptions: Pick<Subscriptions, 'removed' | 'replaced'>;
    readonly profiles: Pick<Profiles, 'reset' | 'reaches' | 'listingTools'>;
    log(line: string): void;
  };
  /** A list of the gateway's own changed, for every endpoint it concerns. */
  changed(kind: ListKind): void;
  announce(kind: ListKind, reaches: (profile: string | undefined) => boolean): void;
  setRoots(roots: Config['roots']): void;
}

/** Apply `config` and `settings` to the running gateway: refused whole (ReloadError) with any problem. */
export async function applyConfig(g: Running, config: Config, settings: Settings): Promise<ConfigDiff> {
  const problems = problemsOf(config);
  if (problems.length) throw new ReloadError(problems, config.source);
  const { parts } = g;
  const { defs, passthrough, pool, calls, catalogue, subscriptions, log } = parts;
  const after = enabledServers(config);
  const diff = diffConfig(defs, after, g.settings, settings);
  // Kept servers keep their definition object: the pool tells its instances apart by it.
  for (const name of diff.kept) after.set(name, defs.get(name)!);
  defs.clear();
  for (const [name, def] of after) defs.set(name, def);
  // Who listed upstream tools before the change: they hear that the list changed even when nothing is
  // listed after it (the last pass-through server removed).
  const toolsBefore = parts.profiles.listingTools();
  const profilesBefore = g.config.profiles;
  const guardrailsChanged = JSON.stringify(g.config.guardrails) !== JSON.stringify(config.guardrails);
  const skillsChanged = JSON.stringify(g.config.skills) !== JSON.stringify(config.skills);
  const named = g.settings.get<string[]>('mcp.passthrough');
  passthrough.splice(0, passthrough.length, ...named.filter((n) => defs.has(n)));
  g.settings.adopt(settings, AT_NEXT_START);
  const roots = config.roots;
  const rootsChanged = JSON.stringify(roots) !== JSON.stringify(g.config.roots);
  Object.assign(g.config, {
    servers: config.servers,
    settings: config.settings,
    issues: [],
    source: config.source,
    // The gate reads it per call: the next call is decided by the new rules.
    permissions: config.permissions,
    // Each profile's view is made again from the new block on its next request.
    profiles: config.profiles,
    // Read per call too (gateway/guardrails/guards.ts): the next call is screened by the new rules.
    guardrails: config.guardrails,
    // The directories of mcpx's own skills, read at their next listing.
    skills: config.skills,
  });
  parts.profiles.reset();
  const profilesChanged = !sameProfiles(profilesBefore, config.profiles);
  for (const name of diff.removed) {
    calls.endServer(name, new ProtocolError(CODES.InternalError, `server ${name} was removed from the configuration`));
    subscriptions.removed(name);
  }
  for (const name of [...diff.removed, ...diff.changed, ...diff.added]) catalogue.invalidate(name);
  // mcpx's own skills are read from their folders again at every reload, changed or not: nothing else
  // tells mcpx a folder changed (docs/gateway.md "Skills").
  catalogue.invalidate(OWN_SKILLS);
  if (skillsChanged) {
    log(`configuration ${config.source} applied: skills directories changed`);
    // A skill's files are resources: the extension has no list_changed of its own (SEP-2640).
    g.changed('resources');
  }
  await pool.retire();
  for (const name of diff.changed) subscriptions.replaced(name);
  if (rootsChanged) g.setRoots(roots);
  const touched = [...diff.added, ...diff.removed, ...diff.changed];
  if (touched.length) {
    log(
      `configuration ${config.source} applied: added ${diff.added.join(', ') || 'none'}; removed ${diff.removed.join(', ') || 'none'}; changed ${diff.changed.join(', ') || 'none'}`,
    );
    // Gateway mode lists the servers' prompts and resources under their names; pass-through lists
    // their tools too (docs/protocol.md "Changing the configuration").
    g.changed('prompts');
    g.changed('resources');
    const toolsAfter = parts.profiles.listingTools();
    if (toolsBefore.size || toolsAfter.size) g.announce('tools', (p) => toolsBefore.has(p) || toolsAfter.has(p));
  }
  if (profilesChanged) {
    // A profile's block changed: its clients' lists may all have (every profile endpoint is told).
    log(`configuration ${config.source} applied: profiles changed`);
    for (const kind of ['tools', 'prompts', 'resources'] as const)
      g.announce(kind, (p) => p !== undefined && parts.profiles.reaches(kind, undefined)(p));
  }
  if (guardrailsChanged) {
    // Descriptions are screened as a list is fetched: every list is fetched again under the new rules.
    for (const name of defs.keys()) catalogue.invalidate(name);
    log(`configuration ${config.source} applied: guardrails changed`);
    for (const kind of ['tools', 'prompts'] as const) g.announce(kind, () => true);
  }
  if (diff.atNextStart.length) log(`settings applied at the next start: ${diff.atNextStart.join(', ')}`);
  return diff;
}
