// How an official MCP schema is prepared before it is compiled (schema.ts): every object schema closed
// (no field of a later revision passes unnoticed) but for the documented open ones, allOf compositions
// closed as one, params' _meta declared, and the union and method tables read off the definitions.

// ---------------------------------------------------------------------------
// Open-object exceptions (everything else with `properties` is closed).
// ---------------------------------------------------------------------------

/** Object schemas that are the value of a property with one of these names stay open. */
const OPEN_PROPERTY_NAMES: Readonly<Record<string, string>> = {
  // Reserved metadata bag: the spec lets both sides attach arbitrary keys; known keys (progressToken, io.modelcontextprotocol/*) stay typed.
  _meta: 'reserved metadata bag',
  // Tool.inputSchema is a JSON Schema document (`$schema`, `additionalProperties`, `$defs`, `description`, ...), not an MCP object.
  inputSchema: 'JSON Schema document',
  // Tool.outputSchema (2025-06-18+): a JSON Schema document, same reason as inputSchema.
  outputSchema: 'JSON Schema document',
  // ElicitRequest requestedSchema: a JSON Schema document (title/description/$schema etc.); its property values stay checked as PrimitiveSchemaDefinition.
  requestedSchema: 'JSON Schema document',
};

/** Named definitions that stay open (their top level only; nested objects are still closed). */
function isOpenDefinition(name: string): boolean {
  // 2026-07-28 MetaObject / RequestMetaObject / NotificationMetaObject / ResultMetaObject /
  // SubscriptionsListenResultMetaObject: `extends MetaObject = Record<string, unknown>` in schema.ts.
  if (/MetaObject$/.test(name)) return true;
  // ModelHint: schema.ts says "Keys not declared here are currently left unspecified by the spec and are up to the client to interpret."
  if (name === 'ModelHint') return true;
  return false;
}

// Further rules (not name based):
// - Direct members of an `allOf` are never closed (a closed part would reject the other part's fields).
//   In addition (2020-12 revisions only, the only ones using allOf), `$ref` members of an allOf are
//   replaced by an open inline copy of the referenced definition and the allOf parent gets
//   `unevaluatedProperties: false`, so the composition as a whole is closed to the union of its parts
//   (GetTaskResult / CancelTaskResult = Result & Task, TaskStatusNotificationParams = NotificationParams & Task,
//   the 2025-11-25 / 2026-07-28 error types = Error & {code, data}).
// - Objects the schema already marks open (`additionalProperties: {}` / `true` / a schema) are left alone:
//   Result, EmptyResult, GetTaskPayloadResult, tool `arguments`, `structuredContent`, `experimental`,
//   capability values typed `JSONObject` (2026) or `additionalProperties: true` (older), sampling `metadata`, ...
// - Request / notification `params` that lack `_meta` in the generated schema (draft-07 revisions; the
//   2025-11-25 tasks requests and notifications/elicitation/complete) get the revision's generic
//   `Request.params._meta` / `Notification.params._meta` added: schema.ts allows `_meta` on every
//   request/notification, the generator just dropped it where a sub-interface redeclares `params`.

// ---------------------------------------------------------------------------
// JSON helpers
// ---------------------------------------------------------------------------

export type SchemaObject = { [key: string]: unknown };

export function isObject(v: unknown): v is SchemaObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function deepCopy<T>(v: T): T {
  return structuredClone(v);
}

// ---------------------------------------------------------------------------
// Schema preparation (closing)
// ---------------------------------------------------------------------------

interface WalkCtx {
  prop?: string;
  def?: string;
  allOfMember?: boolean;
}

/** Keywords whose values are data, not subschemas. */
const DATA_KEYWORDS = new Set([
  'enum',
  'const',
  'default',
  'examples',
  'required',
  'description',
  '$schema',
  '$ref',
  'type',
  'format',
]);

export function closeObjects(node: unknown, ctx: WalkCtx): void {
  if (Array.isArray(node)) {
    for (const n of node) closeObjects(n, {});
    return;
  }
  if (!isObject(node)) return;
  if (
    isObject(node.properties) &&
    !('additionalProperties' in node) &&
    !ctx.allOfMember &&
    !(ctx.prop !== undefined && Object.hasOwn(OPEN_PROPERTY_NAMES, ctx.prop)) &&
    !(ctx.def !== undefined && isOpenDefinition(ctx.def))
  ) {
    node.additionalProperties = false;
  }
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) continue;
    if (key === 'properties' && isObject(value)) {
      for (const [p, sub] of Object.entries(value)) closeObjects(sub, { prop: p });
    } else if ((key === 'definitions' || key === '$defs') && isObject(value)) {
      for (const [d, sub] of Object.entries(value)) closeObjects(sub, { def: d });
    } else if (key === 'allOf' && Array.isArray(value)) {
      for (const sub of value) closeObjects(sub, { allOfMember: true });
    } else if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value) && ctx.allOfMember) {
      // The branches of an allOf member's union are parts of the composition too (the tasks extension's
      // GetTaskResult = Result & (WorkingTask | InputRequiredTask | ...)); the parent closes the whole.
      for (const sub of value) closeObjects(sub, { allOfMember: true });
    } else {
      closeObjects(value, {});
    }
  }
}

