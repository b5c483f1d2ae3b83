// Questions put to the calling client while its request runs, in each era's carriage:
// - legacy: a wire request on the request's own channel (negative id), answered by a response routed
//   through Conn.asked (every legacy revision's elicitation, sampling and roots pages);
// - 2026-07-28: the call runs on in the background and the request ends with `input_required`; the
//   client's retry with `inputResponses` and the signed `requestState` resumes it
//   (2026-07-28 basic/patterns/mrtr).
// Both are bounded: proto.askTimeout per question, proto.askRounds per request (docs/questions.md
// "Bounds").
import { randomUUID } from 'node:crypto';
import type { Settings } from '../config/settings';
import { CODES, ProtocolError, invalidParams } from '../protocol/errors';
import { type JsonObject, isObject, notificationMsg } from '../protocol/jsonrpc';
import { META } from '../protocol/meta';
import { declares, spellQuestion } from '../protocol/questions';
import type { Revision } from '../protocol/revisions';
import type { Incoming } from './incoming';
import { BackgroundCall, BackgroundCalls, RequestStates, bindingOf, labelOf } from './mrtr';
import { listen } from '../wire/abort';

/** How a 2026-07-28 call may become a task: after `ms` without finishing or asking (none: only when its
 *  upstream made it one), by `promote`, which answers the CreateTaskResult. */
export interface TaskWindow {
  ms?: number;
  promote(call: BackgroundCall): JsonObject;
}

export class Rounds {
  /** Background calls of 2026-07-28 clients (the store a retry resumes from). */
  readonly background: BackgroundCalls;
  private readonly states = new RequestStates();

