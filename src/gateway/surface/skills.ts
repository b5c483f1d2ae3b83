// The skills one endpoint's client sees (docs/gateway.md "Skills"; SEP-2640): each offered server's
// `skills/list` entries (screened and pinned by the catalogue), a profile's `skills` globs applied, and
// their URIs as the client sees them — a pass-through server's as written unless another offered server
// serves the same URI, every other one qualified by its server (catalogue/skillUris.ts) — and where a
// skill URI a client names is read.
import { OWN_SKILLS } from '../../config/skills';
import type { JsonObject } from '../../protocol/jsonrpc';
import { SKILL_SCHEME, skillFiles, skillName, withSkillUris } from '../../protocol/skills';
import type { CallContext } from '../../server/provider';
import type { Profiles } from '../profiles/profiles';
import { parseQualifiedSkillUri, qualifySkillUri } from '../catalogue/skillUris';
import type { Lists } from './lists';

/** One skill of one server, as the server lists it. */
export interface SkillAt {
  readonly server: string;
  readonly entry: JsonObject;
}

/** The URIs every offered skill holds (its SKILL.md's and its files'), and the servers serving each. */
export class SkillUris {
  private constructor(
    private readonly owners: ReadonlyMap<string, ReadonlySet<string>>,
    private readonly passthrough: readonly string[],
  ) {}

  static of(skills: readonly SkillAt[], passthrough: readonly string[]): SkillUris {
    const owners = new Map<string, Set<string>>();
    for (const { server, entry } of skills)
      for (const uri of [String(entry.uri), ...skillFiles(entry).map((f) => f.uri)]) {
        let s = owners.get(uri);
        if (!s) owners.set(uri, (s = new Set()));
        s.add(server);
      }
    return new SkillUris(owners, passthrough);
  }

  /** `uri` of `server` as a client sees it: a pass-through server's as written where no other offered
   *  server serves it, else qualified. */
  shown(server: string, uri: string): string {
    const o = this.owners.get(uri);
    const alone = !o || (o.size === 1 && o.has(server));
    return alone && this.passthrough.includes(server) ? uri : qualifySkillUri(server, uri);
  }

  /** Where a skill URI a client names is read: a qualified one at the server it names; a bare one at the
   *  one pass-through server serving it. Undefined: not a skill URI mcpx knows (the ordinary routing). */
  locate(uri: string): { server: string; uri: string } | undefined {
    const q = parseQualifiedSkillUri(uri);
    if (q) return this.owners.get(q.uri)?.has(q.server) ? q : undefined;
    const o = this.owners.get(uri);
    if (o?.size !== 1) return undefined;
    const server = [...o][0]!;
    return this.passthrough.includes(server) ? { server, uri } : undefined;
  }
}

export class Skills {
  constructor(
    private readonly d: {
      lists: Lists;
      profiles: Pick<Profiles, 'of'>;
      passthrough: readonly string[];
    },
  ) {}

  /** Every skill of the endpoint's servers, and whether the endpoint offers it. */
  private async all(ctx: CallContext): Promise<Array<SkillAt & { offered: boolean }>> {
    const { view } = this.d.profiles.of(ctx);
    return (await this.d.lists.all('skills', ctx)).flatMap(([server, entries]) =>
      entries.map((entry) => ({ server, entry, offered: view.offersSkill(server, skillName(entry)) })),
    );
  }

  /** The skills the endpoint offers (the profile's `skills` globs applied), their URIs as shown, and the
   *  URIs of those it does not offer. */
  private async known(ctx: CallContext): Promise<{ skills: SkillAt[]; uris: SkillUris; hidden: Set<string> }> {
    const all = await this.all(ctx);
    const skills = all.filter((s) => s.offered);
    const { view } = this.d.profiles.of(ctx);
    // mcpx's own skills are shown as written where no offered server serves the same URI, as a
    // pass-through server's are.
    const uris = SkillUris.of(skills, [...this.d.passthrough.filter((s) => view.has(s)), OWN_SKILLS]);
    // The URIs of a skill the endpoint does not offer: invisible there, read or named (docs/gateway.md "Skills").
    const hidden = new Set(
      all.filter((s) => !s.offered).flatMap((s) => [String(s.entry.uri), ...skillFiles(s.entry).map((f) => f.uri)]),
    );
    return { skills, uris, hidden };
  }

  /** skills/list: each offered entry with its URIs as the client sees them. */
  async list(ctx: CallContext): Promise<JsonObject[]> {
    const { skills, uris } = await this.known(ctx);
    return skills.map(({ server, entry }) => withSkillUris(entry, (u) => uris.shown(server, u)));
  }

  /** The offered skill whose SKILL.md a client names (as it sees it), with its server's URI for it. */
  async find(uri: string, ctx: CallContext): Promise<(SkillAt & { readonly uri: string }) | undefined> {
    const { skills, uris } = await this.known(ctx);
    const at = skills.find(({ server, entry }) => uris.shown(server, String(entry.uri)) === uri);
    return at && { ...at, uri: String(at.entry.uri) };
  }

  /** Where a skill URI a client reads is read (a file an offered skill lists), `hidden` for a file only a
   *  skill the endpoint does not offer lists, or undefined (the ordinary routing). */
  async locate(uri: string, ctx: CallContext): Promise<{ server: string; uri: string } | 'hidden' | undefined> {
    if (!uri.startsWith(SKILL_SCHEME)) return undefined;
    const { uris, hidden } = await this.known(ctx);
    return uris.locate(uri) ?? (hidden.has(uri) || parseQualifiedSkillUri(uri) ? 'hidden' : undefined);
  }

  /** A skill entry of `server` with its URIs as the caller sees them. */
  async show(server: string, entry: JsonObject, ctx: CallContext): Promise<JsonObject> {
    const { uris } = await this.known(ctx);
    return withSkillUris(entry, (u) => uris.shown(server, u));
  }

  /** The offered skills of `server` that list the file at `uri` (the server's own URI): that server's
   *  listing only, so a read starts no other server. */
  async listing(server: string, uri: string, ctx: CallContext): Promise<JsonObject[]> {
    const { view } = this.d.profiles.of(ctx);
    if (!view.skillServers().includes(server)) return [];
    return (await this.d.lists.of('skills', server, ctx)).filter(
      (e) => view.offersSkill(server, skillName(e)) && skillFiles(e).some((f) => f.uri === uri),
    );
  }
}
