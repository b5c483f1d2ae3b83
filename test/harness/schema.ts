/**
 * Strict validation of MCP wire frames against the official JSON Schemas of
 * every supported protocol revision (copied under test/schemas/<rev>/).
 *
 * The official schemas leave objects open (no `additionalProperties`), which
 * would let a frame carry fields of a *later* revision unnoticed. Before
 * compiling, each schema is deep-copied and "closed": every object schema that
 * has `properties` and no `additionalProperties` gets `additionalProperties:
 * false`, except for the documented exceptions below.
 *
 * Nothing here prints anything; schemas are loaded lazily on first use.
 */
import type { ErrorObject } from 'ajv';
import { type SchemaObject, isObject, pick } from './schema-prepare';
import {
  type Direction,
  EXT_RESULTS,
  EXT_SKILLS,
  EXT_TASKS,
  LEGACY_DECLARED,
  type RevState,
  type Revision,
  SKILLS_RESULTS,
  paramsDeclare,
  run,
  state,
  tables,
} from './schema-state';

export { REVISIONS, type Revision } from './schema-state';

// ---------------------------------------------------------------------------
// Frame validation
// ---------------------------------------------------------------------------

/** Method of the request a response answers: one for all, or per response id (for 2025-03-26 batches). */
export type MethodOfRequest = string | Readonly<Record<string, string>>;

function methodFor(m: MethodOfRequest | undefined, id: unknown): string | undefined {
  if (m === undefined || typeof m === 'string') return m;
  if (typeof id === 'string' || typeof id === 'number') return Object.hasOwn(m, String(id)) ? m[String(id)] : undefined;
  return undefined;
}

function frameErrors(rev: Revision, dir: Direction, frame: unknown, answered: MethodOfRequest | undefined): string[] {
  const st = state(rev);
  if (Array.isArray(frame)) {
    if (!Object.hasOwn(st.rawDefs, 'JSONRPCBatchResponse') && !Object.hasOwn(st.rawDefs, 'JSONRPCBatchRequest')) {
      return [`/ batch (array) frames are not allowed in ${rev}: JSON-RPC batching exists only in 2025-03-26`];
    }
    if (frame.length === 0) return ['/ an empty batch array is not valid JSON-RPC'];
    const kinds = new Set(
      frame.map((el) => (isObject(el) && ('result' in el || 'error' in el) ? 'response' : 'request')),
    );
    const out: string[] = [];
    if (kinds.size > 1) out.push('/ a batch must contain only responses or only requests/notifications, not both');
    frame.forEach((el, i) => {
      const id = isObject(el) ? el.id : undefined;
      out.push(...singleFrameErrors(st, dir, el, methodFor(answered, id), `/${i}`));
    });
    return out;
  }
  if (answered !== undefined && typeof answered !== 'string') {
    return singleFrameErrors(st, dir, frame, methodFor(answered, isObject(frame) ? frame.id : undefined), '');
  }
  return singleFrameErrors(st, dir, frame, answered, '');
}

/** A legacy initialize result without the `extensions` SEP-2640 has it declare there (only that one). */
function legacyDeclared(rev: Revision, method: string, result: unknown): unknown {
  if (rev === '2026-07-28' || method !== 'initialize' || !isObject(result) || !isObject(result.capabilities))
    return result;
  const ext = result.capabilities.extensions;
  if (!isObject(ext) || Object.keys(ext).some((k) => k !== LEGACY_DECLARED || !isObject(ext[k]))) return result;
  const { extensions: _, ...capabilities } = result.capabilities;
  return { ...result, capabilities };
}

