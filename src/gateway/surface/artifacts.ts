// Artifacts (docs/gateway.md "Artifacts"): a tool result larger than results.artifactOver reaches the
// client as a short preview and a resource_link to mcpx://artifacts/<id>, which holds the whole result
// for that client's identity alone (another identity gets the era's resource-not-found error, as for a
// URI that never existed), is listed in that client's own resources/list, and expires after
// proto.askTTL. Every artifact together is bounded by results.artifactBytes, and one identity's by its
// share of it (results.artifactShare): a new one evicts the oldest of its own identity, never another's;
// where that is not room enough the result goes whole. The share keeps room for everyone else: one
// client's flood of large results cannot leave the next client's going whole into its model's context.
import { randomUUID } from 'node:crypto';
import type { Config } from '../../config/file';
import type { Settings } from '../../config/settings';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { CallToolResult, ReadResourceResult } from '../../protocol/methods';
import { isObject } from '../../protocol/jsonrpc';
import { PER_REQUEST } from '../../server/conn';
import type { CallContext } from '../../server/provider';
import type { ArtifactShelf, SharedArtifact } from '../shared';

export const ARTIFACT_PREFIX = 'mcpx://artifacts/';
/** Characters of the result's text the preview keeps. */
const PREVIEW_CHARS = 1000;

/** One kept result: its identity's alone, until it expires (the store holds the same, gateway/shared.ts). */
type Artifact = SharedArtifact;

export interface ArtifactDeps {
  /** results.artifactOver for this call's caller (0: off), looked up per call: a per-caller setting
   *  (a profile) may turn it on for some callers only. */
  over(ctx: CallContext): number;
  /** results.artifactBytes. */
  maxBytes(): number;
  /** results.artifactShare: the percentage of maxBytes one identity may hold. */
  sharePercent(): number;
  /** proto.askTTL. */
  ttlMs(): number;
  log(line: string): void;
  /** A team's replica: each artifact kept in the store too, so any replica serves it (docs/team.md). */
  shelf?: ArtifactShelf;
}

/** How a result with structuredContent is shrunk: for a tool that declares no outputSchema, `none`
 *  (structuredContent is left to the artifact); for one whose outputSchema has room for a link (mcpx's
 *  own), the small value it takes; undefined: the result goes whole, as its outputSchema requires
 *  (2025-06-18 server/tools "Output Schema"). */
export type StructuredForm = 'none' | ((link: { uri: string; bytes: number; preview: string }) => JsonObject);

export class Artifacts {
  /** Oldest first (a Map keeps insertion order). */
  private readonly held = new Map<string, Artifact>();
  private total = 0;
  /** Bytes held per identity. */
  private readonly byIdentity = new Map<string, number>();

  constructor(private readonly d: ArtifactDeps) {}

  /** Whether no result of this caller can become an artifact (its calls are not looked at). */
  off(ctx: CallContext): boolean {
    return this.d.over(ctx) <= 0 || ctx.identity.startsWith(PER_REQUEST) || ctx.transport === 'editor';
  }

  /** The result as the client receives it: whole, or a preview and a link to the artifact holding it. */
  shrink(result: CallToolResult, ctx: CallContext, tool: string, structured?: StructuredForm): CallToolResult {
    // A request's own identity cannot come back to read it; the editor shows results itself.
    if (this.off(ctx)) return result;
    if ('structuredContent' in result && structured === undefined) return result;
    const text = JSON.stringify(result);
    const bytes = Buffer.byteLength(text);
    if (bytes <= this.d.over(ctx)) return result;
    const a = this.put(ctx.identity, text, bytes, tool);
    if (!a) return result;
    const uri = `${ARTIFACT_PREFIX}${a.id}`;
    const preview = previewOf(result);
    const until = new Date(a.expiresAt).toISOString();
    return {
      content: [
        {
          type: 'text',
          text: `${preview}…\n\n[mcpx: the result is ${bytes} bytes; this is its start. The whole result is the resource ${uri} (resources/read), kept for this client until ${until}.]`,
        },
        {
          type: 'resource_link',
          uri,
          name: `artifact-${a.id}`,
          title: `The whole result of ${tool}`,
          mimeType: 'application/json',
          size: bytes,
        },
      ],
      ...(typeof structured === 'function' && 'structuredContent' in result
        ? { structuredContent: structured({ uri, bytes, preview }) }
        : {}),
      ...(result.isError === true ? { isError: true } : {}),
      _meta: {
        ...(isObject(result._meta) ? result._meta : {}),
        'dev.mcpx/artifact': { uri, bytes, expiresAt: until },
      },
    };
  }

