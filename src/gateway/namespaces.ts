// The namespaced half of the gateway's surface: prompts as <server>_<prompt>, resources and templates as
// mcpx://<server>/<uri> (pass-through servers under their own names), completion routed by what it
// completes. Names and URIs map to a server here; the call itself goes through the Gateway.
import type { ServerDef } from '../config/servers';
import { CODES, McpxError, ProtocolError, invalidParams, resourceNotFound } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { UI_SCHEME } from '../protocol/extensions';
import { hasField } from '../protocol/revisions';
import type { CallContext } from '../server/provider';
import { UpstreamError } from '../upstream/client';
import type { ExtensionSet } from '../upstream/instances';
import type { Pool } from '../upstream/pool';
import type { AppUris } from './apps';
import { extensionSet } from './capabilities';
import type { Catalogue } from './catalogue';
import type { CallPath } from './activity/record';
import type { Gate } from './permissions/gate';
import type { Pins } from './pins/pins';
import { safeName } from './names';
import type { ToolView } from './profiles/view';
import { passedThrough } from './screen';
import {
  normaliseUri,
  parseGatewayUri,
  resolveInner,
  rewriteUris,
  templateMatches,
  toGatewayTemplate,
  toGatewayUri,
} from './uris';

/** What the namespaces need of the Gateway. */
export interface NamespaceDeps {
  defs: ReadonlyMap<string, ServerDef>;
  passthrough: readonly string[];
  /** What the caller's endpoint offers: a profile's prompts and resources are its servers' only. */
  profiles: { of(ctx: CallContext): { readonly view: ToolView } };
  catalogue: Catalogue;
  pool: Pool;
  log(line: string): void;
  /** An upstream request on behalf of a call (registered as in flight, progress relayed). */
  upstream(server: string, ctx: CallContext, method: string, params: JsonObject): Promise<JsonObject>;
  /** The ui:// URIs the pass-through tools name, as the calling client lists them (gateway/apps.ts). */
  apps(ctx: CallContext): Promise<AppUris>;
  /** Every read and prompt passes the permission check (gateway/permissions/gate.ts). */
  gate: Pick<Gate, 'run'>;
  /** A prompt held by its pin is refused, and an app's changed content (gateway/pins/pins.ts). */
  pins: Pick<Pins, 'heldOf' | 'refuse' | 'screenApp'>;
}

/** Which server a resource URI is read (or watched) at, and under which URI there. */
export interface Located {
  server: string;
  uri: string;
  /** An mcpx:// URI (its answer is rewritten back), not a pass-through server's own. */
  gateway: boolean;
}

/** Where `uri` lives, or why nowhere: an mcpx:// URI names its server; a bare URI goes to the first
 *  pass-through server that lists it or has a template for it, else to the first (docs/gateway.md
 *  "Pass-through"). The URI found is the normalised one (uris.ts normaliseUri): what the permission rules
 *  and the pins are matched against and what the upstream is sent, however the client spelled it
 *  (docs/gateway.md "Resource URIs"). `has`: the servers the caller's endpoint offers (a profile's;
 *  default: all). `ext`: the pass-through servers' lists as a client with these extensions sees them. */
export async function locateResource(
  d: Pick<NamespaceDeps, 'defs' | 'passthrough' | 'catalogue'> & { has?: (server: string) => boolean },
  uri: string,
  identity: string,
  ext?: ExtensionSet,
): Promise<Located | { reason: string; unknown?: true }> {
  const has = d.has ?? ((s: string) => d.defs.has(s));
  const passthrough = d.passthrough.filter(has);
  const parsed = parseGatewayUri(uri);
  if (parsed) {
    if (!parsed.server) return { reason: 'the mcpx:// URI names no server' };
    // Not quoted: a name that is not configured may be anything the client wrote.
    if (!has(parsed.server)) return { reason: 'the mcpx:// URI names no configured server', unknown: true };
    const known = new Set(
      (await d.catalogue.list(parsed.server, 'resources', identity).catch(() => [] as JsonObject[])).map((r) =>
        normaliseUri(String(r.uri)),
      ),
    );
    return { server: parsed.server, uri: resolveInner(normaliseUri(parsed.inner), known), gateway: true };
  }
  if (passthrough.length === 0) return { reason: 'not an mcpx:// URI' };
  const wanted = normaliseUri(uri);
  for (const server of passthrough) {
    const rs = await d.catalogue.list(server, 'resources', identity, ext).catch(() => [] as JsonObject[]);
    if (rs.some((r) => normaliseUri(String(r.uri)) === wanted)) return { server, uri: wanted, gateway: false };
    const ts = await d.catalogue.list(server, 'resourceTemplates', identity, ext).catch(() => [] as JsonObject[]);
    if (ts.some((t) => templateMatches(String(t.uriTemplate), wanted))) return { server, uri: wanted, gateway: false };
  }
  return { server: passthrough[0]!, uri: wanted, gateway: false };
}

export class Namespaces {
  constructor(private readonly d: NamespaceDeps) {}

