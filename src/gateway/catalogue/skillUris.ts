// A skill's URIs as a client of the gateway sees them (docs/gateway.md "Skills"): a skill URI is scoped to
// the server that serves it (SEP-2640 "Skill URIs": two servers may both serve skill://refunds/SKILL.md),
// so where it could be another server's it is shown qualified by its server, skill://mcpx/<server>/<the
// rest> — still a skill:// URI whose last segment before /SKILL.md is the skill's name, the server a
// prefix of its skill path (SEP-2640 "Resource Mapping") — and read back at that server. A URI of another
// scheme is shown as any resource of that server is (mcpx://<server>/<uri>).
import { SKILL_SCHEME } from '../../protocol/skills';
import { toGatewayUri } from './uris';

const QUALIFIED = `${SKILL_SCHEME}mcpx/`;

/** `uri` of `server` in its qualified form. */
export function qualifySkillUri(server: string, uri: string): string {
  return uri.startsWith(SKILL_SCHEME)
    ? `${QUALIFIED}${encodeURIComponent(server)}/${uri.slice(SKILL_SCHEME.length)}`
    : toGatewayUri(server, uri);
}

export function isQualifiedSkillUri(uri: string): boolean {
  return uri.startsWith(QUALIFIED);
}

/** The server and upstream URI a qualified skill:// URI names; undefined for any other URI. */
export function parseQualifiedSkillUri(uri: string): { server: string; uri: string } | undefined {
  if (!uri.startsWith(QUALIFIED)) return undefined;
  const rest = uri.slice(QUALIFIED.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  try {
    return { server: decodeURIComponent(rest.slice(0, slash)), uri: SKILL_SCHEME + rest.slice(slash + 1) };
  } catch {
    return undefined;
  }
}
