// mcpx_exec (docs/exec.md): a script run in the sandboxed child (runner.ts), every request it makes
// served with the checks of the gateway's own tools and joined to its run (runs.ts). The runs in flight
// are listed for the editor and all stopped when the gateway closes.
import type { Settings } from '../../config/settings';
import { McpxError } from '../../protocol/errors';
import { type JsonObject, isObject } from '../../protocol/jsonrpc';
import type { CallToolResult, GetPromptResult, ReadResourceResult } from '../../protocol/methods';
import { askedTimeoutMs } from '../../protocol/meta';
import type { CallContext } from '../../server/provider';
import { listen } from '../../wire/abort';
import { type ExecOp, tooManyInFlight } from './channel';
import { identifier } from './declarations';
import { Run, RunContext, type RunView } from './runs';
import { resultOf, runScript } from './runner';

/** What a script's requests reach: the gateway's own paths, with a context. */
export interface ExecDeps {
  settings: Settings;
  /** mcpx_call's path: allow/deny filter, input schema, the upstream call, URIs rewritten. */
  call(server: string, tool: string, args: JsonObject, ctx: CallContext, timeoutMs?: number): Promise<CallToolResult>;
  /** The names of the servers the caller's endpoint offers (docs/gateway.md "Profiles"). */
  servers(ctx: CallContext): string[];
  /** A server's tools as it lists them, those the caller's endpoint offers. */
  tools(server: string, ctx: CallContext): Promise<JsonObject[]>;
  read(uri: string, ctx: CallContext): Promise<ReadResourceResult>;
  prompt(name: string, args: Record<string, string>, ctx: CallContext): Promise<GetPromptResult>;
}

export class Exec {
  private readonly live = new Map<Run, Promise<unknown>>();

  constructor(private readonly d: ExecDeps) {}

  /** Run one script for `ctx`; `started` hears the child's pid (tests). */
  async run(args: JsonObject, ctx: CallContext, started?: (pid: number) => void): Promise<CallToolResult> {
    const { settings } = this.d;
    // timeoutSec may be longer than exec.timeout (a script that expects to ask), never longer than one
    // client request may be held (proto.askTimeout).
    const runTimeout =
      typeof args.timeoutSec === 'number'
        ? Math.min(args.timeoutSec * 1000, settings.duration('proto.askTimeout'))
        : settings.duration('exec.timeout');
    // A request's `_meta["dev.mcpx/timeoutMs"]` bounds the whole run too, never lengthening it
    // (docs/gateway.md "Timeouts, in order of precedence"); its calls get it through the run's context.
    const asked = askedTimeoutMs(ctx.meta);
    const timeoutMs = asked === undefined ? runTimeout : Math.min(runTimeout, asked);
    // Each run is a process: bounded in the gateway and per identity, so one client cannot hold every
    // process the machine can give (docs/security.md "Bounds"). Refused, not queued.
    const total = settings.get<number>('exec.maxRuns');
    if (this.live.size >= total)
      return refused(`the gateway already runs ${total} scripts (exec.maxRuns); retry when one has ended`);
    const mine = settings.get<number>('exec.maxRunsPerIdentity');
    let own = 0;
    for (const r of this.live.keys()) if (r.identity === ctx.identity) own++;
    if (own >= mine)
      return refused(`this client already runs ${mine} scripts (exec.maxRunsPerIdentity); retry when one has ended`);
    const run = new Run(ctx.identity, ctx.clientName);
    const rctx = new RunContext(run, ctx, settings.get<number>('proto.askRounds'));
    const unlisten = listen(ctx.abort ?? ctx.signal, () => run.stop('the call was cancelled; the script was stopped'));
    const work = runScript(
      String(args.script),
      {
        timeoutMs,
        maxOutputBytes: settings.get<number>('exec.maxOutputBytes'),
        heapMb: settings.get<number>('exec.maxHeapMB'),
        maxConcurrent: settings.get<number>('exec.maxConcurrent'),
      },
      {
        serve: (op, a) => {
          // A script may run calls in parallel, up to a bound: past it a call is refused, not queued (the
          // child refuses first, before writing it; this is the guard behind it).
          const most = settings.get<number>('exec.maxConcurrent');
          if (run.running >= most) return Promise.reject(new Error(tooManyInFlight(most)));
          return run.track(labelOf(op, a), () => this.serve(op, a, rctx)).finally(() => rctx.done());
        },
        started,
      },
      run.abort,
    );
    this.live.set(run, work);
    try {
      return resultOf(await work);
    } finally {
      unlisten();
      // The run has ended: its requests still in flight end with it, and its membership with them.
      run.stop('the script run ended');
      this.live.delete(run);
    }
  }

