// The tools a caller outside MCP may use and their calls (docs/gateway.md "The HTTP API"): every
// configured server's allowed tools as their servers list them (pins applied by the catalogue), and a
// call through mcpx_call's path (forward.ts `Forwarder.through`: the tools filter, the input schema,
// the pins, the permissions gate, the activity log, the output schema), recorded as `http-api`.
import type { JsonObject } from '../protocol/jsonrpc';
import type { CallContext } from '../server/provider';
import type { Catalogue } from './catalogue';
import type { Forwarder } from './forward';
import { schemaMismatch } from '../kit/schema';
import type { Profiles } from './profiles/profiles';

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
  forward: Pick<Forwarder, 'through'>;
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

  /** The tool `server`/`name` as offered to `ctx`'s caller; undefined when it is not. */
  async find(server: string, name: string, ctx: CallContext): Promise<OfferedTool | undefined> {
    // Only that server's list: a call starts no other server. One that cannot list offers nothing (404),
    // as in offeredFor.
    const { view } = this.d.profiles.of(ctx);
    if (!view.has(server) || !view.allows(server, name)) return undefined;
    const listed = await this.d.catalogue.list(server, 'tools', ctx.identity).catch(() => [] as JsonObject[]);
    const tool = listed.find((t) => t.name === name);
    return tool && { server, tool: tool as OfferedTool['tool'] };
  }

  /** Whether `server` is one `ctx`'s caller is offered (a refusal may name it then). */
  serves(server: string, ctx: CallContext): boolean {
    return this.d.profiles.of(ctx).view.has(server);
  }

  /** Why `args` do not match the tool's input schema; undefined when they do. */
  mismatch(offered: OfferedTool, args: JsonObject): string | undefined {
    return schemaMismatch(offered.tool.inputSchema, args);
  }

  /** Call an offered tool: mcpx_call's path, recorded as `http-api`. */
  call(server: string, name: string, args: JsonObject, ctx: CallContext): Promise<JsonObject> {
    return this.d.forward.through(server, name, args, ctx, undefined, 'http-api');
  }
}