function singleFrameErrors(
  st: RevState,
  dir: Direction,
  frame: unknown,
  answered: string | undefined,
  prefix: string,
): string[] {
  const rev = st.rev;
  const at = prefix || '/';
  if (!isObject(frame))
    return [
      `${at} frame must be a JSON object (got ${frame === null ? 'null' : Array.isArray(frame) ? 'array' : typeof frame})`,
    ];
  const t = tables(st);
  const defs = st.rawDefs;

  if ('error' in frame) {
    const envelope = Object.hasOwn(defs, 'JSONRPCErrorResponse') ? 'JSONRPCErrorResponse' : 'JSONRPCError';
    const error = frame.error;
    const code = isObject(error) ? error.code : undefined;
    // JSON-RPC: an error is answered without id when the request could not be read (-32700), or was
    // refused before it was read (-32600: a forbidden Origin, an oversized body; every Streamable HTTP
    // page lets such an HTTP error carry "a JSON-RPC error response that has no id").
    const parseErrorWithoutId = (code === -32700 || code === -32600) && !('id' in frame);
    const dropMissingId = parseErrorWithoutId
      ? (e: ErrorObject): boolean =>
          e.keyword === 'required' &&
          e.instancePath === '' &&
          (e.params as Record<string, unknown>).missingProperty === 'id'
      : undefined;
    const out = run(st, envelope, frame, prefix, dropMissingId);
    const specific = typeof code === 'number' ? t.errorFrameDefs.get(code) : undefined;
    if (specific !== undefined) out.push(...run(st, specific, frame, prefix, dropMissingId));
    return out;
  }

  if ('result' in frame) {
    const envelope = Object.hasOwn(defs, 'JSONRPCResultResponse') ? 'JSONRPCResultResponse' : 'JSONRPCResponse';
    const out = run(st, envelope, frame, prefix);
    if (answered === undefined) {
      out.push(`${at} cannot validate a result without the method of the request it answers (pass requestMethod)`);
      return out;
    }
    const skills = dir === 'server' ? SKILLS_RESULTS[answered] : undefined;
    if (skills) {
      const def = rev === '2026-07-28' ? skills : `Legacy${skills}`;
      return [...out, ...run(state(EXT_SKILLS), def, frame.result, `${prefix}/result`)];
    }
    // The tasks extension's messages under 2026-07-28: checked against the extension's schema.
    if (rev === '2026-07-28' && dir === 'server') {
      const r = frame.result;
      const ext =
        EXT_RESULTS[answered] ??
        (answered === 'tools/call' && isObject(r) && r.resultType === 'task' ? 'CreateTaskResult' : undefined);
      if (ext) return [...out, ...run(state(EXT_TASKS), ext, r, `${prefix}/result`)];
    }
    const results = dir === 'server' ? t.serverResults : t.clientResults;
    const requests = dir === 'server' ? t.clientRequests : t.serverRequests;
    const resultDef = results.get(answered);
    const reqDef = requests.get(answered);
    if (resultDef === undefined || reqDef === undefined) {
      const union = dir === 'server' ? 'ClientRequest' : 'ServerRequest';
      out.push(
        `${at} method "${answered}" does not exist in ${rev} (no ${union} with that method, so no result to validate)`,
      );
      return out;
    }
    const result = legacyDeclared(rev, answered, frame.result);
    let def = resultDef;
    if (isObject(result)) {
      // 2026-07-28 multi round-trip: a result with resultType "input_required" is an InputRequiredResult.
      if (result.resultType === 'input_required' && Object.hasOwn(defs, 'InputRequiredResult')) {
        if (!paramsDeclare(st, reqDef, 'inputResponses')) {
          out.push(
            `${at}/result/resultType "input_required" is not allowed for ${answered} in ${rev} (its params take no inputResponses)`,
          );
          return out;
        }
        def = 'InputRequiredResult';
      } else if ('task' in result && Object.hasOwn(defs, 'CreateTaskResult') && paramsDeclare(st, reqDef, 'task')) {
        // 2025-11-25 task-augmented request: answered with a CreateTaskResult instead of the normal result.
        def = 'CreateTaskResult';
      }
    }
    out.push(...run(st, def, result, `${prefix}/result`));
    return out;
  }

  if ('method' in frame) {
    const method = frame.method;
    const isRequest = 'id' in frame;
    const envelope = isRequest ? 'JSONRPCRequest' : 'JSONRPCNotification';
    const out = run(st, envelope, frame, prefix);
    if (typeof method !== 'string') return out;
    const table = isRequest
      ? dir === 'server'
        ? t.serverRequests
        : t.clientRequests
      : dir === 'server'
        ? t.serverNotifications
        : t.clientNotifications;
    if (rev === '2026-07-28' && dir === 'server' && !isRequest && method === 'notifications/tasks')
      return [...out, ...run(state(EXT_TASKS), 'TaskStatusNotification', frame, prefix)];
    // An acknowledgement naming taskIds: the extension's field against its schema, the rest against the core.
    const agreed =
      isObject(frame.params) && isObject(frame.params.notifications) ? frame.params.notifications : undefined;
    if (
      rev === '2026-07-28' &&
      method === 'notifications/subscriptions/acknowledged' &&
      agreed &&
      'taskIds' in agreed
    ) {
      const { taskIds, ...core } = agreed;
      const ext = run(
        state(EXT_TASKS),
        'TaskSubscriptionAcknowledgedNotifications',
        { taskIds },
        `${prefix}/params/notifications`,
      );
      const rest = { ...frame, params: { ...(frame.params as SchemaObject), notifications: core } };
      return [...ext, ...singleFrameErrors(st, dir, rest, answered, prefix)];
    }
    const def = table.get(method);
    if (def === undefined) {
      const union = (dir === 'server' ? 'Server' : 'Client') + (isRequest ? 'Request' : 'Notification');
      const exists = Object.hasOwn(defs, union) ? `no ${union} with that method` : `${union} is not defined at all`;
      out.push(`${prefix}/method method "${method}" does not exist in ${rev} (${exists})`);
      return out;
    }
    // draft-07 request/notification definitions describe only {method, params}; jsonrpc/id are checked by the envelope.
    const props = pick(defs, def, 'properties');
    let body: unknown = frame;
    if (isObject(props) && !('jsonrpc' in props)) {
      const { jsonrpc: _j, id: _i, ...rest } = frame;
      body = rest;
    }
    out.push(...run(st, def, body, prefix));
    return out;
  }

  return [`${at} frame is neither a request, a notification nor a response (no method, result or error)`];
}

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