  // ---- prompts -------------------------------------------------------------------------------

  private async promptIndex(
    ctx: CallContext,
  ): Promise<Map<string, { server: string; name: string; prompt: JsonObject }>> {
    const out = new Map<string, { server: string; name: string; prompt: JsonObject }>();
    const lists = await this.allLists('prompts', ctx);
    for (const [server, prompts] of lists) {
      for (const p of prompts) {
        const name = String(p.name);
        const shown = this.d.passthrough.includes(server) ? name : safeName(`${server}_${name}`);
        const other = out.get(shown);
        if (other)
          throw new ProtocolError(
            CODES.InternalError,
            `prompt ${JSON.stringify(shown)} is offered by both ${other.server} and ${server}`,
          );
        out.set(shown, { server, name, prompt: p });
      }
    }
    return out;
  }

  /** Every offered server's list of one kind (a pass-through server's as the client sees it: its
   *  extensions); a server that cannot be reached is logged and left out. */
  private async allLists(
    kind: 'prompts' | 'resources' | 'resourceTemplates',
    ctx: CallContext,
  ): Promise<Array<[string, JsonObject[]]>> {
    const servers = this.d.profiles.of(ctx).view.servers();
    const ext = extensionSet(ctx);
    const lists = await Promise.all(
      servers.map((s) =>
        this.d.catalogue
          .list(s, kind, ctx.identity, this.d.passthrough.includes(s) ? ext : undefined)
          .catch((e: Error) => {
            this.d.log(`[${s}] ${kind} unavailable: ${e.message}`);
            return [] as JsonObject[];
          }),
      ),
    );
    return servers.map((s, i) => [s, lists[i]!]);
  }

  async listPrompts(ctx: CallContext): Promise<JsonObject[]> {
    return [...(await this.promptIndex(ctx)).entries()].map(([shown, e]) => ({ ...e.prompt, name: shown }));
  }

  async getPrompt(name: string, args: Record<string, string>, ctx: CallContext): Promise<JsonObject> {
    const hit = (await this.promptIndex(ctx)).get(name);
    if (!hit) throw invalidParams(`no prompt named ${JSON.stringify(name)}`);
    const held = this.d.pins.heldOf(hit.server, 'prompts', hit.name);
    if (held) this.d.pins.refuse(held);
    const result = await this.d.gate.run(
      { kind: 'prompt', server: hit.server, target: hit.name, args, path: 'pass-through' },
      ctx,
      () => this.d.upstream(hit.server, ctx, 'prompts/get', { name: hit.name, arguments: args }),
    );
    return this.d.passthrough.includes(hit.server)
      ? passedThrough(hit.server, 'prompts/get', result)
      : rewriteUris(hit.server, result);
  }

  // ---- resources -----------------------------------------------------------------------------

  async listResources(ctx: CallContext): Promise<JsonObject[]> {
    const lists = await this.allLists('resources', ctx);
    // A pass-through server's ui:// resource is shown as its tools name it (gateway/apps.ts); the tools
    // are listed for that only where such a resource is.
    const ui = lists.some(
      ([s, rs]) => this.d.passthrough.includes(s) && rs.some((r) => String(r.uri).startsWith(UI_SCHEME)),
    );
    const apps = ui ? await this.d.apps(ctx) : undefined;
    const own = (server: string, r: JsonObject): JsonObject => {
      const uri = apps?.shown(server, String(r.uri)) ?? r.uri;
      return uri === r.uri ? r : { ...r, uri };
    };
    return lists.flatMap(([server, rs]) =>
      this.d.passthrough.includes(server)
        ? rs.map((r) => own(server, r))
        : rs.map((r) => ({ ...r, uri: toGatewayUri(server, String(r.uri)) })),
    );
  }

  async listResourceTemplates(ctx: CallContext): Promise<JsonObject[]> {
    return (await this.allLists('resourceTemplates', ctx)).flatMap(([server, ts]) =>
      this.d.passthrough.includes(server)
        ? ts
        : ts.map((t) => ({ ...t, uriTemplate: toGatewayTemplate(server, String(t.uriTemplate)) })),
    );
  }

  /** The four not-found causes map to resource-not-found; anything else is -32603 (docs/protocol.md
   *  "Resource not found"). */
  async readResource(uri: string, ctx: CallContext): Promise<JsonObject> {
    const target = await this.resolveResource(uri, ctx);
    try {
      const result = await this.d.gate.run(
        { kind: 'resource', server: target.server, target: target.uri, args: {}, path: 'pass-through' },
        ctx,
        async () => {
          const read = await this.d.upstream(target.server, ctx, 'resources/read', { uri: target.uri });
          // An app's content is what its pin says, or held (docs/gateway.md "Pins").
          if (target.uri.startsWith(UI_SCHEME)) this.d.pins.screenApp(target.server, target.uri, read);
          return read;
        },
      );
      if (!target.gateway) {
        const checked = passedThrough(target.server, 'resources/read', result);
        return target.uri === uri ? checked : shownAs(checked, target.uri, uri);
      }
      const contents = Array.isArray(result.contents) ? result.contents : [];
      return {
        ...result,
        contents: contents.map((c) =>
          isObject(c) && c.uri === target.uri
            ? { ...c, uri }
            : isObject(c) && typeof c.uri === 'string'
              ? { ...c, uri: toGatewayUri(target.server, c.uri) }
              : c,
        ),
      };
    } catch (e) {
      if (e instanceof UpstreamError && (e.code === CODES.ResourceNotFoundLegacy || e.code === CODES.InvalidParams)) {
        throw resourceNotFound(ctx.rev, uri, `Resource not found (${target.server} said: ${e.message})`);
      }
      if (e instanceof UpstreamError || e instanceof McpxError) throw e;
      throw new ProtocolError(CODES.InternalError, `reading ${uri} failed: ${(e as Error).message}`);
    }
  }

