// Questions (elicitation, sampling, roots) put to a client: whether it declared exactly what this
// question needs, and the question spelled for its revision (docs/questions.md "Who answers";
// docs/protocol.md "Elicitation params per era").
import { CODES, ProtocolError } from './errors';
import { type JsonObject, isObject } from './jsonrpc';
import { questionOf } from './methods';
import { FIELDS, SAMPLING_MULTI_CONTENT, type Revision, hasField, inSpan } from './revisions';

/** Did the client declare the capability for exactly this question? Declaring one is not declaring
 *  the other: form vs url elicitation, sampling vs sampling.tools / sampling.context. */
export function declares(caps: JsonObject, method: string, params: JsonObject, rev: Revision): boolean {
  const span = questionOf(method)?.span;
  if (!span || !inSpan(rev, span)) return false;
  if (method === 'roots/list') return isObject(caps.roots);
  if (method === 'elicitation/create') {
    const e = caps.elicitation;
    if (!isObject(e)) return false;
    const mode = params.mode === 'url' ? 'url' : 'form';
    // An empty elicitation object means form support (2025-11-25 client/elicitation, backward compat).
    if (mode === 'url') return hasField('ElicitationCapability', 'url', rev) && isObject(e.url);
    return Object.keys(e).length === 0 || isObject(e.form) || !hasField('ElicitationCapability', 'form', rev);
  }
  if (method === 'sampling/createMessage') {
    const s = caps.sampling;
    if (!isObject(s)) return false;
    if ((params.tools !== undefined || params.toolChoice !== undefined) && !isObject(s.tools)) return false;
    const ctx = params.includeContext;
    if (ctx !== undefined && ctx !== 'none' && !isObject(s.context)) return false;
    return true;
  }
  return false;
}

/** A question a client's revision cannot carry: whoever routes it tries the next answerer. */
export class UnsayableQuestion extends ProtocolError {
  constructor(method: string, rev: Revision, when = 'as asked') {
    super(CODES.InternalError, `${method} cannot be put to a ${rev} client ${when}`);
    this.name = 'UnsayableQuestion';
  }
}

/** The fields of `shape` that `rev` does not define, left out of `out` (the revision table's FIELDS). */
function dropUndefined(out: JsonObject, shape: string, rev: Revision): void {
  for (const f of Object.keys(FIELDS[shape] ?? {})) if (!hasField(shape, f, rev)) delete out[f];
}

/** The question's params spelled for `rev` (a copy, never an edit); UnsayableQuestion when it cannot be
 *  said in that revision (several content blocks in one sampling message before 2025-11-25). */
export function spellQuestion(method: string, params: JsonObject, rev: Revision, mintId: () => string): JsonObject {
  const out: JsonObject = { ...params };
  if (method === 'elicitation/create') {
    dropUndefined(out, 'ElicitParams', rev);
    // 2025-11-25 url mode REQUIRES an elicitationId; one relayed without it gets mcpx-<id> (2025-11-25 client/elicitation; docs/protocol.md "Elicitation params per era").
    if (out.mode === 'url' && hasField('ElicitParams', 'elicitationId', rev) && typeof out.elicitationId !== 'string')
      out.elicitationId = `mcpx-${mintId()}`;
  }
  if (method === 'sampling/createMessage') {
    dropUndefined(out, 'SamplingParams', rev);
    if (!inSpan(rev, SAMPLING_MULTI_CONTENT) && Array.isArray(out.messages)) {
      const msgs: JsonObject[] = [];
      for (const m of out.messages as unknown[]) {
        if (!isObject(m)) throw new UnsayableQuestion(method, rev);
        if (!Array.isArray(m.content)) msgs.push(m);
        else if (m.content.length === 1) msgs.push({ ...m, content: m.content[0] });
        else throw new UnsayableQuestion(method, rev);
      }
      out.messages = msgs;
    }
  }
  return out;
}