export function refName(ref: unknown): string | undefined {
  if (typeof ref !== 'string') return undefined;
  const m = /^#\/(?:definitions|\$defs)\/(.+)$/.exec(ref);
  return m ? m[1] : undefined;
}

/** 2020-12 only: make allOf compositions closed as a whole (see header comment). */
export function closeAllOfCompositions(node: unknown, defs: SchemaObject): void {
  if (Array.isArray(node)) {
    for (const n of node) closeAllOfCompositions(n, defs);
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) continue;
    if ((key === 'properties' || key === 'definitions' || key === '$defs') && isObject(value)) {
      for (const sub of Object.values(value)) closeAllOfCompositions(sub, defs);
    } else {
      closeAllOfCompositions(value, defs);
    }
  }
  const allOf = node.allOf;
  if (!Array.isArray(allOf)) return;
  node.allOf = allOf.map((member: unknown) => {
    const name = isObject(member) && Object.keys(member).length === 1 ? refName(member.$ref) : undefined;
    const target = name !== undefined ? defs[name] : undefined;
    if (!isObject(target)) return member;
    const open = deepCopy(target);
    const ap = open.additionalProperties;
    if (ap === false || ap === true || (isObject(ap) && Object.keys(ap).length === 0)) delete open.additionalProperties;
    delete open.description;
    return open;
  });
  if (!('additionalProperties' in node) && !('unevaluatedProperties' in node)) {
    node.unevaluatedProperties = false;
    if (!('type' in node)) node.type = 'object';
  }
}

/** Add the generic `_meta` to request/notification params where the generator dropped it. */
export function injectParamsMeta(defs: SchemaObject, draft07: boolean): void {
  const reqMeta = draft07
    ? pick(defs, 'Request', 'properties', 'params', 'properties', '_meta')
    : pick(defs, 'RequestParams', 'properties', '_meta');
  const notMeta = draft07
    ? pick(defs, 'Notification', 'properties', 'params', 'properties', '_meta')
    : pick(defs, 'NotificationParams', 'properties', '_meta');
  const plan: Array<[string, unknown]> = [
    ['ClientRequest', reqMeta],
    ['ServerRequest', reqMeta],
    ['ClientNotification', notMeta],
    ['ServerNotification', notMeta],
  ];
  for (const [union, meta] of plan) {
    if (!isObject(meta)) continue;
    for (const member of unionMembers(defs, union)) {
      const def = defs[member];
      if (!isObject(def) || !isObject(def.properties)) continue;
      let params = def.properties.params;
      const ref = isObject(params) ? refName(params.$ref) : undefined;
      if (ref !== undefined) params = defs[ref];
      if (!isObject(params) || !isObject(params.properties)) continue;
      if (!('_meta' in params.properties)) params.properties._meta = deepCopy(meta);
    }
  }
}

export function pick(obj: unknown, ...path: string[]): unknown {
  let cur = obj;
  for (const p of path) {
    if (!isObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

/** Member definition names of a union definition (anyOf/oneOf of $refs), or the definition itself if it is a single message type. */
export function unionMembers(defs: SchemaObject, unionName: string): string[] {
  const u = defs[unionName];
  if (!isObject(u)) return [];
  const alts = Array.isArray(u.anyOf) ? u.anyOf : Array.isArray(u.oneOf) ? u.oneOf : undefined;
  if (alts) {
    const names: string[] = [];
    for (const a of alts) {
      const n = isObject(a) ? refName(a.$ref) : undefined;
      if (n !== undefined) names.push(n);
    }
    return names;
  }
  const viaRef = refName(u.$ref);
  if (viaRef !== undefined) return [viaRef];
  if (methodConst(u) !== undefined) return [unionName]; // e.g. 2026-07-28 ClientNotification = CancelledNotification, inlined
  return [];
}

export function methodConst(def: unknown): string | undefined {
  const c = pick(def, 'properties', 'method', 'const');
  return typeof c === 'string' ? c : undefined;
}
