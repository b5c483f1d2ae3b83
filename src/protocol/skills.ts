// The Skills extension (SEP-2640, io.modelcontextprotocol/skills; docs/protocol.md "Skills"): a server's
// skills as `skills/list` and `skills/get` entries — the SKILL.md URI, the frontmatter verbatim, and every
// file as {uri, digest, size} (or "dynamic") — whose files are ordinary resources read with
// resources/read. Pure data and functions: the shapes, the names, the URIs.
import { z } from 'zod';
import { type JsonObject, isObject } from './jsonrpc';
import { obj } from './shapes';

export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** The scheme servers SHOULD use (SEP-2640 "Resource Mapping"); no scheme is privileged. */
export const SKILL_SCHEME = 'skill://';

/** A skill's own file, at the root of its directory. */
const SKILL_MD = 'SKILL.md';

/** `sha256:` and 64 lowercase hex digits (SEP-2640 "Integrity and verification"). */
const DIGEST = /^sha256:[0-9a-f]{64}$/;

const file = z
  .object({ uri: z.string(), digest: z.string().regex(DIGEST), size: z.number().int().min(0) })
  .passthrough();
/** One entry: the same shape in skills/list and skills/get (SEP-2640 "Retrieval via skills/get"). */
const skillEntry = z
  .object({
    uri: z.string(),
    frontmatter: z.object({ name: z.string().min(1), description: z.string() }).passthrough(),
    resources: z.union([z.array(file), z.literal('dynamic')]),
  })
  .passthrough();

/** What mcpx requires of an upstream's answers: a listing's entries are screened one by one
 *  (gateway/catalogue/screen.ts), so one malformed entry leaves out that skill, not the server's list. */
export const SKILL_RESULTS = {
  list: z.object({ skills: z.array(obj), nextCursor: z.string().optional() }).passthrough(),
  get: z.object({ skill: skillEntry }).passthrough(),
};

export interface SkillFile {
  readonly uri: string;
  readonly digest: string;
  readonly size: number;
}

/** Whether capabilities (a server's or a client's) declare the extension. */
export function declaresSkills(caps: JsonObject): boolean {
  return isObject(caps.extensions) && isObject(caps.extensions[SKILLS_EXTENSION]);
}

/** The skill's name as its URI says it: the segment before `/SKILL.md` (SEP-2640 "Resource Mapping"). */
export function skillNameOf(uri: string): string | undefined {
  if (!uri.endsWith(`/${SKILL_MD}`)) return undefined;
  const parts = uri.slice(0, -SKILL_MD.length - 1).split('/');
  return parts[parts.length - 1] || undefined;
}

/** The name an entry goes by: its frontmatter's. */
export function skillName(entry: JsonObject): string {
  return isObject(entry.frontmatter) ? String(entry.frontmatter.name) : String(skillNameOf(String(entry.uri)));
}

/** An entry's files, or none for a "dynamic" skill. */
export function skillFiles(entry: JsonObject): SkillFile[] {
  return Array.isArray(entry.resources) ? (entry.resources.filter(isObject) as unknown as SkillFile[]) : [];
}

/** An entry with every URI it holds (its own, its files') mapped by `f`. */
export function withSkillUris(entry: JsonObject, f: (uri: string) => string): JsonObject {
  const resources = Array.isArray(entry.resources)
    ? entry.resources.map((r) => (isObject(r) ? { ...r, uri: f(String(r.uri)) } : r))
    : entry.resources;
  return { ...entry, uri: f(String(entry.uri)), resources };
}

/** The `skills/get` params. */
export const skillGetParams = z.object({ uri: z.string() }).passthrough();
