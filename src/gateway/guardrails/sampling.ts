// A sampling request through the guardrails (docs/gateway.md "Guardrails"): an upstream's messages on their
// way to a model are an upstream's text reaching a model — screened as `results` — and the model's answer
// on its way back is a client's text reaching an upstream — screened as `arguments`. A block refuses the
// request to the upstream (-32602 `guardrails.blocked`); nothing is asked of anyone then. Other questions
// (elicitations, roots) pass as they are: a person, not a model, reads them.
import { McpxError } from '../../protocol/errors';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { Asked } from '../inbox/questions';
import { clientOf } from '../permissions/gate';
import { Blocked, type Guards } from './guards';

const SAMPLING = 'sampling/createMessage';

export async function screenedQuestion(
  guards: Pick<Guards, 'pass'>,
  q: Asked,
  route: (q: Asked) => Promise<JsonObject>,
): Promise<JsonObject> {
  if (q.method !== SAMPLING) return route(q);
  const base = {
    server: q.server,
    target: SAMPLING,
    profile: q.owner?.profile,
    signal: q.signal,
    request: () => ({
      kind: 'tool' as const,
      client: q.owner
        ? clientOf(q.owner)
        : { identity: `upstream:${q.server}`, revision: '', transport: 'http' as const },
      path: 'pass-through' as const,
      server: q.server,
      target: SAMPLING,
      arguments: {},
      argsDigest: '',
    }),
  };
  try {
    const params = await guards.pass(q.params, { ...base, on: 'results', at: 'sampling request' });
    const answer = await route(params === q.params ? q : { ...q, params });
    return await guards.pass(answer, { ...base, on: 'arguments', at: 'sampling answer' });
  } catch (e) {
    if (e instanceof Blocked) throw new McpxError('guardrails.blocked', e.message);
    throw e;
  }
}
