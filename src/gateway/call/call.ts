// One call on its way to an upstream (docs/gateway.md "The call chain"): what an entry knows when it hands
// the call to the chain — how it came, what the caller named, its arguments — and what the steps find and
// decide on the way (chain.ts). Every entry makes its calls here: a pass-through tools/call, prompts/get,
// resources/read, completion/complete, a resource watch, mcpx_call, each call of an mcpx_exec script, the
// HTTP API, the editor's palette and an app's calls; tasks and background calls run the same handlers.
import type { CallKind } from '../../config/permissions';
import { canonicalJson } from '../../kit/canonical';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { CallContext } from '../../server/provider';
import type { ActivityFinding, CallPath, Decision } from '../activity/record';
import { RunContext } from '../exec/runs';
import type { Held, PinState } from '../pins/pins';

/** What a call is: the kinds the permission rules name, and a watch of a resource (resources/subscribe,
 *  a `/v1/events` watch), decided as a read of it. */
export type ChainKind = CallKind | 'watch';

/** Where a call's answer keeps its URIs: as its server wrote them (a pass-through server's, screened:
 *  screen.ts `passedThrough`) or rewritten into mcpx:// ones (gateway mode). */
export type UriForm = 'kept' | 'rewritten';

/** What the caller named. A tool by its server and name (mcpx_call, a script, the HTTP API, an app), or
 *  one the surface already found under the name a client sees (pass-through: `listed` set, offered);
 *  a prompt by the name a client sees; a resource (read or watched) by its URI; a completion by its
 *  ref; a skill (skills/get) by its SKILL.md URI as a client sees it. */
export type Named =
  | { readonly kind: 'tool'; readonly server: string; readonly tool: string }
  | { readonly kind: 'prompt'; readonly name: string }
  | { readonly kind: 'resource'; readonly uri: string }
  | { readonly kind: 'watch'; readonly uri: string; readonly deliver: (uri: string) => void }
  | { readonly kind: 'completion'; readonly ref: JsonObject }
  | { readonly kind: 'skill'; readonly uri: string };

/** The step that refused a call and why: answered and recorded by the `recorded` step. */
export interface Refusal {
  readonly code: 'pins.held' | 'permissions.denied' | 'guardrails.blocked';
  readonly message: string;
}

export class Call {
  /** The upstream server it goes to, once offered. */
  server = '';
  /** The tool's or prompt's name, or the resource's URI, as the upstream has it; for a completion, what
   *  it completes. */
  target = '';
  /** The definition its server listed (a tool, a prompt), where it did. */
  listed?: JsonObject;
  /** Set once the `offered` step (or the surface, for a pass-through name) found it. */
  offered = false;
  /** A pass-through name the surface's index does not hold: the `offered` step fetches its server's list
   *  through the call (it may wait for a sign-in) to find it there. */
  unindexed = false;
  /** Whether its answer's URIs stay as its server wrote them or become mcpx:// ones (the `offered` step
   *  knows: a gateway-mode server's, or a resource read at an mcpx:// URI). */
  uris: UriForm = 'kept';
  /** The params sent upstream beyond the name (a completion's argument and context). */
  params: JsonObject = {};
  /** Its pin (the `pinned` step): its definition as pinned, changed, held, or pins off. */
  pin?: PinState;
  held?: Held;
  /** How the `permitted` step decided. */
  decision?: Decision;
  /** The call ended while the person was asked: recorded as cancelled, then thrown. */
  cancelled?: Error;
  /** Why it is refused, where a step refused it. */
  refusal?: Refusal;
  /** What the guardrails found in its arguments and its result (the `screened` step): the record's. */
  readonly findings: ActivityFinding[] = [];
  /** The steps it passed, in order (docs/gateway.md "The call chain"; test/gateway/call-chain.test.ts reads them
   *  for every entry). */
  readonly passed: string[] = [];
  /** When the chain took it (the activity record's time and duration). */
  readonly at = Date.now();
  /** The path it came by: a script's calls and the editor's are known by their context. */
  readonly path: CallPath;
  /** The script run it is a call of, if any. */
  readonly run?: string;
  readonly timeoutMs?: number;
  readonly listedOnly: boolean;
  private canonicalArgs?: string;

  constructor(
    readonly named: Named,
    readonly ctx: CallContext,
    /** The arguments (a tool's, a prompt's); `{}` for a read or a watch. Set before the chain runs (the
     *  HTTP API finds a tool before it reads the body). */
    public args: JsonObject,
    o: {
      path: CallPath;
      /** A tool call's own timeout (mcpx_call's timeoutSec, a script's), below pool.callTimeout. */
      timeoutMs?: number;
      /** Only a tool its server lists is offered (the HTTP API: 404 otherwise). */
      listedOnly?: boolean;
    },
  ) {
    this.path = pathOf(ctx, named.kind, o.path);
    this.timeoutMs = o.timeoutMs;
    this.listedOnly = o.listedOnly === true;
    if (ctx instanceof RunContext) this.run = ctx.run.id;
  }

  get kind(): ChainKind {
    return this.named.kind;
  }

  /** The arguments as a record keeps them and the person is shown them, where a guardrail found something
   *  in them: every finding masked, whatever was done with it (call/screened.ts). */
  maskedArgs?: JsonObject;

  /** The arguments as they go on, a guardrail having redacted some of them: what is sent and recorded. */
  redactArgs(args: JsonObject): void {
    this.args = args;
    this.canonicalArgs = undefined;
  }

  /** The arguments' canonical JSON (kit/canonical.ts), made once: the digest an approval is bound to and
   *  the record's size (same members, same bytes). */
  get canonical(): string {
    this.canonicalArgs ??= canonicalJson(this.args);
    return this.canonicalArgs;
  }
}

/** A call of a script is `mcpx_exec`'s; the editor's are the palette's (a tool) or the editor's. */
function pathOf(ctx: CallContext, kind: ChainKind, given: CallPath): CallPath {
  if (ctx instanceof RunContext) return 'mcpx_exec';
  if (ctx.transport === 'editor') return kind === 'tool' ? 'palette' : 'editor';
  return given;
}
