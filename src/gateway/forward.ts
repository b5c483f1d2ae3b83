// A call to an upstream's tool, with the gateway's checks: the way of mcpx_call, of every call an mcpx_exec
// script makes, and of a pass-through tool (docs/gateway.md "The surface", "Pass-through").
import type { ServerDef } from '../config/servers';
import { invalidParams } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { INPUT_ERROR_AS_RESULT, inSpan } from '../protocol/revisions';
import { appResourceUri } from '../protocol/extensions';
import type { CallContext } from '../server/provider';
import type { Pool } from '../upstream/pool';
import type { Calls } from './calls';
import type { Catalogue } from './catalogue';
import { toolAllowed } from './names';
import { rewriteUris } from './uris';
import { extensionSet } from './capabilities';
import { schemaMismatch } from '../kit/schema';
import type { CallPath } from './activity/record';
import type { Gate } from './permissions/gate';
import type { Pins } from './pins/pins';
import type { Profiles } from './profiles/profiles';
import { noSuchTool, offeredServer } from './profiles/view';

export interface ForwardDeps {
  pool: Pool;
  catalogue: Catalogue;
  calls: Calls;
  passthrough: readonly string[];
  /** What the caller's endpoint offers: a call outside it is refused as an unknown tool. */
  profiles: Pick<Profiles, 'of'>;
  /** Every call passes the permission check (gateway/permissions/gate.ts). */
  gate: Pick<Gate, 'run'>;
  /** A tool held by its pin is refused on every path (gateway/pins/pins.ts). */
  pins: Pick<Pins, 'heldOf' | 'refusal' | 'stateOf'>;
  log(line: string): void;
}

/** Input validation failed: a protocol error up to 2025-06-18, an isError result from 2025-11-25. */
export function inputError(ctx: CallContext, message: string): JsonObject {
  if (!inSpan(ctx.rev, INPUT_ERROR_AS_RESULT)) throw invalidParams(message);
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** A listed tool's execution.taskSupport, where it has one. */
export function taskSupportOf(tool: JsonObject | undefined): string | undefined {
  const ex = tool?.execution;
  return isObject(ex) && typeof ex.taskSupport === 'string' ? ex.taskSupport : undefined;
}

export class Forwarder {
  constructor(private readonly d: ForwardDeps) {}

  /** mcpx_call's path, also every call of an mcpx_exec script and of the HTTP API: what the caller's
   *  endpoint offers (a profile's servers and tools; the server's allow/deny filter), then the upstream
   *  call (`call`), its URIs rewritten in gateway mode. */
  async through(
    server: string,
    tool: string,
    args: JsonObject,
    ctx: CallContext,
    timeoutMs: number | undefined,
    path: CallPath = 'mcpx_call',
  ): Promise<JsonObject> {
    const { view } = this.d.profiles.of(ctx);
    const d: ServerDef = this.d.pool.def(offeredServer(view, server));
    if (view.profile && !view.allows(server, tool)) throw noSuchTool(server, tool);
    if (!toolAllowed(tool, d.tools))
      throw invalidParams(`tool ${JSON.stringify(tool)} of ${server} is not allowed by its tools filter`);
    const listed = await this.listed(server, tool, ctx);
    const result = await this.call(server, tool, args, ctx, listed, timeoutMs, path);
    return this.d.passthrough.includes(server) ? result : rewriteUris(server, result);
  }

  /** The tool `server` lists now under exactly this name, its list fetched first where it is not yet known:
   *  listing may be what first needs a sign-in, given through the calling client where it can give one. */
  async listed(server: string, tool: string, ctx: CallContext): Promise<JsonObject | undefined> {
    const ext = this.d.passthrough.includes(server) ? extensionSet(ctx) : undefined;
    const tools = await this.d.calls.signedIn(server, ctx, () =>
      this.d.catalogue.list(server, 'tools', ctx.identity, ext),
    );
    return tools.find((t) => t.name === tool);
  }

  /** The upstream call: arguments checked against the input schema first, then the permission check
   *  (which may ask the person), the result against the output schema after; the result is the upstream's
   *  own (a JSON-RPC error stays that error). `path` is how it came, where the context does not say
   *  (a script's and the palette's calls). */
  async call(
    server: string,
    tool: string,
    args: JsonObject,
    ctx: CallContext,
    listed: JsonObject | undefined,
    requestedTimeoutMs?: number,
    path: CallPath = 'pass-through',
  ): Promise<JsonObject> {
    const held = this.d.pins.heldOf(server, 'tools', tool);
    // Only a name the server lists now (screened: its filter, its pins, the caller's profile) is forwarded:
    // an upstream may resolve `WIPE`, `wipе` (Cyrillic е) or ` wipe ` to its `wipe`, which the filter,
    // the pins and the permission rules name exactly (docs/gateway.md "Unlisted tool names").
    if (!listed && !held && !this.d.pool.def(server).forwardUnlisted) throw noSuchTool(server, tool);
    const annotations = isObject(listed?.annotations) ? listed.annotations : undefined;
    const app = listed && appResourceUri(listed);
    // Refused before its arguments are read: the refusal names the review, and the gate records it.
    if (held)
      return this.d.gate.run(
        { kind: 'tool', server, target: tool, args, annotations, path, pin: 'held', app },
        ctx,
        async () => this.d.pins.refusal(held),
      );
    if (listed) {
      const bad = schemaMismatch(listed.inputSchema, args);
      if (bad) return inputError(ctx, `Invalid arguments for ${server}/${tool}: ${bad}`);
    }
    const pin = this.d.pins.stateOf(server, 'tools', tool);
    return this.d.gate.run({ kind: 'tool', server, target: tool, args, annotations, path, pin, app }, ctx, () =>
      this.checked(server, tool, args, ctx, listed, requestedTimeoutMs),
    );
  }

  private async checked(
    server: string,
    tool: string,
    args: JsonObject,
    ctx: CallContext,
    listed: JsonObject | undefined,
    requestedTimeoutMs: number | undefined,
  ): Promise<JsonObject> {
    const result = await this.d.calls.request(
      server,
      ctx,
      'tools/call',
      { name: tool, arguments: args },
      requestedTimeoutMs,
      taskSupportOf(listed),
    );
    if (listed && 'outputSchema' in listed && 'structuredContent' in result && !result.isError) {
      const bad = schemaMismatch(listed.outputSchema, result.structuredContent);
      if (bad) {
        const warning = `structuredContent of ${server}/${tool} does not match its outputSchema: ${bad}`;
        this.d.log(`[${server}] ${warning}`);
        return {
          ...result,
          _meta: { ...(isObject(result._meta) ? result._meta : {}), 'dev.mcpx/warnings': [warning] },
        };
      }
    }
    return result;
  }
}
