// The tools one endpoint's client sees and calls (docs/gateway.md "The surface", "Pass-through",
// "Profiles", "MCP Apps", "Artifacts"): its profile's view (the default endpoint's, or a profile's), the
// pass-through servers' tools as the client's extensions have them, the gateway's own tools, and every
// handle's large results made artifacts.
import type { JsonObject } from '../protocol/jsonrpc';
import type { CallContext, ToolHandle } from '../server/provider';
import { AppUris, listedTools } from './apps';
import type { Artifacts, StructuredForm } from './artifacts';
import { extensionSet } from './capabilities';
import type { GatewayParts } from './compose';
import { toolAllowed } from './names';
import { passedThrough } from './screen';
import { toolHandle } from './tools';

export class ToolSurface {
  constructor(
    private readonly p: GatewayParts,
    private readonly artifacts: Artifacts,
  ) {}

  async list(ctx: CallContext): Promise<JsonObject[]> {
    const { view, passthroughTools } = this.p.profiles.of(ctx);
    const pt = await passthroughTools.index(ctx.identity, extensionSet(ctx));
    const upstream = listedTools(pt, AppUris.of(pt, view.listed()), ctx.clientCapabilities);
    // A gateway tool an upstream also names is hidden over MCP: the upstream wins.
    return [...upstream, ...this.p.tools.definitions(view).filter((t) => !pt.has(String(t.name)))];
  }

  /** The tool a call names, looked up once: a pass-through server's as it listed it (its
   *  execution.taskSupport: 2025-11-25 upstreams list it, a 2026-07-28 upstream's is unknown until it
   *  answers a call with a task), else a gateway tool from the registry; in pass-through mode a name
   *  nobody lists is refused by the server that holds it by its pin, else by the first pass-through
   *  server — forwarded only where that server's definition says `forwardUnlisted` (forward.ts). */
  resolve(name: string, ctx: CallContext): ToolHandle | undefined | Promise<ToolHandle | undefined> {
    const { tools, forward } = this.p;
    const { view, passthroughTools } = this.p.profiles.of(ctx);
    const passthrough = view.listed();
    // A gateway tool the caller's endpoint offers, its large results made artifacts.
    const own = (): ToolHandle | undefined => {
      const t = tools.tool(name);
      const handle = tools.resolve(name, view);
      return t && handle ? this.shrinking(handle, t.definition, ctx, t.artifact) : handle;
    };
    if (!passthrough.length) return own();
    return passthroughTools.index(ctx.identity, extensionSet(ctx)).then((index) => {
      const hit = index.get(name);
      if (hit)
        return this.shrinking(
          toolHandle(name, hit.tool, async (args, c) =>
            passedThrough(hit.server, 'tools/call', await forward.call(hit.server, hit.name, args, c, hit.tool)),
          ),
          hit.tool,
          ctx,
        );
      // A profile offers only what it lists: any other name is unknown (docs/gateway.md "Profiles").
      if (view.profile) return own();
      // A tool withheld by its pin is refused by the server that holds it (docs/gateway.md "Pins").
      const server = this.p.pins.holderOf(passthrough, name) ?? passthrough[0]!;
      return (
        own() ?? {
          name,
          // Not in the index: the server's list may not be known yet (a sign-in it waits for), so it is
          // fetched through this call; a name it does not list is still refused (forward.call).
          call: async (args, c) => {
            const listed = toolAllowed(name, this.p.pool.def(server).tools)
              ? await forward.listed(server, name, c)
              : undefined;
            return passedThrough(server, 'tools/call', await forward.call(server, name, args, c, listed));
          },
        }
      );
    });
  }

  /** `handle`, its large results made artifacts (docs/gateway.md "Artifacts"); as it is where the
   *  caller's results never are. A tool without an outputSchema leaves its structuredContent to the
   *  artifact; one with an outputSchema needs a form of its own (`form`), else its results go whole. */
  private shrinking(handle: ToolHandle, listed: JsonObject, ctx: CallContext, form?: StructuredForm): ToolHandle {
    if (this.artifacts.off(ctx)) return handle;
    const structured: StructuredForm | undefined = 'outputSchema' in listed ? form : 'none';
    return {
      ...handle,
      call: async (args, c) => this.artifacts.shrink(await handle.call(args, c), c, handle.name, structured),
    };
  }
}