  private async resolveResource(uri: string, ctx: CallContext): Promise<Located> {
    const { view } = this.d.profiles.of(ctx);
    // An app's ui:// URI reads at the server whose tools name it (gateway/apps.ts).
    const app =
      uri.startsWith(UI_SCHEME) && this.d.passthrough.length ? (await this.d.apps(ctx)).locate(uri) : undefined;
    if (app) return { ...app, gateway: false };
    const at = await locateResource({ ...this.d, has: (s) => view.has(s) }, uri, ctx.identity, extensionSet(ctx));
    if ('reason' in at) throw resourceNotFound(ctx.rev, uri, `Resource not found: ${at.reason}`);
    return at;
  }

  // ---- completion ----------------------------------------------------------------------------

  /** completion/complete, through the gate and recorded like a call (activity kind `completion`, its
   *  target the prompt's name or the resource's normalised URI): a rule that refuses the server refuses
   *  its completions too, before its upstream is asked (docs/gateway.md "Permissions"). */
  async complete(params: JsonObject, ctx: CallContext, path: CallPath = 'pass-through'): Promise<JsonObject> {
    const ref = params.ref as JsonObject;
    let server: string | undefined;
    let upstreamRef: JsonObject = ref;
    let target = '';
    if (ref.type === 'ref/prompt') {
      const hit = (await this.promptIndex(ctx)).get(String(ref.name));
      if (!hit) throw invalidParams(`no prompt named ${JSON.stringify(ref.name)}`);
      server = hit.server;
      upstreamRef = { ...ref, name: hit.name };
      target = hit.name;
    } else if (ref.type === 'ref/resource') {
      const parsed = parseGatewayUri(String(ref.uri));
      server = parsed?.server || this.d.passthrough[0];
      target = normaliseUri(parsed ? parsed.inner : String(ref.uri));
      upstreamRef = { ...ref, uri: target };
    }
    if (!server || !this.d.profiles.of(ctx).view.has(server))
      throw invalidParams(`nothing to complete for ${JSON.stringify(ref)}`);
    const { ref: _r, _meta: _m, ...rest } = params;
    void _r;
    void _m;
    const at = server;
    return this.d.gate.run({ kind: 'completion', server, target, args: rest, path }, ctx, () =>
      this.completeAt(at, { ...rest, ref: upstreamRef }, ctx),
    );
  }

  /** The upstream's completion, where it declared completions (or predates the capability). */
  private async completeAt(server: string, params: JsonObject, ctx: CallContext): Promise<JsonObject> {
    // A pass-through server's instance as the client's extensions have it (docs/protocol.md "Extensions
    // across the gateway").
    const ext = this.d.passthrough.includes(server) ? extensionSet(ctx) : undefined;
    const client = await this.d.pool.client(server, ctx.identity, ext);
    const declared = 'completions' in client.negotiated.capabilities;
    // 2024-11-05 had no completions capability: such a server is asked anyway (docs/protocol.md "Completions and 2024-11-05").
    const rev = client.negotiated.revision;
    const askAnyway = !hasField('ServerCapabilities', 'completions', rev);
    const fromCache = (reason: string): JsonObject => ({
      completion: { values: [], total: 0, hasMore: false },
      _meta: { 'dev.mcpx/source': 'cache', 'dev.mcpx/reason': reason },
    });
    if (!declared && !askAnyway) return fromCache(`${server} does not declare completions`);
    try {
      // As a call's request: in flight on its server (its progress, its questions, ended with the server).
      return await this.d.upstream(server, ctx, 'completion/complete', params);
    } catch (e) {
      if (askAnyway && e instanceof UpstreamError && e.code === CODES.MethodNotFound)
        return fromCache(`${server} (${rev}) has no completion/complete`);
      throw e;
    }
  }
}

/** A read's result with the contents at `inner` (the upstream's URI) shown at `uri` (the one read). */
function shownAs(result: JsonObject, inner: string, uri: string): JsonObject {
  if (!Array.isArray(result.contents)) return result;
  return { ...result, contents: result.contents.map((c) => (isObject(c) && c.uri === inner ? { ...c, uri } : c)) };
}
