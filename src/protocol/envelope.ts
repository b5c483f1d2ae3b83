// The 2026-07-28 envelope (2026-07-28 basic/index "Result Responses", "_meta"; 2026-07-28
// server/utilities/caching).
import type { JsonObject } from './jsonrpc';
import { isObject } from './jsonrpc';
import { META } from './meta';

/** Cacheable results and their scope: public where the answer follows configuration, private where
 *  it may include the caller's own artifacts. */
export const CACHE_SCOPE: Readonly<Record<string, 'public' | 'private'>> = {
  'server/discover': 'public',
  'tools/list': 'public',
  'prompts/list': 'public',
  'resources/templates/list': 'public',
  'resources/list': 'private',
  'resources/read': 'private',
  // SEP-2640: skills/list carries the list-caching attributes; skills/get is read-like (docs/protocol.md
  // "Skills": its cache attributes, which the SEP leaves open, are given as the suite checks them).
  'skills/list': 'public',
  'skills/get': 'private',
};

/** A list's cacheScope: the method's own (CACHE_SCOPE), but `private` where the list depends on who asks
 *  (2026-07-28 server/utilities/caching: a `public` result may be shared between users). A result can
 *  only be narrowed, never widened. */
export function listCacheScope(method: string, callerDependent: boolean): 'public' | 'private' | undefined {
  const scope = CACHE_SCOPE[method];
  return scope && callerDependent ? 'private' : scope;
}

/** Results that are a Task (tasks extension "Task Polling"). */
const TASK_SHAPED: ReadonlySet<string> = new Set(['tasks/get']);

export interface EnvelopeOptions {
  serverInfo: JsonObject;
  listMaxAgeMs: number;
  readMaxAgeMs: number;
  /** The scope every cacheable result takes instead of CACHE_SCOPE's (a profile's: private). */
  scope?: 'private';
}

/** A copy of `result` with resultType, serverInfo in _meta and, on complete cacheable results, ttlMs
 *  and cacheScope. An input_required or task result carries no cache hints (it is interim). */
export function envelope(method: string, result: JsonObject, opts: EnvelopeOptions): JsonObject {
  const out: JsonObject = { ...result };
  const resultType = typeof out.resultType === 'string' ? out.resultType : 'complete';
  out.resultType = resultType;
  out._meta = { ...(isObject(result._meta) ? result._meta : {}), [META.serverInfo]: opts.serverInfo };
  // A handler that found its list depends on the caller said so with `cacheScope: "private"`.
  const scope = listCacheScope(method, result.cacheScope === 'private');
  if (scope && resultType === 'complete') {
    out.ttlMs = method === 'resources/read' ? opts.readMaxAgeMs : opts.listMaxAgeMs;
    out.cacheScope = opts.scope ?? scope;
  } else {
    // A task's ttlMs is its retention, not a cache hint (tasks extension "Tasks"): kept on a task
    // handle and on tasks/get, which answer the Task itself.
    if (!TASK_SHAPED.has(method) && resultType !== 'task') delete out.ttlMs;
    delete out.cacheScope;
  }
  return out;
}