  /** resources/read of an artifact, for its own identity; undefined for any other, or none. */
  read(uri: string, identity: string): ReadResourceResult | undefined {
    this.expire();
    const a = this.held.get(uri.slice(ARTIFACT_PREFIX.length));
    if (!uri.startsWith(ARTIFACT_PREFIX) || !a || a.identity !== identity) return undefined;
    return { contents: [{ uri, mimeType: 'application/json', text: a.text }] };
  }

  /** An artifact another replica of the team kept, for its own identity (read()'s rules). */
  async readShared(uri: string, identity: string): Promise<ReadResourceResult | undefined> {
    if (!this.d.shelf || !uri.startsWith(ARTIFACT_PREFIX)) return undefined;
    const a = await this.d.shelf.get(uri.slice(ARTIFACT_PREFIX.length)).catch(() => undefined);
    if (!a || a.identity !== identity || a.expiresAt <= Date.now()) return undefined;
    return { contents: [{ uri, mimeType: 'application/json', text: a.text }] };
  }

  /** The identity's artifacts, as resources/list lists them. */
  list(identity: string): JsonObject[] {
    this.expire();
    return [...this.held.values()]
      .filter((a) => a.identity === identity)
      .map((a) => ({
        uri: `${ARTIFACT_PREFIX}${a.id}`,
        name: `artifact-${a.id}`,
        title: `The whole result of ${a.tool}`,
        description: `Kept until ${new Date(a.expiresAt).toISOString()}`,
        mimeType: 'application/json',
        size: a.bytes,
      }));
  }

  private put(identity: string, text: string, bytes: number, tool: string): Artifact | undefined {
    this.expire();
    const max = this.d.maxBytes();
    const share = Math.floor((max * Math.min(100, this.d.sharePercent())) / 100);
    if (bytes > share) {
      this.d.log(
        `a result of ${tool} (${bytes} bytes) is larger than one client's share of results.artifactBytes (${share}, results.artifactShare): sent whole`,
      );
      return undefined;
    }
    // Room is made from the identity's own oldest: one client's results never evict another's, and never
    // hold more than its share.
    const mine = () => this.byIdentity.get(identity) ?? 0;
    for (const a of this.held.values()) {
      if (this.total + bytes <= max && mine() + bytes <= share) break;
      if (a.identity === identity) this.drop(a);
    }
    if (this.total + bytes > max) {
      this.d.log(
        `results.artifactBytes (${max}) is full of other clients' artifacts: a result of ${tool} (${bytes} bytes) was sent whole`,
      );
      return undefined;
    }
    const a: Artifact = { id: randomUUID(), identity, text, bytes, tool, expiresAt: Date.now() + this.d.ttlMs() };
    this.held.set(a.id, a);
    this.total += bytes;
    this.byIdentity.set(identity, mine() + bytes);
    this.d.shelf?.put(a);
    return a;
  }

  private drop(a: Artifact): void {
    if (!this.held.delete(a.id)) return;
    this.total -= a.bytes;
    const left = (this.byIdentity.get(a.identity) ?? 0) - a.bytes;
    if (left > 0) this.byIdentity.set(a.identity, left);
    else this.byIdentity.delete(a.identity);
  }

  /** Expired artifacts leave on every use (proto.askTTL may change between two: all are looked at). */
  private expire(): void {
    const now = Date.now();
    for (const a of this.held.values()) if (a.expiresAt <= now) this.drop(a);
  }
}

/** The start of the result's text: its text blocks, else its JSON. */
function previewOf(result: JsonObject): string {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const text = blocks
    .filter((b): b is JsonObject => isObject(b) && b.type === 'text' && typeof b.text === 'string')
    .map((b) => String(b.text))
    .join('\n');
  return (text || JSON.stringify(result)).slice(0, PREVIEW_CHARS);
}

/** The gateway's artifacts: past a profile's own threshold where it sets one, else results.artifactOver;
 *  bounded by results.artifactBytes and each identity's results.artifactShare of it; kept proto.askTTL. */
export function artifactsOf(
  config: Config,
  settings: Settings,
  log: (line: string) => void,
  shelf?: ArtifactShelf,
): Artifacts {
  return new Artifacts({
    over: (ctx) =>
      (ctx.profile === undefined ? undefined : config.profiles?.get(ctx.profile)?.artifactOver) ??
      settings.get<number>('results.artifactOver'),
    maxBytes: () => settings.get<number>('results.artifactBytes'),
    sharePercent: () => settings.get<number>('results.artifactShare'),
    ttlMs: () => settings.duration('proto.askTTL'),
    log,
    shelf,
  });
}
