// The tools a caller outside MCP may use and their calls (docs/gateway.md "The HTTP API"): every
// configured server's allowed tools as their servers list them (pins applied by the catalogue), and a
// call through the call chain (call/: offered, pinned, validated, permitted, recorded, sent), recorded as
// `http-api`.
import type { JsonObject } from '../../protocol/jsonrpc';
import type { CallToolResult } from '../../protocol/methods';
import type { CallContext } from '../../server/provider';
import { Call } from '../call/call';
import type { Entries } from '../call/entries';
import type { Catalogue } from '../catalogue/catalogue';
import type { Profiles } from '../profiles/profiles';

/** One tool offered: its server and its definition as that server lists it. */
export interface OfferedTool {
  readonly server: string;
  readonly tool: JsonObject & { readonly name: string };
}

export interface Offered {
  readonly tools: OfferedTool[];
  /** The servers that could not list their tools, with why. */
  readonly errors: Array<{ server: string; error: string }>;
}

export interface ToolApiDeps {
  catalogue: Catalogue;
  entries: Pick<Entries, 'offer' | 'run'>;
  /** What each endpoint offers: the default one's, or a profile's (docs/gateway.md "Profiles"). */
  profiles: Pick<Profiles, 'of' | 'has'>;
}

export class ToolApi {
  constructor(private readonly d: ToolApiDeps) {}

  /** Whether a profile of this name is configured (its API is under /v1/profiles/<name>/). */
  hasProfile(name: string): boolean {
    return this.d.profiles.has(name);
  }

  /** The tools `ctx`'s caller may use: its endpoint's (the default one's, or its profile's: `ctx.profile`),
   *  each server's allowed tools. The one place that decides what the document offers and what may be
   *  called. Tools keep their upstream names: the API names a tool by its server and that name. */
  async offeredFor(ctx: CallContext): Promise<Offered> {
    const { catalogue } = this.d;
    const { view } = this.d.profiles.of(ctx);
    const tools: OfferedTool[] = [];
    const errors: Offered['errors'] = [];
    await Promise.all(
      view.servers().map(async (server) => {
        try {
          for (const t of await catalogue.list(server, 'tools', ctx.identity)) {
            const name = String(t.name);
            // The view holds the server's own tools filter too (profiles/view.ts).
            if (view.allows(server, name)) tools.push({ server, tool: t as OfferedTool['tool'] });
          }
        } catch (e) {
          errors.push({ server, error: (e as Error).message });
        }
      }),
    );
    tools.sort((a, b) => a.server.localeCompare(b.server) || a.tool.name.localeCompare(b.tool.name));
    errors.sort((a, b) => a.server.localeCompare(b.server));
    return { tools, errors };
  }

  /** The tool `server`/`name` as offered to `ctx`'s caller, ready to be called with its arguments (the
   *  chain's `offered` step done: only that server's list is read, and a call starts no other server);
   *  undefined when it is not offered, or its server cannot list it. */
  async find(
    server: string,
    name: string,
    ctx: CallContext,
  ): Promise<((args: JsonObject) => Promise<CallToolResult>) | undefined> {
    const call = new Call({ kind: 'tool', server, tool: name }, ctx, {}, { path: 'http-api', listedOnly: true });
    try {
      await this.d.entries.offer(call);
    } catch {
      return undefined;
    }
    return (args) => {
      call.args = args;
      return this.d.entries.run(call);
    };
  }

  /** Whether `server` is one `ctx`'s caller is offered (a refusal may name it then). */
  serves(server: string, ctx: CallContext): boolean {
    return this.d.profiles.of(ctx).view.has(server);
  }
}
