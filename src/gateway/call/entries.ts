// The chain as each entry enters it (docs/gateway.md "The call chain"): a tool by its server and name
// (mcpx_call, a script's call, the HTTP API, an app's), a prompt and a resource by what a client sees, a
// completion by its ref, a watch by its URI. A pass-through tools/call enters with what the surface found
// (surface/tools.ts); every one runs the same steps.
import type { JsonObject } from '../../protocol/jsonrpc';
import type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  ParamsOf,
  ReadResourceResult,
} from '../../protocol/methods';
import type { CallContext } from '../../server/provider';
import type { CallPath } from '../activity/record';
import type { Watch } from '../inbox/subscriptions';
import { Call } from './call';
import type { Chain } from './chain';
import { type OfferedDeps, offer } from './offered';

export class Entries {
  constructor(
    readonly chain: Chain,
    private readonly offering: OfferedDeps,
  ) {}

  /** The tool `tool` of `server`: mcpx_call's way, and a script's, the HTTP API's and an app's. */
  tool(
    server: string,
    tool: string,
    args: JsonObject,
    ctx: CallContext,
    o: { path?: CallPath; timeoutMs?: number } = {},
  ): Promise<CallToolResult> {
    return this.run(new Call({ kind: 'tool', server, tool }, ctx, args, { path: o.path ?? 'mcpx_call', ...o }));
  }

  /** A pass-through tools/call, of the tool the surface found under the name the client sees (`listed`,
   *  as its server listed it), or of a name no list shows, forwarded to `server` (surface/tools.ts). */
  shown(
    server: string,
    tool: string,
    listed: JsonObject | undefined,
    args: JsonObject,
    ctx: CallContext,
  ): Promise<CallToolResult> {
    const call = new Call({ kind: 'tool', server, tool }, ctx, args, { path: 'pass-through' });
    Object.assign(call, { server, target: tool, listed, offered: true, unindexed: !listed, uris: 'kept' });
    return this.run(call);
  }

  prompt(name: string, args: Record<string, string>, ctx: CallContext): Promise<GetPromptResult> {
    return this.run(new Call({ kind: 'prompt', name }, ctx, args, { path: 'pass-through' }));
  }

  read(uri: string, ctx: CallContext): Promise<ReadResourceResult> {
    return this.run(new Call({ kind: 'resource', uri }, ctx, {}, { path: 'pass-through' }));
  }

  /** A completion: its argument (and context) as sent, its ref as the upstream knows it; recorded with
   *  `path` (the HTTP API's `/v1/complete`). */
  complete(
    params: ParamsOf<'completion/complete'>,
    ctx: CallContext,
    path: CallPath = 'pass-through',
  ): Promise<CompleteResult> {
    const { ref, _meta: _m, ...rest } = params;
    void _m;
    const call = new Call({ kind: 'completion', ref }, ctx, rest, { path });
    call.params = rest;
    return this.run(call);
  }

  /** skills/get: a skill by its SKILL.md URI as the client sees it (SEP-2640). */
  skill(uri: string, ctx: CallContext): Promise<JsonObject> {
    return this.run(new Call({ kind: 'skill', uri }, ctx, {}, { path: 'pass-through' }));
  }

  watch(uri: string, deliver: (uri: string) => void, ctx: CallContext): Promise<Watch> {
    return this.run(new Call({ kind: 'watch', uri, deliver }, ctx, {}, { path: 'pass-through' }));
  }

  /** Find what a call names, before it runs (the HTTP API refuses what is not offered before it reads the
   *  body). */
  offer(call: Call): Promise<void> {
    return offer(call, this.offering);
  }

  run<T>(call: Call): Promise<T> {
    return this.chain.run<T>(call);
  }
}
