// The `sent` step, the chain's last: the call made upstream on behalf of its caller (calls.ts: in flight on
// its connection, its progress, logs and questions relayed), and the answer as the caller gets it — a
// pass-through server's relayed as written (its URIs checked: screen.ts), a gateway-mode server's with its
// URIs made mcpx:// ones. A completion goes to its server where that server completes; a watch becomes an
// upstream subscription (subscriptions.ts).
import { OWN_SKILLS } from '../../config/skills';
import { CODES, McpxError, ProtocolError, resourceNotFound } from '../../protocol/errors';
import { UI_SCHEME } from '../../protocol/extensions';
import { type JsonObject, isObject } from '../../protocol/jsonrpc';
import { UpstreamError } from '../../upstream/client';
import type { Pool } from '../../upstream/pool';
import { extensionSet } from './capabilities';
import { type CallRequest, type Calls, taskSupportOf } from './inFlight';
import { passedThrough } from '../catalogue/screen';
import type { Pins } from '../pins/pins';
import type { Subscriptions, Watch } from '../inbox/subscriptions';
import { rewriteUris, toGatewayUri } from '../catalogue/uris';
import type { Call, ChainKind } from './call';
import type { Catalogue } from '../catalogue/catalogue';
import type { Skills } from '../surface/skills';
import { verifySkillRead } from '../../upstream/skillFiles';
import { refreshedSkill } from './skill';
import { type Step, step } from './chain';

export interface SentDeps {
  calls: Pick<Calls, 'request'>;
  pool: Pick<Pool, 'client'>;
  /** An app's content is what its pin says, or held (docs/gateway.md "Pins"). */
  pins: Pick<Pins, 'screenApp' | 'heldOf' | 'refuse' | 'heldSkillFile'>;
  /** A skill's files checked as they are read; skills/get shown as the caller sees it. */
  skills: Pick<Skills, 'listing' | 'show'>;
  catalogue: Pick<Catalogue, 'invalidate' | 'list'>;
  passthrough: readonly string[];
  subscriptions: Pick<Subscriptions, 'watch'>;
}

/** The answer of a call whose URIs are kept (screened) or rewritten. */
function shaped(call: Call, method: string, result: JsonObject): JsonObject {
  return call.uris === 'kept' ? passedThrough(call.server, method, result) : rewriteUris(call.server, result);
}

/** A named thing of the upstream's (a tool, a prompt) asked for with the call's arguments, its answer
 *  shaped. */
async function named<M extends 'tools/call' | 'prompts/get'>(
  call: Call,
  d: SentDeps,
  method: M,
  o: Pick<CallRequest, 'timeoutMs' | 'taskSupport'> = {},
) {
  const params = { name: call.target, arguments: call.args };
  return shaped(call, method, await d.calls.request({ server: call.server, ctx: call.ctx, method, params, ...o }));
}

const SEND: { readonly [K in ChainKind]: (call: Call, d: SentDeps) => Promise<unknown> } = {
  tool: (call, d) =>
    named(call, d, 'tools/call', { timeoutMs: call.timeoutMs, taskSupport: taskSupportOf(call.listed) }),

  prompt: (call, d) => named(call, d, 'prompts/get'),

  /** The four not-found causes map to resource-not-found; anything else is -32603 (docs/protocol.md
   *  "Resource not found"). */
  async resource(call, d) {
    const { server, ctx, target } = call;
    const uri = call.named.kind === 'resource' ? call.named.uri : target;
    // A skill's file: checked against the listing mcpx holds now (fetched first), not read while its skill
    // is held by its pin (docs/gateway.md "Skills").
    const skills = await d.skills.listing(server, target, ctx);
    const held = d.pins.heldSkillFile(server, target);
    if (held) d.pins.refuse(held);
    let result: JsonObject;
    try {
      result = await d.calls.request({ server, ctx, method: 'resources/read', params: { uri: target } });
      if (target.startsWith(UI_SCHEME)) d.pins.screenApp(server, target, result);
      verifySkillRead(server, target, skills, result);
    } catch (e) {
      if (e instanceof UpstreamError && (e.code === CODES.ResourceNotFoundLegacy || e.code === CODES.InvalidParams))
        throw resourceNotFound(uri, `Resource not found (${server} said: ${e.message})`);
      if (e instanceof UpstreamError || e instanceof McpxError) throw e;
      throw new ProtocolError(CODES.InternalError, `reading ${uri} failed: ${(e as Error).message}`);
    }
    if (call.uris === 'kept') {
      const checked = passedThrough(server, 'resources/read', result);
      return target === uri ? checked : shownAs(checked, target, uri);
    }
    const contents = Array.isArray(result.contents) ? result.contents : [];
    return {
      ...result,
      contents: contents.map((c) =>
        isObject(c) && c.uri === target
          ? { ...c, uri }
          : isObject(c) && typeof c.uri === 'string'
            ? { ...c, uri: toGatewayUri(server, c.uri) }
            : c,
      ),
    };
  },

  /** Where the server completes (docs/protocol.md "Completions and 2024-11-05"); else no values, said to
   *  come from mcpx. A pass-through server's instance as the client's extensions have it. */
  async completion(call, d) {
    const { server, ctx } = call;
    const ext = d.passthrough.includes(server) ? extensionSet(ctx) : undefined;
    const client = await d.pool.client(server, ctx.identity, ext);
    const completes = client.completions();
    const fromCache = (reason: string): JsonObject => ({
      completion: { values: [], total: 0, hasMore: false },
      _meta: { 'dev.mcpx/source': 'cache', 'dev.mcpx/reason': reason },
    });
    if (completes === 'undeclared') return fromCache(`${server} does not declare completions`);
    try {
      // As a call's request: in flight on its server (its progress, its questions, ended with the server).
      return await d.calls.request({ server, ctx, method: 'completion/complete', params: call.params });
    } catch (e) {
      if (completes === 'undeclarable' && e instanceof UpstreamError && e.code === CODES.MethodNotFound)
        return fromCache(`${server} (${client.negotiated.revision}) has no completion/complete`);
      throw e;
    }
  },

  skill: (call, d) => refreshedSkill(call, d),

  watch(call, d): Promise<Watch> {
    if (call.named.kind !== 'watch') throw new Error('not a watch');
    return d.subscriptions.watch({ server: call.server, uri: call.target }, call.named.uri, call.named.deliver);
  },
};

export const sent = (d: SentDeps): Step =>
  step('sent', (call) => {
    const answer = SEND[call.kind](call, d);
    if (call.server !== OWN_SKILLS) return answer;
    // mcpx's own folders announce no change: a read or a get that fails there (a file changed, removed, grown)
    // drops their listing, so the next one reads them again (docs/gateway.md "Skills").
    return answer.catch((e: unknown) => {
      d.catalogue.invalidate(OWN_SKILLS, ['skills']);
      throw e;
    });
  });

/** A read's result with the contents at `inner` (the upstream's URI) shown at `uri` (the one read). */
function shownAs(result: JsonObject, inner: string, uri: string): JsonObject {
  if (!Array.isArray(result.contents)) return result;
  return { ...result, contents: result.contents.map((c) => (isObject(c) && c.uri === inner ? { ...c, uri } : c)) };
}
