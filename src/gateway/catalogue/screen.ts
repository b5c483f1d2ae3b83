// Each upstream's lists, screened once as they are fetched (the catalogue caches what passes): what an
// upstream lists must not break the surface every client sees, whatever it names.
// - A name listed twice by one server (a tool, a prompt) is kept once, the first: a duplicate would make
//   the whole list fail ("offered by both"), for every server's tools (docs/gateway.md "Pass-through").
// - A pass-through server's resource URIs are shown as they are: one that is not a URI (its schema's
//   format "uri") would hand every client a frame its schema rejects, and an mcpx:// URI would be read
//   at another server (the one it names) — both are left out. Templates likewise (format "uri-template"),
//   in gateway mode after they are namespaced (a template's {variables} are kept as the upstream wrote them).
// What is left out is logged, a few lines per list with a count (docs/protocol.md "Hostile lists").
import { CODES, ProtocolError } from '../../protocol/errors';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { ListKind } from './catalogue';
import { parseGatewayUri, toGatewayTemplate } from './uris';
import { validUri, validUriTemplate } from '../../kit/schema';
import { SKILL_RESULTS, skillFiles, skillNameOf } from '../../protocol/skills';
import { isQualifiedSkillUri } from './skillUris';

/** Lines logged per list fetched, at most; the rest is a count. */
const LOGGED = 5;

export function screenList(
  server: string,
  kind: ListKind,
  items: JsonObject[],
  passthrough: boolean,
  log: (line: string) => void,
): JsonObject[] {
  const out: JsonObject[] = [];
  const seen = new Set<string>();
  let left = 0;
  const leave = (why: string) => {
    if (++left <= LOGGED) log(`[${server}] ${why}; left out of its ${kind}`);
  };
  for (const item of items) {
    const why = problem(server, kind, item, passthrough, seen);
    if (why) leave(why);
    else out.push(item);
  }
  if (left > LOGGED) log(`[${server}] ${left - LOGGED} more item(s) left out of its ${kind}`);
  return out;
}

const shown = (s: unknown): string => JSON.stringify(String(s).slice(0, 200));

function problem(
  server: string,
  kind: ListKind,
  item: JsonObject,
  passthrough: boolean,
  seen: Set<string>,
): string | undefined {
  if (kind === 'tools' || kind === 'prompts') {
    const name = String(item.name);
    if (seen.has(name)) return `${kind === 'tools' ? 'tool' : 'prompt'} ${shown(name)} is listed twice`;
    seen.add(name);
    return undefined;
  }
  if (kind === 'skills') return skillProblem(item, seen);
  if (kind === 'resources') {
    if (!passthrough) return undefined;
    const uri = String(item.uri);
    if (parseGatewayUri(uri)) return `resource ${shown(uri)} is an mcpx:// URI, which names another server`;
    return validUri(uri) ? undefined : `resource ${shown(uri)} is not a URI`;
  }
  const template = String(item.uriTemplate);
  return validUriTemplate(passthrough ? template : toGatewayTemplate(server, template))
    ? undefined
    : `resource template ${shown(template)} is not a URI template`;
}

/** A skill entry mcpx can relay and verify (SEP-2640 "Enumeration via skills/list"): its shape (the
 *  digests' form included; an entry with no `resources` is invalid), one entry per URI, URIs that are
 *  URIs, the URI's last segment its name, and none in mcpx's own qualified form (which names another
 *  server). */
function skillProblem(item: JsonObject, seen: Set<string>): string | undefined {
  const uri = String(item.uri);
  const parsed = SKILL_RESULTS.get.shape.skill.safeParse(item);
  if (!parsed.success) return `skill ${shown(uri)} is not a skill entry (${parsed.error.issues[0]!.path.join('.')})`;
  if (seen.has(uri)) return `skill ${shown(uri)} is listed twice`;
  seen.add(uri);
  const uris = [uri, ...skillFiles(item).map((f) => f.uri)];
  const bad = uris.find((u) => !validUri(u) || parseGatewayUri(u) || isQualifiedSkillUri(u));
  if (bad !== undefined) return `skill ${shown(uri)} names ${shown(bad)}, which is not a URI of its own`;
  if (skillNameOf(uri) !== (item.frontmatter as JsonObject).name)
    return `skill ${shown(uri)}: the URI's last segment is not its frontmatter name`;
  return undefined;
}

/** A pass-through server's result is relayed as it is, its URIs included (a resource link, an embedded
 *  resource, a read's contents): one that is not a URI would hand the client a frame its schema rejects.
 *  What is wrong with it, or undefined. (In gateway mode every URI is rewritten into an mcpx:// one.) */
function uriProblem(result: JsonObject): string | undefined {
  const check = (uri: unknown, at: string) =>
    typeof uri === 'string' && !validUri(uri) ? `${at} ${shown(uri)} is not a URI` : undefined;
  const block = (b: unknown, at: string): string | undefined => {
    if (typeof b !== 'object' || b === null) return undefined;
    const o = b as JsonObject;
    if (o.type === 'resource_link') return check(o.uri, `${at}.uri`);
    if (o.type === 'resource' && typeof o.resource === 'object' && o.resource !== null)
      return check((o.resource as JsonObject).uri, `${at}.resource.uri`);
    return undefined;
  };
  const lists: Array<[unknown, string, (v: unknown, at: string) => string | undefined]> = [
    [result.content, 'content', block],
    [result.messages, 'messages', (m, at) => block((m as JsonObject | null)?.content, `${at}.content`)],
    [result.contents, 'contents', (c, at) => check((c as JsonObject | null)?.uri, `${at}.uri`)],
  ];
  for (const [list, name, one] of lists) {
    if (!Array.isArray(list)) continue;
    for (const [i, v] of list.entries()) {
      const bad = one(v, `${name}.${i}`);
      if (bad) return bad;
    }
  }
  return undefined;
}

/** A pass-through server's result, relayed as it is only if its URIs are URIs. */
export function passedThrough<T extends JsonObject>(server: string, method: string, result: T): T {
  const bad = uriProblem(result);
  if (bad === undefined) return result;
  throw new ProtocolError(CODES.InternalError, `upstream ${server} returned an invalid ${method} result: ${bad}`);
}
