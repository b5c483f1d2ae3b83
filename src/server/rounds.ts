// The rounds of a 2026-07-28 call that may ask (2026-07-28 basic/patterns/mrtr): the call runs on in the
// background; each request ends with its result, or with `input_required` carrying the open questions and
// a signed requestState, and the client's retry with `inputResponses` resumes it. Bounded: proto.askRounds
// rounds per call, proto.askTTL for a call nobody retries (docs/questions.md "Bounds").
import type { Settings } from '../config/settings';
import { deadlines } from '../kit/deadlines';
import { McpxError, invalidParams } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { declares } from '../protocol/questions';
import { listen } from '../wire/abort';
import type { ServerCall } from './call';
import { BackgroundCall, BackgroundCalls, labelOf } from './mrtr';
import { RequestStates, bindingOf } from './states';
import type { TaskRecords } from './taskJournal';

/** How a round ended: the call's result or its questions (a result either way), or its eager window ran
 *  out — or its upstream made it a task — and it becomes a task now (docs/protocol.md "Tasks"). */
export type RoundEnd = { result: JsonObject } | { promote: true };

export class Rounds {
  /** Background calls of 2026-07-28 clients (the store a retry resumes from). */
  readonly background: BackgroundCalls;
  private readonly states: RequestStates;

  constructor(
    private readonly settings: Settings,
    /** With a state directory: the journal that lets a call outlive a restart, and the key that lets its
     *  requestState verify after one; in a team, the store's records and key, and this replica's id
     *  (a state names the replica its call runs on: docs/team.md "What needs no affinity"). */
    private readonly journal?: { recorder: TaskRecords; key: Buffer; replica?: string },
  ) {
    this.states = new RequestStates(journal?.key);
    this.background = new BackgroundCalls(
      () => settings.duration('proto.askTTL'),
      () => ({
        perIdentity: settings.get<number>('limits.backgroundPerIdentity'),
        total: settings.get<number>('limits.inflight'),
      }),
    );
  }

  close(): void {
    this.background.close();
  }

  /** The request binding, computed only when a state is checked or issued (once): a call that asks
   *  nothing pays nothing for it. */
  binding(call: ServerCall): () => string {
    let bound: string | undefined;
    const depth = this.settings.get<number>('limits.paramsDepth');
    return () => (bound ??= bindingOf(call.method, call.params, depth));
  }

  /** A retry's call: its requestState verified (for this request and identity), its nonce claimed. Undefined
   *  for a request that carries no requestState. */
  resume(call: ServerCall, binding: () => string): { bg: BackgroundCall; claimed: string } | undefined {
    const presented = call.params.requestState;
    if (typeof presented !== 'string') return undefined;
    const state = this.states.verify(presented, binding, call.identity);
    const bg = this.background.get(state.c);
    if (!bg)
      throw invalidParams(
        state.r !== undefined && state.r !== this.journal?.replica
          ? 'Invalid params: the replica that ran the call behind this requestState has stopped: its result is lost (call the tool again)'
          : 'Invalid params: the call behind this requestState is gone (collected, or abandoned after proto.askTTL)',
      );
    // Single-use: only the call's latest state, and only once (docs/security.md "requestState").
    if (bg.nonce !== state.n)
      throw invalidParams('Invalid params: requestState already used (each state resumes its call once)');
    bg.nonce = undefined;
    return { bg, claimed: state.n };
  }

  /** A fresh request's background call, held for its identity: refused at its bounds, before anything runs. */
  begin(call: ServerCall): BackgroundCall {
    const bg = new BackgroundCall(call.method, labelOf(call.method, call.req.params), call.identity);
    this.background.add(bg);
    return bg;
  }