  constructor(private readonly settings: Settings) {
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

  /** One round of a 2026-07-28 call that may ask: a fresh request starts the call in the background
   *  (`start` runs its handler with the call's context); a retry verifies its requestState, delivers
   *  its inputResponses and resumes it. The round ends with the call's result, or with input_required
   *  carrying the open questions. A new call is held for `identity`, within its bounds. */
  async roundTrip(
    inc: Incoming,
    rev: Revision,
    identity: string,
    start: (call: BackgroundCall) => void,
    window?: TaskWindow,
  ): Promise<JsonObject> {
    const { req } = inc;
    const params = isObject(req.params) ? req.params : {};
    // Computed only when a state is checked or issued (once): a call that asks nothing pays nothing for it.
    let bound: string | undefined;
    const binding = () => (bound ??= bindingOf(req.method, params, this.settings.get<number>('limits.paramsDepth')));
    let call: BackgroundCall;
    // The nonce this retry claimed: given back if the retry is cancelled before it is answered.
    let claimed: string | undefined;
    if (typeof params.requestState === 'string') {
      const state = this.states.verify(params.requestState, binding, identity);
      const found = this.background.get(state.c);
      if (!found)
        throw invalidParams(
          'Invalid params: the call behind this requestState is gone (collected, or abandoned after proto.askTTL)',
        );
      // Single-use: only the call's latest state, and only once (docs/security.md "requestState").
      if (found.nonce !== state.n)
        throw invalidParams('Invalid params: requestState already used (each state resumes its call once)');
      call = found;
      claimed = found.nonce;
      found.nonce = undefined;
    } else {
      call = new BackgroundCall(req.method, labelOf(req.method, req.params), identity);
      this.background.add(call); // refused at its bounds, before anything runs
      try {
        start(call);
      } catch (e) {
        this.background.delete(call.id);
        throw e;
      }
    }
    const delivered = isObject(params.inputResponses) ? call.deliver(params.inputResponses) : 0;
    // Closing the stream cancels this request (2026-07-28): a call nobody has been asked about yet ends
    // with it; one that already asked waits for its retry until proto.askTTL.
    const cancelled = new Promise<'cancelled'>((resolve) => listen(inc.abort, () => resolve('cancelled')));
    const wait = call.waitSettle(window !== undefined);
    call.attached++;
    let ev: Awaited<typeof wait.settled> | 'cancelled' | 'window';
    // The eager window (docs/protocol.md "Tasks"): a call that neither finished nor asked in it becomes a task.
    let timer: NodeJS.Timeout | undefined;
    const elapsed =
      window?.ms === undefined
        ? undefined
        : new Promise<'window'>((resolve) => {
            timer = setTimeout(() => resolve('window'), window.ms);
          });
    try {
      ev = await Promise.race(elapsed ? [wait.settled, cancelled, elapsed] : [wait.settled, cancelled]);
    } finally {
      clearTimeout(timer);
      call.attached--;
      call.detachedAt = Date.now();
    }
    if (window && (ev === 'window' || (ev !== 'cancelled' && ev.kind === 'task'))) {
      wait.stop();
      // The task store holds it from now on: its bounds, its retention. Refused there, the call ends.
      this.background.delete(call.id);
      try {
        return window.promote(call);
      } catch (e) {
        call.abort.abort(e instanceof Error ? e : new Error(String(e)));
        throw e;
      }
    }
    if (ev === 'cancelled') {
      wait.stop();
      // The state is given back only if this retry delivered nothing: answers are delivered once
      // (docs/security.md "requestState").
      if (claimed !== undefined && delivered === 0 && call.nonce === undefined) call.nonce = claimed;
      if (call.rounds === 0) {
        call.abort.abort(new Error('cancelled by the client'));
        this.background.delete(call.id);
      }
      throw new ProtocolError(CODES.InternalError, 'Request cancelled');
    }
    if (ev === 'window' || ev.kind === 'task') throw new Error('unreachable: a task without a window');
    if (ev.kind === 'done') {
      this.background.delete(call.id);
      if (ev.error !== undefined) throw ev.error;
      return ev.result!;
    }
    const max = this.settings.get<number>('proto.askRounds');
    if (call.rounds + 1 > max) {
      call.abort.abort(new Error('too many rounds'));
      this.background.delete(call.id);
      throw new ProtocolError(
        CODES.InternalError,
        `the call was still asking for input after ${max} rounds (proto.askRounds); abandoned`,
      );
    }
    // Never an inputRequests kind the client did not declare on this request (2026-07-28 mrtr: MUST).
    const caps = (isObject(params._meta) ? params._meta[META.clientCapabilities] : undefined) as JsonObject | undefined;
    const inputRequests: JsonObject = {};
    for (const [k, q] of Object.entries(call.inputRequests())) {
      const r = q as { method: string; params: JsonObject };
      if (declares(caps ?? {}, r.method, r.params, rev)) inputRequests[k] = q;
    }
    call.rounds += 1;
    call.nonce = this.states.nonce();
    const requestState = this.states.sign({
      c: call.id,
      b: binding(),
      e: Date.now() + this.settings.duration('proto.stateTTL'),
      n: call.nonce,
      i: call.identity,
    });
    return { resultType: 'input_required', inputRequests, requestState };
  }

  /** A question a background call's handler asks: it waits in the call until a retry answers it. */
  askInBackground(
    call: BackgroundCall,
    rev: Revision,
    method: string,
    params: JsonObject,
    signal: AbortSignal,
    key?: string,
  ): Promise<JsonObject> {
    return call.ask(
      method,
      spellQuestion(method, params, rev, () => randomUUID()),
      AbortSignal.any([signal, call.abort.signal]),
      key,
    );
  }

  /** A question put to a legacy client on the request's own channel (a wire request, negative id).
   *  `count` is the number asked so far on this request. */
  async askOnChannel(
    inc: Incoming,
    rev: Revision,
    method: string,
    params: JsonObject,
    signal: AbortSignal,
    count: number,
    /** Keys added to the question's _meta (a task's related-task key). */
    meta?: JsonObject,
  ): Promise<JsonObject> {
    const max = this.settings.get<number>('proto.askRounds');
    if (count >= max)
      throw new ProtocolError(CODES.InternalError, `the call asked more than ${max} questions (proto.askRounds)`);
    const spelled = spellQuestion(method, params, rev, () => randomUUID());
    if (meta) spelled._meta = { ...(isObject(spelled._meta) ? spelled._meta : {}), ...meta };
    const conn = inc.conn;
    const id = conn.mintAskId();
    const all = AbortSignal.any([
      signal,
      inc.abort.signal,
      AbortSignal.timeout(this.settings.duration('proto.askTimeout')),
    ]);
    const answer = conn.asked.wait(id, all);
    // A question withdrawn (upstream cancelled, call ended, timed out) is withdrawn from the client too.
    const onAbort = () =>
      inc.emit(notificationMsg('notifications/cancelled', { requestId: id, reason: 'withdrawn by mcpx' }));
    all.addEventListener('abort', onAbort, { once: true });
    try {
      inc.send!({ jsonrpc: '2.0', id, method, params: spelled });
      const r = await answer;
      if ('error' in r) throw new ProtocolError(r.error.code, r.error.message, r.error.data);
      return r.result;
    } finally {
      all.removeEventListener('abort', onAbort);
    }
  }
}
