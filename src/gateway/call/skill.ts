// The `sent` step of a skills/get (SEP-2640 "Retrieval via skills/get"; docs/gateway.md "Skills"): the
// skill's entry asked of its server, checked, and compared with the entry the caller was offered. A skill
// whose files (or frontmatter) changed since the listing is a changed skill: its server's listing is
// fetched again, so the pins see the change — held under `hold`, the call refused naming the review, as a
// changed tool is — and otherwise the new entry is answered.
import { canonicalJson } from '../../kit/canonical';
import { CODES, ProtocolError, invalidParams } from '../../protocol/errors';
import { type JsonObject, isObject } from '../../protocol/jsonrpc';
import { SKILL_RESULTS } from '../../protocol/skills';
import type { CallContext } from '../../server/provider';
import { UpstreamError } from '../../upstream/client';
import type { Catalogue } from '../catalogue/catalogue';
import type { Pins } from '../pins/pins';
import type { Skills } from '../surface/skills';
import type { Call } from './call';
import { extensionSet } from './capabilities';
import type { Calls } from './inFlight';

export interface SkillDeps {
  calls: Pick<Calls, 'request'>;
  pins: Pick<Pins, 'heldOf' | 'refuse'>;
  skills: Pick<Skills, 'show'>;
  catalogue: Pick<Catalogue, 'invalidate' | 'list'>;
  passthrough: readonly string[];
}

/** What a skill's pin covers: its frontmatter and its files. */
const content = (e: JsonObject) => canonicalJson({ frontmatter: e.frontmatter, resources: e.resources });

async function asked(call: Call, d: SkillDeps): Promise<JsonObject> {
  const { server, ctx, target } = call;
  let result: JsonObject;
  try {
    result = await d.calls.request({ server, ctx, method: 'skills/get', params: { uri: target } });
  } catch (e) {
    if (e instanceof UpstreamError && e.code === CODES.InvalidParams)
      throw invalidParams(`no skill at ${JSON.stringify(target)} (${server} said: ${e.message})`);
    throw e;
  }
  const parsed = SKILL_RESULTS.get.safeParse(result);
  if (!parsed.success || !isObject(result.skill) || result.skill.uri !== target)
    throw new ProtocolError(
      CODES.InternalError,
      `upstream ${server} answered skills/get for ${target} with no skill entry of that URI`,
    );
  return result.skill;
}

/** The listing fetched again as the caller sees it (a pass-through server's per extension set), its pins
 *  applied. */
async function relist(server: string, ctx: CallContext, d: SkillDeps): Promise<void> {
  d.catalogue.invalidate(server, ['skills']);
  const ext = d.passthrough.includes(server) ? extensionSet(ctx) : undefined;
  await d.catalogue.list(server, 'skills', ctx.identity, ext).catch(() => []);
}

export async function refreshedSkill(call: Call, d: SkillDeps): Promise<JsonObject> {
  const entry = await asked(call, d);
  if (call.listed && content(entry) !== content(call.listed)) {
    await relist(call.server, call.ctx, d);
    const held = d.pins.heldOf(call.server, 'skills', call.target);
    if (held) d.pins.refuse(held);
  }
  return d.skills.show(call.server, entry, call.ctx);
}
