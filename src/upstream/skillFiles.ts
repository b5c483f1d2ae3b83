// A skill's file checked as mcpx reads it from its server (SEP-2640 "Integrity and verification"; docs/gateway.md
// "Skills"): its raw bytes against the size and SHA-256 the skill's entry lists, and a SKILL.md's YAML
// frontmatter against the entry's `frontmatter`, field by field. Content that fails is not passed on: the
// read fails naming the skill and what differs. A "dynamic" skill lists no digests and is not checked.
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { canonicalJson } from '../kit/canonical';
import { McpxError } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { skillFiles, skillName } from '../protocol/skills';

/** The raw bytes of the read's content at `uri` (text as UTF-8, a blob decoded), or undefined. */
function bytesOf(result: JsonObject, uri: string): Buffer | undefined {
  const c = (Array.isArray(result.contents) ? result.contents : []).find((x) => isObject(x) && x.uri === uri);
  if (!isObject(c)) return undefined;
  if (typeof c.text === 'string') return Buffer.from(c.text, 'utf8');
  return typeof c.blob === 'string' ? Buffer.from(c.blob, 'base64') : undefined;
}

/** A SKILL.md's frontmatter: the YAML between a leading `---` line and the next; undefined without one. */
export function frontmatterOf(text: string): JsonObject | undefined {
  const m = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(text);
  if (!m) return undefined;
  try {
    const v: unknown = parseYaml(m[1]!);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** What differs between the file read at `uri` and what `entry` lists for it; undefined when it matches. */
function problem(entry: JsonObject, uri: string, bytes: Buffer | undefined): string | undefined {
  const file = skillFiles(entry).find((f) => f.uri === uri);
  if (!file) return undefined;
  if (!bytes) return 'the read returned no content for it';
  if (bytes.length !== file.size) return `its size is ${bytes.length} bytes, the listing says ${file.size}`;
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  if (digest !== file.digest) return `its SHA-256 is ${digest}, the listing says ${file.digest}`;
  if (uri !== entry.uri) return undefined;
  const front = frontmatterOf(bytes.toString('utf8'));
  if (!front) return 'its SKILL.md has no YAML frontmatter';
  const listed = isObject(entry.frontmatter) ? entry.frontmatter : {};
  const differs = [...new Set([...Object.keys(front), ...Object.keys(listed)])].filter(
    (k) => canonicalJson(front[k] ?? null) !== canonicalJson(listed[k] ?? null),
  );
  return differs.length ? `its frontmatter differs from the listing's (${differs.sort().join(', ')})` : undefined;
}

/** A read of `uri` at `server` checked against every offered skill of that server listing the file
 *  (`entries`; a nested skill's file is listed by both): throws naming the first skill it fails. */
export function verifySkillRead(server: string, uri: string, entries: readonly JsonObject[], result: JsonObject): void {
  if (!entries.length) return;
  const bytes = bytesOf(result, uri);
  for (const entry of entries) {
    const why = problem(entry, uri, bytes);
    if (why)
      throw new McpxError(
        'skills.unverified',
        `skill ${JSON.stringify(skillName(entry))} of ${server}: ${uri} is not what its listing promised — ${why}; ` +
          'refresh the skill with skills/get (a changed skill is held by the pins until reviewed)',
        { skill: String(entry.uri), server },
      );
  }
}
