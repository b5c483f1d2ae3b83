// mcpx's own skills (docs/gateway.md "Skills"): the config's `skills` directories served as the Skills
// extension says (SEP-2640), as the source `mcpx` (config/skills.ts OWN_SKILLS) beside the upstreams. It
// answers the three requests a server of skills answers — skills/list, skills/get, resources/read of a
// listed file — from the disk at each request: the catalogue keeps its listing as it keeps an upstream's
// (screened, the guardrails' descriptions, pinned), the call chain asks it what it would ask an upstream.
// A file is read only where the last listing found it, by its exact URI: no path is made from what a
// client wrote.
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { NotReadable } from '../../config/regularFile';
import { CODES, ProtocolError, invalidParams, resourceNotFound } from '../../protocol/errors';
import { OWN_SKILLS } from '../../config/skills';
import type { JsonObject } from '../../protocol/jsonrpc';
import { type BuiltSkill, type SkillFileAt, buildSkill, readSkillFile } from './skillFolder';

export interface LocalSkillsDeps {
  /** The configured directories, read live (a reload changes them). */
  dirs(): readonly string[];
  /** skills.maxFileBytes. */
  maxFileBytes(): number;
  log(line: string): void;
}

/** A skill folder as the last listing found it. */
interface Folder {
  readonly realRoot: string;
  readonly folder: string;
  readonly name: string;
}

const MIME: Readonly<Record<string, string>> = { md: 'text/markdown', txt: 'text/plain', json: 'application/json' };
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A file's content block: text where its bytes are UTF-8, else a blob (SEP-2640: any resource content). */
function content(uri: string, bytes: Buffer): JsonObject {
  const mimeType = MIME[uri.slice(uri.lastIndexOf('.') + 1).toLowerCase()];
  try {
    return { uri, ...(mimeType ? { mimeType } : {}), text: utf8.decode(bytes) };
  } catch {
    return { uri, mimeType: mimeType ?? 'application/octet-stream', blob: bytes.toString('base64') };
  }
}

class LocalSkillSource {
  private files = new Map<string, SkillFileAt>();
  private folders = new Map<string, Folder>();

  constructor(private readonly d: LocalSkillsDeps) {}

  /** Answer a request as a server of skills would. */
  request(method: string, params: JsonObject): Promise<JsonObject> {
    if (method === 'skills/list') return this.list().then((skills) => ({ skills }));
    if (method === 'skills/get') return this.get(String(params.uri)).then((skill) => ({ skill }));
    if (method === 'resources/read') return this.read(String(params.uri));
    return Promise.reject(new ProtocolError(CODES.MethodNotFound, `mcpx's own skills do not answer ${method}`));
  }

  /** Every skill of every directory, in the order configured; a skill name a directory before has, a
   *  missing directory and a malformed folder logged and left out. */
  async list(): Promise<JsonObject[]> {
    const files = new Map<string, SkillFileAt>();
    const folders = new Map<string, Folder>();
    const out: JsonObject[] = [];
    for (const dir of this.d.dirs()) {
      const realRoot = await realpath(dir).catch(() => undefined);
      if (!realRoot || !(await stat(realRoot)).isDirectory()) {
        this.d.log(`[mcpx] skills: ${dir} is not a directory (it does not exist?); no skills from it`);
        continue;
      }
      const entries = await readdir(realRoot, { withFileTypes: true }).catch((e: NodeJS.ErrnoException) => {
        this.d.log(`[mcpx] skills: ${dir} could not be read (${e.code ?? e.message}); no skills from it`);
        return [];
      });
      for (const e of entries) {
        if (e.name.startsWith('.') || !(e.isDirectory() || e.isSymbolicLink())) continue;
        const at: Folder = { realRoot, folder: join(realRoot, e.name), name: e.name };
        const built = await this.build(at);
        if (!built) continue;
        const uri = String(built.entry.uri);
        if (folders.has(uri)) {
          this.d.log(
            `[mcpx] skills: ${at.folder} left out: a skill named ${e.name} comes first from another directory`,
          );
          continue;
        }
        folders.set(uri, at);
        for (const [u, f] of built.files) files.set(u, f);
        out.push(built.entry);
      }
    }
    this.files = files;
    this.folders = folders;
    return out.sort((a, b) => (String(a.uri) < String(b.uri) ? -1 : 1));
  }

  /** The skill in a folder, or undefined (not a skill folder: silently; a malformed one: logged). */
  private async build(at: Folder): Promise<BuiltSkill | undefined> {
    const real = await realpath(at.folder).catch(() => undefined);
    if (!real || !(await stat(real)).isDirectory()) return undefined;
    const note = (line: string) => this.d.log(`[mcpx] skills: ${at.folder}: ${line}`);
    const built = await buildSkill(at.realRoot, at.folder, at.name, this.d.maxFileBytes(), note).catch(
      (e: NodeJS.ErrnoException) => ({ problem: `it could not be read (${e.code ?? e.message})` }),
    );
    if (!('problem' in built)) return built;
    // A folder with no SKILL.md is no skill, and says nothing.
    if (built.problem !== 'it has no SKILL.md file') note(`left out: ${built.problem}`);
    return undefined;
  }

  /** The entry of a listed skill as its folder holds it now. */
  private async get(uri: string): Promise<JsonObject> {
    const at = this.folders.get(uri);
    if (!at) throw invalidParams(`no skill at ${JSON.stringify(uri)}`);
    const built = await this.build(at);
    if (!built) throw new ProtocolError(CODES.InternalError, `the skill at ${uri} can no longer be read (logged)`);
    return built.entry;
  }

  /** A file the last listing found, read now. */
  private async read(uri: string): Promise<JsonObject> {
    const at = this.files.get(uri);
    if (!at) throw resourceNotFound(uri, 'Resource not found: no skill of mcpx lists it');
    let bytes: Buffer;
    try {
      bytes = await readSkillFile(at, this.d.maxFileBytes());
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT')
        throw resourceNotFound(uri, 'Resource not found: it was removed');
      // Not the file's path: the client learns what is wrong, not where the folder is.
      const why = e instanceof NotReadable ? e.message.slice(e.path.length + 1) : undefined;
      throw new Error(`${uri}: ${why ?? (e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    return { contents: [content(uri, bytes)] };
  }
}

/** mcpx's own skills as the catalogue lists them and the calls ask them: a source named OWN_SKILLS. */
export interface OwnSkills {
  readonly name: string;
  list(): Promise<JsonObject[]>;
  request(method: string, params: JsonObject): Promise<JsonObject>;
}

export function ownSkills(d: LocalSkillsDeps): OwnSkills {
  const source = new LocalSkillSource(d);
  return { name: OWN_SKILLS, list: () => source.list(), request: (m, p) => source.request(m, p) };
}