  private async serve(op: ExecOp, a: unknown[], ctx: RunContext): Promise<unknown> {
    const obj = (v: unknown, what: string): JsonObject => {
      if (v === undefined) return {};
      if (!isObject(v)) throw new Error(`${what} must be an object`);
      return v;
    };
    const str = (v: unknown, what: string): string => {
      if (typeof v !== 'string') throw new Error(`${what} must be a string`);
      return v;
    };
    switch (op) {
      case 'call': {
        const { timeoutSec } = obj(a[3], 'the options');
        // A shorter timeout for this one call, as mcpx_call's timeoutSec: never longer than pool.callTimeout
        // (docs/exec.md "Bounds").
        if (timeoutSec !== undefined && !(typeof timeoutSec === 'number' && timeoutSec > 0 && timeoutSec < 1e9))
          throw new Error(
            `the options' timeoutSec must be a positive number of seconds, got ${JSON.stringify(timeoutSec)}`,
          );
        const timeout = timeoutSec === undefined ? undefined : Math.ceil(timeoutSec * 1000);
        return asResult(
          this.d.call(str(a[0], 'the server'), str(a[1], 'the tool'), obj(a[2], 'the arguments'), ctx, timeout),
        );
      }
      case 'typed': {
        const server = byIdentifier(this.d.servers(ctx), str(a[0], 'the server'), 'no configured server');
        const wanted = str(a[1], 'the tool');
        const tools = (await this.d.tools(server, ctx)).map((t) => String(t.name));
        const tool = byIdentifier(tools, wanted, `server ${server} has no tool`);
        return asResult(this.d.call(server, tool, obj(a[2], 'the arguments'), ctx));
      }
      case 'read':
        return this.d.read(str(a[0], 'the uri'), ctx);
      case 'prompt': {
        const args = obj(a[1], 'the arguments');
        return this.d.prompt(
          str(a[0], 'the prompt name'),
          Object.fromEntries(Object.entries(args).map(([k, v]) => [k, String(v)])),
          ctx,
        );
      }
    }
  }

  /** The scripts running now. */
  runs(): RunView[] {
    return [...this.live.keys()];
  }

  /** Stop every run; resolves when their processes are gone. */
  async close(): Promise<void> {
    for (const run of this.live.keys()) run.stop('the gateway is closing');
    await Promise.allSettled(this.live.values());
  }
}

/** The name itself, else the one name whose identifier it is (docs/exec.md "Typed functions"). */
function byIdentifier(names: string[], wanted: string, none: string): string {
  if (names.includes(wanted)) return wanted;
  const hits = names.filter((n) => identifier(n) === wanted);
  if (hits.length === 1) return hits[0]!;
  if (hits.length > 1) throw new Error(`${JSON.stringify(wanted)} names several: ${hits.join(', ')}; use mcpx.call`);
  throw new Error(`${none} named ${JSON.stringify(wanted)}`);
}

function labelOf(op: ExecOp, a: unknown[]): string {
  return op === 'call' || op === 'typed' ? `${String(a[0])}/${String(a[1])}` : `${op} ${String(a[0])}`;
}

/** A script reads a tool's refusal of its arguments as a tool error (an isError result), whatever the
 *  revision its caller speaks (docs/exec.md "Errors"); any other error rejects in the script. */
async function asResult(call: Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await call;
  } catch (e) {
    if (e instanceof McpxError && e.code === 'arguments.invalid')
      return { content: [{ type: 'text', text: e.message }], isError: true };
    throw e;
  }
}

/** A run refused before it started: an isError result the model can read. */
function refused(why: string): CallToolResult {
  return { content: [{ type: 'text', text: `mcpx_exec: ${why}` }], isError: true };
}
