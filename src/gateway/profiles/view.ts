// What one endpoint offers (docs/gateway.md "Profiles"): the default endpoint's set — every configured
// server, its `tools.allow`/`tools.deny`, the servers of mcp.passthrough under their own names and every
// gateway tool — or a profile's: its servers and their include/exclude globs, its mode, its names (prefix
// rule, renames, shortened to the hosts' 64), its description overrides. Every path reads the one view
// of its request (profiles.ts `of`), so tools/list, the discovery tools, mcpx_call, mcpx_exec, prompts
// and resources agree.
import type { Profile } from '../../config/profiles';
import type { ServerDef } from '../../config/servers';
import { OWN_SKILLS } from '../../config/skills';
import { globMatches } from '../../kit/globs';
import { CODES, ProtocolError, invalidParams } from '../../protocol/errors';
import type { JsonObject } from '../../protocol/jsonrpc';
import { safeName, toolAllowed } from '../catalogue/names';
import { SEARCH_MODE_TOOLS } from '../search/find';

export interface ToolView {
  /** The profile, or undefined for the default endpoint. */
  readonly profile?: Profile;
  /** The servers offered, in order (enabled ones only). */
  servers(): string[];
  /** Whether a server is offered. */
  has(server: string): boolean;
  /** Whether the upstream tool `name` of `server` is offered (its server's filter and the profile's). */
  allows(server: string, name: string): boolean;
  /** Whether the skill `name` of `server` is offered (SEP-2640 skills: the server offered, and the
   *  profile's `skills` globs where it has them); `server` may be mcpx's own source (OWN_SKILLS). */
  offersSkill(server: string, name: string): boolean;
  /** The servers whose skills are offered: the servers, and mcpx's own source where it is configured and
   *  offered (every endpoint's, a profile's that names it). */
  skillServers(): string[];
  /** The servers whose tools tools/list shows under their own (shown) names. */
  listed(): readonly string[];
  /** Whether tools/list shows this offered tool (search mode: only the pinned ones). */
  lists(server: string, name: string): boolean;
  /** The name a client is shown and calls it by. */
  shown(server: string, name: string): string;
  /** The tool as this view shows it: its description overridden where the profile says. */
  present(server: string, tool: JsonObject): JsonObject;
  /** Which gateway tools are listed and callable; undefined: all of them. */
  readonly gatewayTools?: ReadonlySet<string>;
}

/** The default endpoint: what mcpx offered before profiles. `passthrough` and `own` (whether mcpx serves
 *  skills of its own) are read live (a reload changes them). */
export function defaultView(
  defs: ReadonlyMap<string, ServerDef>,
  passthrough: readonly string[],
  own: () => boolean = () => false,
): ToolView {
  return {
    servers: () => [...defs.keys()],
    has: (server) => defs.has(server),
    skillServers: () => [...defs.keys(), ...(own() ? [OWN_SKILLS] : [])],
    allows: (server, name) => {
      const def = defs.get(server);
      return def !== undefined && toolAllowed(name, def.tools);
    },
    offersSkill: (server) => defs.has(server) || (server === OWN_SKILLS && own()),
    listed: () => passthrough,
    lists: () => true,
    shown: (server, name) => (passthrough.includes(server) ? safeName(name) : safeName(`${server}_${name}`)),
    present: (_server, tool) => tool,
  };
}

/** The gateway tools each mode lists besides the upstreams' (search mode: SEARCH_MODE_TOOLS). */
const GATEWAY_TOOLS_OF: Record<Profile['mode'], ReadonlySet<string> | undefined> = {
  passthrough: new Set(),
  aggregated: undefined,
  both: undefined,
  search: new Set(SEARCH_MODE_TOOLS),
};

/** A profile's view over the configured servers (`defs`, read live) and mcpx's own skills (`own`). */
export function profileView(
  p: Profile,
  defs: ReadonlyMap<string, ServerDef>,
  own: () => boolean = () => false,
): ToolView {
  const servers = () => [...p.servers.keys()].filter((s) => defs.has(s));
  const has = (server: string) => p.servers.has(server) && defs.has(server);
  const ownOffered = () => p.servers.has(OWN_SKILLS) && own();
  const listsTools = p.mode === 'passthrough' || p.mode === 'both';
  const pinned = new Set(p.pinned.map((x) => `${x.server}\u0000${x.tool}`));
  // Each tool's presented form, made once per tool object the catalogue holds.
  const presented = new WeakMap<JsonObject, JsonObject>();
  return {
    profile: p,
    servers,
    has,
    allows: (server, name) => {
      const e = p.servers.get(server);
      const def = defs.get(server);
      if (!e || !def || !toolAllowed(name, def.tools)) return false;
      if (e.exclude?.some((g) => globMatches(g, name))) return false;
      return !e.include || e.include.some((g) => globMatches(g, name));
    },
    offersSkill: (server, name) => {
      const skills = p.servers.get(server)?.skills;
      const offered = server === OWN_SKILLS ? ownOffered() : has(server);
      return offered && (!skills || skills.some((g) => globMatches(g, name)));
    },
    skillServers: () => [...servers(), ...(ownOffered() ? [OWN_SKILLS] : [])],
    listed: () => (listsTools ? servers() : p.mode === 'search' ? [...new Set(p.pinned.map((x) => x.server))] : []),
    lists: (server, name) => listsTools || pinned.has(`${server}\u0000${name}`),
    shown: (server, name) => {
      const e = p.servers.get(server);
      const renamed = e?.rename[name];
      if (renamed !== undefined) return safeName(renamed);
      const prefix = e?.prefix ?? (p.prefix === 'server' ? `${server}_` : '');
      return safeName(`${prefix}${name}`);
    },
    present: (server, tool) => {
      const description = p.servers.get(server)?.describe[String(tool.name)];
      if (description === undefined) return tool;
      let out = presented.get(tool);
      if (!out) presented.set(tool, (out = { ...tool, description }));
      return out;
    },
    gatewayTools: GATEWAY_TOOLS_OF[p.mode],
  };
}

/** `server`, where the view offers it; else the error a server nobody configured gets (upstream/pool.ts
 *  `def`), naming only what the view offers: outside a profile is unknown, not forbidden. */
export function offeredServer(view: ToolView, server: string): string {
  if (view.has(server)) return server;
  throw new ProtocolError(
    CODES.InvalidParams,
    `no server named ${JSON.stringify(server)}; configured: ${view.servers().join(', ') || 'none'}`,
  );
}

/** A tool a profile does not offer, refused as one its server does not have. */
export const noSuchTool = (server: string, tool: string): ProtocolError =>
  invalidParams(`server ${server} has no tool named ${JSON.stringify(tool)}`);
