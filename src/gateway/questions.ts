// Who answers a question an upstream asks (docs/questions.md "Who answers"): the calling client first (proto.native) if it
// declared exactly this capability and can be asked on its request; then the person through the host
// port; roots from mcpx's own; otherwise the broker. Every answer is checked before it goes upstream.
import { isTypedError } from '../protocol/errors';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { META } from '../protocol/meta';
import { UnsayableQuestion, declares } from '../protocol/questions';
import { hasField } from '../protocol/revisions';
import type { CallContext } from '../server/provider';
import { type Broker, answerProblem } from './broker';

/** The host port for asking a person: form and URL elicitation, and sampling (with a model the person
 *  picks and reviews). Resolves with the answer in the protocol's shape, or undefined when the person
 *  dismissed it without choosing (it then waits at the broker, answerable later until its deadline);
 *  `can` says which kinds the host takes at all (the rest wait at the broker). */
export interface PersonPort {
  can(method: string, params: JsonObject): boolean;
  ask(
    question: { server: string; method: string; params: JsonObject; client?: string },
    signal: AbortSignal,
  ): Promise<JsonObject | undefined>;
}

/** URL questions relayed to a calling client, by the upstream connection that asked and the question's
 *  elicitationId, so that the upstream's notifications/elicitation/complete reaches that client
 *  (docs/protocol.md "URL-mode state"). Bounded: the oldest goes past MAX, and each goes after `ttlMs`. */
export class UrlQuestions {
  private static readonly MAX = 1000;
  private readonly byKey = new Map<string, { to: CallContext; at: number }>();

  constructor(private readonly ttlMs: () => number) {}

  /** `to` was given the URL question `elicitationId` of connection `conn`. */
  given(conn: string, elicitationId: string, to: CallContext): void {
    const key = `${conn}\u0000${elicitationId}`;
    this.byKey.delete(key);
    this.byKey.set(key, { to, at: Date.now() });
    if (this.byKey.size > UrlQuestions.MAX) this.byKey.delete(this.byKey.keys().next().value!);
  }

  /** The upstream on `conn` says `elicitationId` is done: the client that was given it is told, once,
   *  where its revision has the notification. Unknown, expired or told already: nothing (2025-11-25
   *  client/elicitation: a client ignores an unknown id; mcpx does not pass one on). */
  completed(conn: string, elicitationId: string): void {
    const key = `${conn}\u0000${elicitationId}`;
    const e = this.byKey.get(key);
    this.byKey.delete(key);
    if (e && Date.now() - e.at <= this.ttlMs() && hasField('ElicitParams', 'elicitationId', e.to.rev))
      e.to.tell?.('notifications/elicitation/complete', { elicitationId });
  }
}

export interface Answerers {
  native: boolean;
  /** Where a URL question given to a client is remembered (its completion is relayed to it). */
  urls?: UrlQuestions;
  person?: PersonPort;
  /** Also what bounds the person's time (its ttlMs, elicit.ttl): then the question is withdrawn from the
   *  editor and an elicitation is answered cancel. */
  broker: Broker;
  roots: Array<{ uri: string; name?: string }>;
  log(line: string): void;
}

export interface Asked {
  server: string;
  method: string;
  params: JsonObject;
  signal: AbortSignal;
  /** The call the question belongs to, where it can be attributed. */
  owner?: CallContext;
  /** Why it has no owner, for the broker's record. */
  unowned: string;
  /** A 2026-07-28 upstream's own inputRequests key, kept where it can be. */
  inputKey?: string;
  /** The upstream connection that asked (pool entryKey): a URL question's completion comes back on it. */
  conn?: string;
  /** Aborts when every call the question could belong to has ended (cancelled, failed or answered). */
  ended?: AbortSignal;
}

