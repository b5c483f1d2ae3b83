// The `offered` step: the call is one its caller's endpoint offers (docs/gateway.md "Profiles", "The
// surface"), found once — a tool in its server's list (the profile's servers and globs, the server's
// tools filter), a prompt by the name the client sees, a resource where its URI is read or watched, a
// completion at the server of what it completes. What is not offered is refused as unknown, before
// anything is decided or recorded.
import { OWN_SKILLS } from '../../config/skills';
import { UI_SCHEME } from '../../protocol/extensions';
import { CODES, ProtocolError, invalidParams, resourceNotFound } from '../../protocol/errors';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { CallContext } from '../../server/provider';
import type { Pool } from '../../upstream/pool';
import type { AppUris } from '../surface/apps';
import { extensionSet } from './capabilities';
import type { Calls } from './inFlight';
import type { Catalogue } from '../catalogue/catalogue';
import { toolAllowed } from '../catalogue/names';
import type { Pins } from '../pins/pins';
import type { Profiles } from '../profiles/profiles';
import { noSuchTool, offeredServer } from '../profiles/view';
import type { Prompts } from '../surface/prompts';
import type { Skills } from '../surface/skills';
import { parseQualifiedSkillUri } from '../catalogue/skillUris';
import { skillNameOf } from '../../protocol/skills';
import { WATCH_IDENTITY } from '../inbox/subscriptions';
import { type Located, locateResource } from '../surface/resources';
import { normaliseUri, parseGatewayUri } from '../catalogue/uris';
import type { Call, Named } from './call';
import { type Step, step } from './chain';

export interface OfferedDeps {
  profiles: Pick<Profiles, 'of'>;
  pool: Pick<Pool, 'def'>;
  /** Whether a tool is held by its pin (a held name no list shows is still the holder's to refuse). */
  pins: Pick<Pins, 'heldOf'>;
  catalogue: Catalogue;
  calls: Pick<Calls, 'signedIn'>;
  passthrough: readonly string[];
  prompts: Pick<Prompts, 'find'>;
  /** The ui:// URIs the pass-through tools name (gateway/surface/apps.ts). */
  apps(ctx: CallContext): Promise<AppUris>;
  /** The skills each endpoint offers and where their URIs are read (gateway/surface/skills.ts). */
  skills: Pick<Skills, 'find' | 'locate'>;
}

/** Not offered to this caller: refused as an unknown tool or server (-32602). `unnamed`: what it names is
 *  no configured server (not to be quoted: it may be anything the caller wrote). */
export class NotOffered extends ProtocolError {
  constructor(
    message: string,
    readonly unnamed = false,
  ) {
    super(CODES.InvalidParams, message);
    this.name = 'NotOffered';
  }
}

type Finder = (call: Call, named: never, d: OfferedDeps) => Promise<void>;

const FIND: {
  readonly [K in Named['kind']]: (call: Call, named: Extract<Named, { kind: K }>, d: OfferedDeps) => Promise<void>;
} = {
  async tool(call, { server, tool }, d) {
    const { ctx } = call;
    const { view } = d.profiles.of(ctx);
    const def = d.pool.def(offeredServer(view, server));
    if (view.profile && !view.allows(server, tool)) throw noSuchTool(server, tool);
    if (!toolAllowed(tool, def.tools))
      throw invalidParams(`tool ${JSON.stringify(tool)} of ${server} is not allowed by its tools filter`);
    call.listed = await listedNow(server, tool, ctx, d);
    call.server = server;
    call.target = tool;
    // mcpx_call's answer to a gateway-mode server has its URIs made mcpx:// ones.
    call.uris = d.passthrough.includes(server) ? 'kept' : 'rewritten';
  },

  async prompt(call, { name }, d) {
    const hit = await d.prompts.find(name, call.ctx);
    if (!hit) throw invalidParams(`no prompt named ${JSON.stringify(name)}`);
    call.server = hit.server;
    call.target = hit.name;
    call.listed = hit.prompt;
    call.uris = d.passthrough.includes(hit.server) ? 'kept' : 'rewritten';
  },

  async resource(call, { uri }, d) {
    const at = await locate(call.ctx, uri, d);
    if ('reason' in at) throw resourceNotFound(uri, `Resource not found: ${at.reason}`);
    located(call, at);
  },

  /** A skill the endpoint offers, by its SKILL.md URI as the client sees it: else -32602 (SEP-2640
   *  "Retrieval via skills/get"), the same for one outside the caller's profile. */
  async skill(call, { uri }, d) {
    const hit = (await d.skills.find(uri, call.ctx)) ?? heldSkill(call.ctx, uri, d);
    if (!hit) throw invalidParams(`no skill at ${JSON.stringify(uri)}`);
    call.server = hit.server;
    call.target = hit.uri;
    call.listed = hit.entry;
  },

  async watch(call, { uri }, d) {
    // Watched where it would be read, under the identity watches are held by.
    const { view } = d.profiles.of(call.ctx);
    const at = await locateResource({ ...d, has: (s) => view.has(s) }, uri, WATCH_IDENTITY);
    if ('reason' in at) throw new NotOffered(at.reason, at.unknown);
    located(call, at);
  },

  async completion(call, { ref }, d) {
    let server: string | undefined;
    let upstreamRef: JsonObject = ref;
    if (ref.type === 'ref/prompt') {
      const hit = await d.prompts.find(String(ref.name), call.ctx);
      if (!hit) throw invalidParams(`no prompt named ${JSON.stringify(ref.name)}`);
      server = hit.server;
      upstreamRef = { ...ref, name: hit.name };
    } else if (ref.type === 'ref/resource') {
      // The URI the rules and the upstream see is the normalised one (docs/gateway.md "Resource URIs").
      const parsed = parseGatewayUri(String(ref.uri));
      server = parsed?.server || d.passthrough[0];
      upstreamRef = { ...ref, uri: normaliseUri(parsed ? parsed.inner : String(ref.uri)) };
    }
    if (!server || !d.profiles.of(call.ctx).view.has(server))
      throw invalidParams(`nothing to complete for ${JSON.stringify(ref)}`);
    call.server = server;
    call.target = String(upstreamRef.name ?? upstreamRef.uri ?? '');
    call.params = { ...call.params, ref: upstreamRef };
  },
};

