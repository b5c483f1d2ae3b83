// One local skill folder made into its Skills extension entry (SEP-2640 "Enumeration via skills/list";
// docs/gateway.md "Skills"): `<dir>/<name>/SKILL.md` with YAML frontmatter whose `name` is the folder's and
// a `description`, and every file under the folder as {uri, digest, size}, the digest computed from the
// bytes read now. What is read stays inside the configured directory: a link out of it is left out, as is
// anything but a regular file or a directory (a FIFO is never opened: its type is read without opening
// it, and a file is opened non-blocking and checked again on its descriptor). A folder that breaks a rule
// (its name, its frontmatter, a file past skills.maxFileBytes, more files or depth than the bounds) is not
// a skill: the reason is returned for the log.
import { createHash } from 'node:crypto';
import { readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { readRegularBytes } from '../../config/regularFile';
import type { JsonObject } from '../../protocol/jsonrpc';
import { SKILL_SCHEME } from '../../protocol/skills';
import { frontmatterOf } from '../../upstream/skillFiles';

/** An Agent Skills name: 1 to 64 of a-z and 0-9, single hyphens between. */
const NAME = /^(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Files of one skill, at most (SEP-2640's limit a host must accept). */
const MAX_FILES = 512;
/** Folders deep under a skill's, at most (a link to a folder above it would otherwise never end). */
const MAX_DEPTH = 8;

/** A file of a listed skill: where it is read (the path as found, and the directory it must stay in). */
export interface SkillFileAt {
  readonly path: string;
  readonly realRoot: string;
}

export interface BuiltSkill {
  readonly entry: JsonObject;
  /** Each file's URI -> where it is read. */
  readonly files: ReadonlyMap<string, SkillFileAt>;
}

/** Whether `p` is under `root` (both real paths). */
function inside(root: string, p: string): boolean {
  const r = relative(root, p);
  return r !== '' && !r.startsWith('..') && !isAbsolute(r);
}

/** A skill file's URI: its path under the folder, each segment percent-encoded. */
const fileUri = (name: string, rel: readonly string[]): string =>
  `${SKILL_SCHEME}${[name, ...rel].map(encodeURIComponent).join('/')}`;

class Skip extends Error {}

/** Every regular file under `folder` as its path segments, in name order; what is left out logged. */
async function filesOf(
  realRoot: string,
  folder: string,
  note: (line: string) => void,
): Promise<Array<{ rel: string[]; path: string; size: number }>> {
  const out: Array<{ rel: string[]; path: string; size: number }> = [];
  const walk = async (dir: string, rel: string[]): Promise<void> => {
    if (rel.length > MAX_DEPTH) throw new Skip(`it is deeper than ${MAX_DEPTH} folders`);
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      // Hidden files and folders (.git, .DS_Store) are not the skill's.
      if (e.name.startsWith('.')) continue;
      const path = join(dir, e.name);
      const at = [...rel, e.name].join('/');
      const real = await realpath(path).catch(() => undefined);
      if (real === undefined) {
        note(`${at} is a broken link; left out`);
        continue;
      }
      if (!inside(realRoot, real)) {
        note(`${at} leads out of the skills directory; left out`);
        continue;
      }
      const st = await stat(real);
      if (st.isDirectory()) await walk(path, [...rel, e.name]);
      else if (!st.isFile()) note(`${at} is not a regular file; left out`);
      else {
        if (out.length >= MAX_FILES) throw new Skip(`it has more than ${MAX_FILES} files`);
        out.push({ rel: [...rel, e.name], path, size: st.size });
      }
    }
  };
  await walk(folder, []);
  return out;
}

/** The bytes of a file of a skill, from `path` as found, refused where it now leads out of `realRoot` or is
 *  past `maxBytes` (skills.maxFileBytes); the open never follows a link swapped in at the last moment. */
export async function readSkillFile(at: SkillFileAt, maxBytes: number): Promise<Buffer> {
  const real = await realpath(at.path);
  if (!inside(at.realRoot, real)) throw new Error('it leads out of its skills directory; it is not read');
  const st = await stat(real);
  if (st.isFile() && st.size > maxBytes)
    throw new Error(`it is ${st.size} bytes, more than skills.maxFileBytes (${maxBytes})`);
  return readRegularBytes(real, maxBytes, true);
}

/** The frontmatter a SKILL.md must have, or why it is not one. */
function frontmatter(text: string, name: string): JsonObject | string {
  const front = frontmatterOf(text);
  if (!front) return 'its SKILL.md has no YAML frontmatter (a leading --- block with name and description)';
  if (front.name !== name) return `its SKILL.md's name is ${JSON.stringify(front.name)}, not the folder's name`;
  if (typeof front.description !== 'string' || !front.description.trim()) return 'its SKILL.md has no description';
  return front;
}

/** The skill in `folder` (named `name`, under `realRoot`), or why it is none. `note` hears what is left
 *  out of a skill that is listed. */
export async function buildSkill(
  realRoot: string,
  folder: string,
  name: string,
  maxBytes: number,
  note: (line: string) => void,
): Promise<BuiltSkill | { problem: string }> {
  if (!NAME.test(name))
    return { problem: 'its folder name is not a skill name (1 to 64 of a-z, 0-9 and single hyphens)' };
  if (!inside(realRoot, await realpath(folder))) return { problem: 'it leads out of the skills directory' };
  let found: Awaited<ReturnType<typeof filesOf>>;
  try {
    found = await filesOf(realRoot, folder, note);
  } catch (e) {
    if (e instanceof Skip) return { problem: e.message };
    throw e;
  }
  const skillMd = found.find((f) => f.rel.length === 1 && f.rel[0] === 'SKILL.md');
  if (!skillMd) return { problem: 'it has no SKILL.md file' };
  const big = found.find((f) => f.size > maxBytes);
  if (big) return { problem: `${big.rel.join('/')} is ${big.size} bytes, more than skills.maxFileBytes (${maxBytes})` };
  const files = new Map<string, SkillFileAt>();
  const resources: JsonObject[] = [];
  let front: JsonObject | string = '';
  // SKILL.md first, then the rest in path order.
  for (const f of [skillMd, ...found.filter((x) => x !== skillMd)]) {
    const at = { path: f.path, realRoot };
    let bytes: Buffer;
    try {
      bytes = await readSkillFile(at, maxBytes);
    } catch (e) {
      return {
        problem: `${f.rel.join('/')} could not be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      };
    }
    if (f === skillMd) front = frontmatter(bytes.toString('utf8'), name);
    if (typeof front === 'string') return { problem: front };
    const uri = fileUri(name, f.rel);
    files.set(uri, at);
    resources.push({ uri, digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`, size: bytes.length });
  }
  return { entry: { uri: fileUri(name, ['SKILL.md']), frontmatter: front as JsonObject, resources }, files };
}