export async function routeQuestion(a: Answerers, q: Asked): Promise<JsonObject> {
  const { server, method, signal, owner } = q;
  const params = withoutUpstreamTask(q.params);
  const asked =
    method === 'elicitation/create' && typeof params.message === 'string'
      ? { ...params, message: `${server} (via mcpx) asks: ${params.message}` }
      : params;
  /** Why the calling client's answer was refused, where it was. */
  let refused: string | undefined;
  if (owner?.ask && a.native && declares(owner.clientCapabilities, method, params, owner.rev)) {
    let prompt = asked;
    for (;;) {
      let answer: JsonObject;
      try {
        answer = await owner.ask(method, prompt, signal, prompt === asked ? q.inputKey : undefined);
      } catch (e) {
        // A question the client's revision cannot carry goes on to the next answerer.
        if (e instanceof UnsayableQuestion) break;
        // Not answered in time (proto.askTimeout) or the client went away: for an elicitation that is a
        // dismissal — cancel, never decline. Withdrawn by the upstream: nothing to answer.
        if (!signal.aborted && method === 'elicitation/create' && !isTypedError(e)) return { action: 'cancel' };
        throw e;
      }
      // An invalid answer is refused to the answerer with the reason (asked again, within
      // proto.askRounds), never forwarded.
      const bad = answerProblem(method, params, answer);
      if (!bad) {
        // The client was given this URL: the upstream's word that it is done goes to it.
        if (q.conn && prompt.mode === 'url' && typeof prompt.elicitationId === 'string')
          a.urls?.given(q.conn, prompt.elicitationId, owner);
        return answer;
      }
      // A sampling request has no message to say why in: it goes on to the next answerer instead.
      if (method !== 'elicitation/create') {
        refused = `the calling client's answer was refused (${bad})`;
        a.log(`[${server}] ${method}: ${refused}`);
        break;
      }
      prompt = { ...asked, message: `Your answer was not accepted (${bad}). ${String(asked.message)}` };
    }
  }
  if (method === 'roots/list') return { roots: a.roots };
  // A question belongs to its call: when the call ends (cancelled, timed out), the question is withdrawn
  // too, even where the upstream does not say so itself.
  // An unowned question too: once every call it could belong to has ended, nobody waits for its answer
  // (docs/security.md "Questions belong to their owner").
  const ends = [signal, ...(owner ? [owner.signal] : []), ...(q.ended ? [q.ended] : [])];
  const withdrawn = ends.length === 1 ? signal : AbortSignal.any(ends);
  // Withdrawn already (its call was ended for asking too much, say): nobody is asked.
  if (withdrawn.aborted) throw withdrawn.reason instanceof Error ? withdrawn.reason : new Error('withdrawn');
  let dismissed = false;
  const identity = owner?.identity ?? `upstream:${server}`;
  const shown = a.person?.can(method, params) ? a.broker.showing(identity) : undefined;
  if (shown) {
    const expiry = AbortSignal.timeout(a.broker.ttlMs);
    let answer: JsonObject | undefined;
    try {
      answer = await a.person!.ask(
        { server, method, params: asked, client: owner?.clientName },
        AbortSignal.any([withdrawn, expiry]),
      );
    } catch (e) {
      if (expiry.aborted && !withdrawn.aborted && method === 'elicitation/create') return { action: 'cancel' };
      throw e;
    } finally {
      shown();
    }
    if (answer) {
      const bad = answerProblem(method, params, answer);
      if (!bad) return answer;
      a.log(`[${server}] the answer given in the editor was refused: ${bad}`);
    } else dismissed = true;
  }
  const reason = dismissed
    ? 'dismissed in the editor: answer it from the Questions view'
    : (refused ?? (!owner ? q.unowned : !a.native ? 'proto.native is off' : 'the calling client cannot take it'));
  return a.broker.ask(server, method, asked, withdrawn, reason, owner?.identity);
}

/** The related-task key an upstream put on its question names the upstream's own task (2025-11-25
 *  "Associating Task-Related Messages"): meaningless to anyone mcpx asks, so it goes; mcpx adds its own
 *  where the question belongs to one of its tasks (docs/protocol.md "Tasks"). */
function withoutUpstreamTask(params: JsonObject): JsonObject {
  const meta = params._meta;
  if (!isObject(meta) || !(META.relatedTask in meta)) return params;
  const { [META.relatedTask]: _task, ...rest } = meta;
  void _task;
  const { _meta: _m, ...out } = params;
  void _m;
  return Object.keys(rest).length ? { ...out, _meta: rest } : out;
}