/** Where a URI a client reads is read: an app's ui:// URI at the server whose tools name it
 *  (gateway/surface/apps.ts), else where `locateResource` finds it among the servers the endpoint offers. */
async function locate(ctx: CallContext, uri: string, d: OfferedDeps): Promise<Located | { reason: string }> {
  const skill = await d.skills.locate(uri, ctx);
  if (skill === 'hidden') return { reason: 'no skill this endpoint offers lists it' };
  if (skill) return { ...skill, gateway: false };
  const app = uri.startsWith(UI_SCHEME) && d.passthrough.length ? (await d.apps(ctx)).locate(uri) : undefined;
  if (app) return { ...app, gateway: false };
  const { view } = d.profiles.of(ctx);
  return locateResource({ ...d, has: (s) => view.has(s) }, uri, ctx.identity, extensionSet(ctx));
}

/** A skill the listing withholds because its pin holds it (its files changed): its holder's to refuse,
 *  where the endpoint would offer it. */
function heldSkill(
  ctx: CallContext,
  uri: string,
  d: OfferedDeps,
): { server: string; uri: string; entry?: undefined } | undefined {
  const { view } = d.profiles.of(ctx);
  const q = parseQualifiedSkillUri(uri);
  const at = (q ? [q] : [...d.passthrough, OWN_SKILLS].map((server) => ({ server, uri }))).find(
    (c) => view.skillServers().includes(c.server) && d.pins.heldOf(c.server, 'skills', c.uri),
  );
  const name = skillNameOf(uri);
  return at && name !== undefined && view.offersSkill(at.server, name) ? at : undefined;
}

/** The tool `server` lists now under exactly this name, its list fetched first where it is not yet known:
 *  listing may be what first needs a sign-in, given through the calling client where it can give one. */
async function listedNow(server: string, tool: string, ctx: CallContext, d: OfferedDeps) {
  const ext = d.passthrough.includes(server) ? extensionSet(ctx) : undefined;
  const tools = await d.calls.signedIn(server, ctx, () => d.catalogue.list(server, 'tools', ctx.identity, ext));
  return tools.find((t) => t.name === tool);
}

function located(call: Call, at: Located): void {
  call.server = at.server;
  call.target = at.uri;
  call.uris = at.gateway ? 'rewritten' : 'kept';
}

/** Find what `call` names among what its caller is offered (once: a call the surface already found is
 *  left as it is). Throws what a caller of an unknown name gets. */
export async function offer(call: Call, d: OfferedDeps): Promise<void> {
  if (!call.offered) await (FIND[call.named.kind] as Finder)(call, call.named as never, d);
  // A pass-through name the surface's index does not hold: its server's list may not be known yet (a
  // sign-in it waits for), so it is fetched through this call where the server's filter allows the name.
  else if (call.unindexed && toolAllowed(call.target, d.pool.def(call.server).tools))
    call.listed = await listedNow(call.server, call.target, call.ctx, d);
  call.offered = true;
  // Only a name the server lists now (screened: its filter, its pins, the caller's profile) is sent on: an
  // upstream may resolve `WIPE`, `wipе` (Cyrillic е) or ` wipe ` to its `wipe`, which the filter, the pins
  // and the permission rules name exactly (docs/gateway.md "Unlisted tool names"). A held one is its
  // holder's to refuse; a server may say `forwardUnlisted`, but not to the HTTP API.
  if (call.kind === 'tool' && !call.listed && !d.pins.heldOf(call.server, 'tools', call.target)) {
    if (call.listedOnly || !d.pool.def(call.server).forwardUnlisted) throw noSuchTool(call.server, call.target);
  }
}

export const offered = (d: OfferedDeps): Step =>
  step('offered', async (call, next) => {
    await offer(call, d);
    return next();
  });