  /** One round of `bg` for `call`: the retry's inputResponses delivered, then wait until the call finishes,
   *  asks, or — with a window — runs past `windowMs` (none: only its upstream ends the window). */
  async round(
    call: ServerCall,
    bg: BackgroundCall,
    binding: () => string,
    o: { claimed?: string; window?: { ms?: number } } = {},
  ): Promise<RoundEnd> {
    const { claimed, window } = o;
    const responses = call.params.inputResponses;
    const delivered = isObject(responses) ? bg.deliver(responses) : 0;
    // Closing the stream cancels this request (2026-07-28): a call nobody has been asked about yet ends
    // with it; one that already asked waits for its retry until proto.askTTL.
    let off = (): void => undefined;
    const cancelled = new Promise<'cancelled'>((resolve) => (off = listen(call.request, () => resolve('cancelled'))));
    const wait = bg.waitSettle(window !== undefined);
    bg.attached++;
    // The eager window, on the process's deadline wheel.
    let deadline: { cancel(): void } | undefined;
    const elapsed =
      window?.ms === undefined
        ? undefined
        : new Promise<'window'>((resolve) => (deadline = deadlines.after(window.ms!, () => resolve('window'))));
    let ev: Awaited<typeof wait.settled> | 'cancelled' | 'window';
    try {
      ev = await Promise.race(elapsed ? [wait.settled, cancelled, elapsed] : [wait.settled, cancelled]);
    } finally {
      deadline?.cancel();
      off();
      bg.attached--;
      bg.detachedAt = Date.now();
    }
    if (window && (ev === 'window' || (ev !== 'cancelled' && ev.kind === 'task'))) {
      wait.stop();
      // The task store holds it from now on: its bounds, its retention.
      this.background.delete(bg.id);
      return { promote: true };
    }
    if (ev === 'cancelled') {
      wait.stop();
      // The state is given back only if this retry delivered nothing: answers are delivered once
      // (docs/security.md "requestState").
      if (claimed !== undefined && delivered === 0 && bg.nonce === undefined) bg.nonce = claimed;
      if (bg.rounds === 0) {
        bg.abort.abort(new Error('cancelled by the client'));
        this.background.delete(bg.id);
      }
      throw new McpxError('cancelled', 'Request cancelled');
    }
    if (ev === 'window' || ev.kind === 'task') throw new Error('unreachable: a task without a window');
    if (ev.kind === 'done') {
      this.background.delete(bg.id);
      if (ev.error !== undefined) throw ev.error;
      return { result: ev.result! };
    }
    return { result: this.inputRequired(call, bg, binding) };
  }

  /** The round's questions as input_required, with the state that resumes the call. */
  private inputRequired(call: ServerCall, bg: BackgroundCall, binding: () => string): JsonObject {
    const max = this.settings.get<number>('proto.askRounds');
    if (bg.rounds + 1 > max) {
      bg.abort.abort(new Error('too many rounds'));
      this.background.delete(bg.id);
      throw new McpxError(
        'bound.rounds',
        `the call was still asking for input after ${max} rounds (proto.askRounds); abandoned`,
      );
    }
    // Never an inputRequests kind the client did not declare on this request (2026-07-28 mrtr: MUST).
    const inputRequests: JsonObject = {};
    for (const [k, q] of Object.entries(bg.inputRequests())) {
      const r = q as { method: string; params: JsonObject };
      if (declares(call.clientCapabilities, r.method, r.params, call.rev)) inputRequests[k] = q;
    }
    bg.rounds += 1;
    bg.nonce = this.states.nonce();
    // A retry may come back for it, after a restart too: recorded, and its outcome when it has one.
    const recorder = this.journal?.recorder;
    if (recorder) {
      recorder.call(bg);
      bg.onFinish = () => {
        if (this.background.get(bg.id)) recorder.call(bg);
      };
    }
    const requestState = this.states.sign({
      c: bg.id,
      b: binding(),
      e: Date.now() + this.settings.duration('proto.stateTTL'),
      n: bg.nonce,
      i: bg.identity,
      ...(this.journal?.replica ? { r: this.journal.replica } : {}),
    });
    return { resultType: 'input_required', inputRequests, requestState };
  }
}
