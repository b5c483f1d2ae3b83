// A script run as one unit (docs/exec.md "Questions"): its id, chosen before the script starts, the
// calls it has made so far, its end, and the CallContext every request of the script is made with —
// the caller's, except that it ends with the run and counts the run's questions. Calls made with it are
// members of the run (gateway/call/inFlight.ts `owner`): a question on a connection whose calls in flight all
// belong to one run goes to the run's caller; once the run ends, its membership counts for nothing.
import { randomUUID } from 'node:crypto';
import { CODES, ProtocolError } from '../../protocol/errors';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { LogLevel } from '../../protocol/meta';
import type { TraceContext } from '../../telemetry/trace';
import type { Revision } from '../../protocol/revisions';
import type { CallContext } from '../../server/provider';
import { Abort } from '../../wire/abort';

/** One request the script made, for a person (the editor's Tasks view). */
export interface RunCall {
  readonly label: string;
  state: 'running' | 'completed' | 'failed';
}

/** A running script, as the editor's Tasks view shows it. */
export interface RunView {
  readonly id: string;
  readonly startedAt: number;
  readonly client?: string;
  readonly identity: string;
  /** Its latest requests (at most KEPT_CALLS), oldest first. */
  readonly calls: readonly RunCall[];
  /** How many requests it has made in all. */
  readonly total: number;
}

/** Requests of a run kept for the view; older finished ones are dropped (counted in `total`). */
const KEPT_CALLS = 100;

export class Run implements RunView {
  readonly id = randomUUID();
  readonly startedAt = Date.now();
  readonly calls: RunCall[] = [];
  total = 0;
  /** Requests of the script running now. */
  running = 0;
  /** Aborted when the run ends, however: every request of the script still in flight ends with it. */
  readonly abort = new Abort();
  /** Questions the script's calls have asked its caller so far. */
  asked = 0;

  constructor(
    readonly identity: string,
    readonly client: string | undefined,
  ) {}

  get ended(): boolean {
    return this.abort.aborted;
  }

  /** End the run with `why` (what the caller is told). */
  stop(why: string): void {
    this.abort.abort(new Error(why));
  }

  /** Track one request of the script for as long as it runs. */
  async track<T>(label: string, work: () => Promise<T>): Promise<T> {
    const call: RunCall = { label, state: 'running' };
    this.calls.push(call);
    this.total++;
    this.running++;
    if (this.calls.length > KEPT_CALLS) {
      const i = this.calls.findIndex((c) => c.state !== 'running');
      if (i >= 0) this.calls.splice(i, 1);
    }
    try {
      const out = await work();
      call.state = isObject(out) && out.isError === true ? 'failed' : 'completed';
      return out;
    } catch (e) {
      call.state = 'failed';
      throw e;
    } finally {
      this.running--;
    }
  }
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The context of every request a script makes: the caller's, ending with the run, its questions
 *  counted against proto.askRounds for the whole run (a script that asks more is abandoned, like any
 *  call), progress reported per finished request rather than relayed from each upstream. */
export class RunContext implements CallContext {
  readonly meta: JsonObject;

  constructor(
    readonly run: Run,
    private readonly caller: CallContext,
    maxRounds: number,
  ) {
    // The caller's progressToken is the run's: upstream calls are not given it.
    const { progressToken: _t, ...meta } = caller.meta;
    void _t;
    this.meta = meta;
    if (caller.ask) {
      const ask = caller.ask.bind(caller);
      this.ask = (method, params, signal, key) => {
        if (++run.asked > maxRounds) {
          const why = `the script asked more than ${maxRounds} questions (proto.askRounds); abandoned`;
          run.stop(why);
          return Promise.reject(new ProtocolError(CODES.InternalError, why));
        }
        return ask(method, params, signal, key);
      };
    }
  }

  readonly ask?: CallContext['ask'];

  /** What the run's caller is told is the script's client's to hear (a sign-in's completion). */
  tell(method: string, params: JsonObject): void {
    this.caller.tell?.(method, params);
  }

  get rev(): Revision {
    return this.caller.rev;
  }
  get identity(): string {
    return this.caller.identity;
  }
  /** The caller's token subject: a script's calls are its caller's, matched by the same rules. */
  get principal(): CallContext['principal'] {
    return this.caller.principal;
  }
  /** The caller's profile: a script reaches what its caller's endpoint offers (docs/gateway.md "Profiles"). */
  get profile(): string | undefined {
    return this.caller.profile;
  }
  get clientCapabilities(): JsonObject {
    return this.caller.clientCapabilities;
  }
  get clientName(): string | undefined {
    return this.caller.clientName;
  }
  get clientVersion(): string | undefined {
    return this.caller.clientVersion;
  }
  get transport(): CallContext['transport'] {
    return this.caller.transport;
  }
  get mayDriveTask(): boolean | undefined {
    return this.caller.mayDriveTask;
  }
  get taskId(): string | undefined {
    return this.caller.taskId;
  }
  get logLevel(): LogLevel | undefined {
    return this.caller.logLevel;
  }
  get trace(): TraceContext | undefined {
    return this.caller.trace;
  }
  get signal(): AbortSignal {
    return this.run.abort.signal;
  }
  get abort(): Abort {
    return this.run.abort;
  }
  progress(): void {
    // Upstream progress is not relayed one call at a time (see `done`).
  }
  /** One more request of the script has finished: the run's progress. */
  done(): void {
    this.caller.progress(this.run.total - this.run.running);
  }
  log(level: LogLevel, data: unknown, logger?: string): void {
    this.caller.log(level, data, logger);
  }
}