/** Errors (empty when valid) for one frame the *server* sent to a client speaking `rev`.
 *  `requestMethod` is the method of the request this frame answers (needed for results).
 *  For a 2025-03-26 batch it may be a map from response id to method. */
export function serverFrameErrors(rev: Revision, frame: unknown, requestMethod?: MethodOfRequest): string[] {
  return frameErrors(rev, 'server', frame, requestMethod);
}

export function assertServerFrame(rev: Revision, frame: unknown, requestMethod?: MethodOfRequest): void {
  const errors = serverFrameErrors(rev, frame, requestMethod);
  if (errors.length > 0) throw new Error(describe(`server frame is not valid ${rev}`, errors, frame));
}

/** Same for frames a *client* sends to a server (used later when mcpx acts as a client). */
export function clientFrameErrors(rev: Revision, frame: unknown, responseToMethod?: MethodOfRequest): string[] {
  return frameErrors(rev, 'client', frame, responseToMethod);
}

export function assertClientFrame(rev: Revision, frame: unknown, responseToMethod?: MethodOfRequest): void {
  const errors = clientFrameErrors(rev, frame, responseToMethod);
  if (errors.length > 0) throw new Error(describe(`client frame is not valid ${rev}`, errors, frame));
}

/** Validate a bare object against one named definition of a revision, strictly. */
export function defErrors(rev: Revision, defName: string, value: unknown): string[] {
  const st = state(rev);
  if (!Object.hasOwn(st.defs, defName)) return [`definition ${defName} does not exist in ${rev}`];
  return run(st, defName, value);
}

/** The method → result-definition table the harness uses (for inspection and tests). */
export function resultDefinitionFor(rev: Revision, direction: 'server' | 'client', method: string): string | undefined {
  const t = tables(state(rev));
  return (direction === 'server' ? t.serverResults : t.clientResults).get(method);
}

function describe(title: string, errors: string[], frame: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(frame, null, 2);
  } catch {
    json = String(frame);
  }
  return `${title}:\n  - ${errors.join('\n  - ')}\nframe:\n${json}`;
}
