// Questions put to the calling client while its request runs, in each era's carriage (the codec's
// `questions`):
// - a wire request on a request's own channel (negative id), answered by a response routed through
//   Conn.asked (every legacy revision's elicitation, sampling and roots pages);
// - in a 2026-07-28 background call, waiting for the client's retry (rounds.ts; 2026-07-28
//   basic/patterns/mrtr).
// Bounded: proto.askTimeout per question, proto.askRounds per request (docs/questions.md "Bounds").
import { randomUUID } from 'node:crypto';
import { McpxError, ProtocolError } from '../protocol/errors';
import { type JsonObject, isObject, notificationMsg } from '../protocol/jsonrpc';
import { UnsayableQuestion, spellQuestion } from '../protocol/questions';
import type { Revision } from '../protocol/revisions';
import { deadlines } from '../kit/deadlines';
import { Abort } from '../wire/abort';
import type { ServerCall } from './call';
import type { BackgroundCall } from './mrtr';

/** A question a background call's handler asks: it waits in the call until a retry answers it. */
export function askInBackground(
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

/** A question put to a legacy client on `channel` (a wire request, negative id), spelled for `rev` (the
 *  asking call's). `count` is the number the asking call has put so far; `meta` is added to the question's
 *  _meta (a task's related-task key). */
export async function askOnChannel(
  channel: ServerCall,
  rev: Revision,
  method: string,
  params: JsonObject,
  signal: AbortSignal,
  count: number,
  meta?: JsonObject,
): Promise<JsonObject> {
  const settings = channel.services.settings;
  const max = settings.get<number>('proto.askRounds');
  if (count >= max) throw new McpxError('bound.rounds', `the call asked more than ${max} questions (proto.askRounds)`);
  // "The server SHOULD NOT send requests other than pings and logging before receiving the initialized
  // notification" (2025-11-25 basic/lifecycle): a question then goes to the next answerer
  // (docs/protocol.md "Before initialized").
  if (!channel.conn.initialized) throw new UnsayableQuestion(method, rev, 'before it sent notifications/initialized');
  const spelled = spellQuestion(method, params, rev, () => randomUUID());
  if (meta) spelled._meta = { ...(isObject(spelled._meta) ? spelled._meta : {}), ...meta };
  const conn = channel.conn;
  const id = conn.mintAskId();
  // proto.askTimeout on the process's deadline wheel, not a timer of its own.
  const timeout = new Abort();
  const deadline = deadlines.after(settings.duration('proto.askTimeout'), () =>
    timeout.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
  );
  const all = AbortSignal.any([signal, channel.request.signal, timeout.signal]);
  const answer = conn.asked.wait(id, all);
  // A question withdrawn (upstream cancelled, call ended, timed out) is withdrawn from the client too,
  // saying why (the upstream's own reason where it withdrew it).
  const onAbort = () => {
    const why = all.reason instanceof Error ? all.reason.message : undefined;
    channel.relay.emit(
      notificationMsg('notifications/cancelled', {
        requestId: id,
        reason: `withdrawn by mcpx${why ? `: ${why}` : ''}`,
      }),
    );
  };
  all.addEventListener('abort', onAbort, { once: true });
  try {
    channel.relay.send!({ jsonrpc: '2.0', id, method, params: spelled });
    const r = await answer;
    if ('error' in r) throw new ProtocolError(r.error.code, r.error.message, r.error.data);
    return r.result;
  } finally {
    deadline.cancel();
    all.removeEventListener('abort', onAbort);
  }
}
