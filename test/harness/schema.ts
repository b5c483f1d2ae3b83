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
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
// Types only: ajv / ajv-formats are loaded at run time from the repo root's node_modules (see loadAjv),
// so the bundled test also runs when it is written outside the repository (e.g. /tmp).
import type Ajv from 'ajv';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';

export type Revision = '2024-11-05' | '2025-03-26' | '2025-06-18' | '2025-11-25' | '2026-07-28';

export const REVISIONS: readonly Revision[] = Object.freeze([
  '2024-11-05',
  '2025-03-26',
  '2025-06-18',
  '2025-11-25',
  '2026-07-28',
] as const);

/** Revisions whose schema.json is JSON Schema draft-07 (`definitions`); the rest are 2020-12 (`$defs`). */
const DRAFT07: ReadonlySet<Revision> = new Set<Revision>(['2024-11-05', '2025-03-26', '2025-06-18']);

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

type SchemaObject = { [key: string]: unknown };

function isObject(v: unknown): v is SchemaObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepCopy<T>(v: T): T {
  return structuredClone(v);
}

// ---------------------------------------------------------------------------
// Repo root / schema loading
// ---------------------------------------------------------------------------

const MARKER = join('test', 'schemas', '2024-11-05', 'schema.json');

function findUp(start: string): string | undefined {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(join(dir, MARKER))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

let repoRootCache: string | undefined;
function repoRoot(): string {
  if (repoRootCache !== undefined) return repoRootCache;
  const env = process.env.MCPX_REPO_ROOT;
  const candidates: string[] = [];
  if (env) candidates.push(env);
  if (typeof __dirname === 'string') candidates.push(__dirname);
  candidates.push(process.cwd());
  for (const c of candidates) {
    const found = findUp(c);
    if (found !== undefined) return (repoRootCache = found);
  }
  throw new Error(
    `test/schemas not found (looked upward from ${candidates.join(', ')}); set MCPX_REPO_ROOT to the repository root`,
  );
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

function closeObjects(node: unknown, ctx: WalkCtx): void {
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

function refName(ref: unknown): string | undefined {
  if (typeof ref !== 'string') return undefined;
  const m = /^#\/(?:definitions|\$defs)\/(.+)$/.exec(ref);
  return m ? m[1] : undefined;
}

/** 2020-12 only: make allOf compositions closed as a whole (see header comment). */
function closeAllOfCompositions(node: unknown, defs: SchemaObject): void {
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
function injectParamsMeta(defs: SchemaObject, draft07: boolean): void {
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

function pick(obj: unknown, ...path: string[]): unknown {
  let cur = obj;
  for (const p of path) {
    if (!isObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

/** Member definition names of a union definition (anyOf/oneOf of $refs), or the definition itself if it is a single message type. */
function unionMembers(defs: SchemaObject, unionName: string): string[] {
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

function methodConst(def: unknown): string | undefined {
  const c = pick(def, 'properties', 'method', 'const');
  return typeof c === 'string' ? c : undefined;
}

// ---------------------------------------------------------------------------
// Per-revision state
// ---------------------------------------------------------------------------

type Direction = 'server' | 'client'; // who sends the frame

interface MethodTables {
  /** method -> request definition, for requests the *client* sends (ClientRequest). */
  clientRequests: Map<string, string>;
  /** method -> request definition, for requests the *server* sends (ServerRequest). */
  serverRequests: Map<string, string>;
  clientNotifications: Map<string, string>;
  serverNotifications: Map<string, string>;
  /** method (of a ClientRequest) -> result definition the server answers with. */
  serverResults: Map<string, string>;
  /** method (of a ServerRequest) -> result definition the client answers with. */
  clientResults: Map<string, string>;
  /** error code -> whole-frame error definition (2025-11-25+: URLElicitationRequiredError, UnsupportedProtocolVersionError, ...). */
  errorFrameDefs: Map<number, string>;
}

interface RevState {
  rev: Revision;
  ajv: Ajv;
  key: string;
  defsKeyword: 'definitions' | '$defs';
  /** The prepared (closed) definitions. */
  defs: SchemaObject;
  /** The untouched definitions, for structural look-ups. */
  rawDefs: SchemaObject;
  validators: Map<string, ValidateFunction>;
  /** Every schema node of the prepared schema -> its JSON pointer ("#/$defs/TextContent/properties/type"). */
  pointers: WeakMap<object, string>;
  tables?: MethodTables;
}

const states = new Map<Revision | Extension, RevState>();

/** The tasks extension's own schema (test/schemas/ext-tasks): its messages travel under 2026-07-28 but the
 *  revision's schema does not define them (tasks extension "Reservations"). */
const EXT_TASKS = 'ext-tasks';
/** The Skills extension's results (test/schemas/ext-skills, written from SEP-2640's text: no official
 *  schema exists): skills/list and skills/get travel in every revision, their shape per era there. */
const EXT_SKILLS = 'ext-skills';
type Extension = typeof EXT_TASKS | typeof EXT_SKILLS;
const SKILLS_RESULTS: Readonly<Record<string, string>> = {
  'skills/list': 'ListSkillsResult',
  'skills/get': 'GetSkillResult',
};
/** SEP-2640 "Capability Declaration": the extension declares itself in a legacy initialize too, where the
 *  revision's closed ServerCapabilities has no `extensions`; the harness lets exactly it through. */
const LEGACY_DECLARED = 'io.modelcontextprotocol/skills';
/** 2026-07-28 results the extension defines, by the method they answer. */
const EXT_RESULTS: Readonly<Record<string, string>> = {
  'tasks/get': 'GetTaskResult',
  'tasks/update': 'UpdateTaskResult',
  'tasks/cancel': 'CancelTaskResult',
};

function isRevision(rev: unknown): rev is Revision {
  return typeof rev === 'string' && (REVISIONS as readonly string[]).includes(rev);
}

function state(rev: Revision | Extension): RevState {
  if (rev !== EXT_TASKS && rev !== EXT_SKILLS && !isRevision(rev))
    throw new Error(`unknown MCP revision ${JSON.stringify(rev)}; expected one of ${REVISIONS.join(', ')}`);
  const cached = states.get(rev);
  if (cached) return cached;
  const file = join(repoRoot(), 'test', 'schemas', rev, 'schema.json');
  const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!isObject(raw)) throw new Error(`${file}: not a JSON object`);
  const draft07 = isRevision(rev) && DRAFT07.has(rev);
  const defsKeyword = draft07 ? 'definitions' : '$defs';
  const rawDefs = raw[defsKeyword];
  if (!isObject(rawDefs)) throw new Error(`${file}: no ${defsKeyword}`);

  const prepared = deepCopy(raw);
  const defs = prepared[defsKeyword];
  if (!isObject(defs)) throw new Error(`${file}: no ${defsKeyword}`);
  injectParamsMeta(defs, draft07);
  closeObjects(prepared, {});
  if (!draft07) for (const def of Object.values(defs)) closeAllOfCompositions(def, defs);

  // verbose: errors carry parentSchema, which indexPointers maps back to a location in schema.json.
  const ajv = loadAjv(draft07, { strict: true, allowUnionTypes: true, allErrors: true, verbose: true, logger: false });
  const key = `mcp-${rev}`;
  ajv.addSchema(prepared, key);
  const pointers = new WeakMap<object, string>();
  indexPointers(prepared, '#', pointers);
  const st: RevState = { rev: rev as Revision, ajv, key, defsKeyword, defs, rawDefs, validators: new Map(), pointers };
  states.set(rev, st);
  return st;
}

function indexPointers(node: unknown, pointer: string, out: WeakMap<object, string>): void {
  if (typeof node !== 'object' || node === null || out.has(node)) return;
  out.set(node, pointer);
  if (Array.isArray(node)) {
    for (const [i, n] of node.entries()) indexPointers(n, `${pointer}/${i}`, out);
    return;
  }
  for (const [k, v] of Object.entries(node)) {
    if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples') continue;
    indexPointers(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
  }
}

type AjvClass = new (options: Options) => Ajv;
type AddFormats = (ajv: Ajv) => Ajv;

function defaultExport<T>(mod: unknown, what: string): T {
  const d = isObject(mod) && 'default' in mod ? mod.default : mod;
  if (typeof d !== 'function') throw new Error(`harness: ${what} has no callable default export`);
  return d as T;
}

/** Draft-07 revisions use `ajv`; 2020-12 revisions use `ajv/dist/2020` (the other class rejects each file). */
function loadAjv(draft07: boolean, options: Options): Ajv {
  const req = createRequire(join(repoRoot(), 'package.json'));
  const AjvCtor = defaultExport<AjvClass>(req(draft07 ? 'ajv' : 'ajv/dist/2020') as unknown, 'ajv');
  const addFormats = defaultExport<AddFormats>(req('ajv-formats') as unknown, 'ajv-formats');
  const ajv = new AjvCtor(options);
  addFormats(ajv);
  return ajv;
}

function validator(st: RevState, defName: string): ValidateFunction {
  let v = st.validators.get(defName);
  if (!v) {
    if (!Object.hasOwn(st.defs, defName)) throw new Error(`definition ${defName} does not exist in ${st.rev}`);
    const got = st.ajv.getSchema(`${st.key}#/${st.defsKeyword}/${defName}`);
    if (!got) throw new Error(`cannot compile ${defName} of ${st.rev}`);
    v = got;
    st.validators.set(defName, v);
  }
  return v;
}

const EMPTY_RESULT_METHODS = new Set(['ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']);

function tables(st: RevState): MethodTables {
  if (st.tables) return st.tables;
  const defs = st.rawDefs;
  const methodsOf = (union: string): Map<string, string> => {
    const m = new Map<string, string>();
    for (const name of unionMembers(defs, union)) {
      const method = methodConst(defs[name]);
      if (method !== undefined) m.set(method, name);
    }
    return m;
  };
  const resultsFor = (requests: Map<string, string>): Map<string, string> => {
    const out = new Map<string, string>();
    for (const [method, reqDef] of requests) {
      const candidate = reqDef.replace(/Request$/, 'Result');
      if (Object.hasOwn(defs, candidate)) out.set(method, candidate);
      else if (EMPTY_RESULT_METHODS.has(method) && Object.hasOwn(defs, 'EmptyResult')) out.set(method, 'EmptyResult');
      else throw new Error(`harness: no result definition for ${method} (${reqDef}) in ${st.rev}`);
    }
    return out;
  };
  const errorFrameDefs = new Map<number, string>();
  for (const [name, def] of Object.entries(defs)) {
    const parts = pick(def, 'properties', 'error', 'allOf');
    if (!Array.isArray(parts)) continue;
    for (const p of parts) {
      const code = pick(p, 'properties', 'code', 'const');
      if (typeof code === 'number') errorFrameDefs.set(code, name);
    }
  }
  const clientRequests = methodsOf('ClientRequest');
  const serverRequests = methodsOf('ServerRequest');
  st.tables = {
    clientRequests,
    serverRequests,
    clientNotifications: methodsOf('ClientNotification'),
    serverNotifications: methodsOf('ServerNotification'),
    serverResults: resultsFor(clientRequests),
    clientResults: resultsFor(serverRequests),
    errorFrameDefs,
  };
  return st.tables;
}

/** Does the (raw) params schema of a request definition declare property `prop` (following $ref / anyOf / allOf)? */
function paramsDeclare(st: RevState, reqDef: string, prop: string): boolean {
  const seen = new Set<unknown>();
  const visit = (node: unknown): boolean => {
    if (!isObject(node) || seen.has(node)) return false;
    seen.add(node);
    const r = refName(node.$ref);
    if (r !== undefined) return visit(st.rawDefs[r]);
    if (isObject(node.properties) && prop in node.properties) return true;
    for (const k of ['anyOf', 'oneOf', 'allOf']) {
      const alts = node[k];
      if (Array.isArray(alts) && alts.some(visit)) return true;
    }
    return false;
  };
  return visit(pick(st.rawDefs, reqDef, 'properties', 'params'));
}

// ---------------------------------------------------------------------------
// Error formatting
// ---------------------------------------------------------------------------

/** Location of the failing keyword in the (prepared) schema.json, e.g. "#/definitions/TextContent/required". */
function schemaLocation(st: RevState, defName: string, e: ErrorObject): string {
  const parent: unknown = e.parentSchema;
  const base = isObject(parent) ? st.pointers.get(parent) : undefined;
  return base !== undefined
    ? `${base}/${e.keyword}`
    : `#/${st.defsKeyword}/${defName}${e.schemaPath.replace(/^#/, '')}`;
}

function formatError(st: RevState, defName: string, prefix: string, e: ErrorObject): string {
  const path = prefix + e.instancePath || '/';
  let message = e.message ?? e.keyword;
  const params: Record<string, unknown> = e.params;
  if (e.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    message = `must NOT have additional property "${params.additionalProperty}"`;
  } else if (e.keyword === 'unevaluatedProperties' && typeof params.unevaluatedProperty === 'string') {
    message = `must NOT have additional property "${params.unevaluatedProperty}"`;
  } else if (e.keyword === 'const' && 'allowedValue' in params) {
    message = `must be equal to constant ${JSON.stringify(params.allowedValue)}`;
  } else if (e.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    message = `must be one of ${JSON.stringify(params.allowedValues)}`;
  }
  return `${path} ${message} (${schemaLocation(st, defName, e)})`;
}

function isAtOrBelow(path: string, base: string): boolean {
  return path === base || path.startsWith(`${base}/`);
}

/**
 * anyOf over `type`-discriminated alternatives (content blocks, resource contents, primitive schemas ...)
 * makes Ajv report every alternative's errors. When the instance's `type` selects exactly one
 * alternative, keep only that alternative's errors.
 */
function pruneAnyOfNoise(st: RevState, errors: ErrorObject[]): ErrorObject[] {
  let out = errors;
  for (const e of errors) {
    if (e.keyword !== 'anyOf' && e.keyword !== 'oneOf') continue;
    const data: unknown = e.data;
    const alts: unknown = e.schema;
    if (!isObject(data) || typeof data.type !== 'string' || !Array.isArray(alts)) continue;
    const branches: Array<{ pointer: string; matches: boolean }> = [];
    for (const alt of alts) {
      const ref = isObject(alt) ? refName(alt.$ref) : undefined;
      const target: unknown = ref !== undefined ? st.defs[ref] : alt;
      const pointer = isObject(target) ? st.pointers.get(target) : undefined;
      if (pointer === undefined) continue;
      const c = pick(target, 'properties', 'type', 'const');
      branches.push({ pointer, matches: c === data.type });
    }
    if (branches.filter((b) => b.matches).length !== 1) continue;
    const others = branches.filter((b) => !b.matches).map((b) => b.pointer);
    out = out.filter((x) => {
      if (x === e) return false;
      if (!isAtOrBelow(x.instancePath, e.instancePath)) return true;
      const parent: unknown = x.parentSchema;
      const loc = isObject(parent) ? st.pointers.get(parent) : undefined;
      return loc === undefined || !others.some((o) => isAtOrBelow(loc, o));
    });
  }
  return out;
}

function run(st: RevState, defName: string, value: unknown, prefix = '', drop?: (e: ErrorObject) => boolean): string[] {
  const v = validator(st, defName);
  if (v(value)) return [];
  const out: string[] = [];
  for (const e of pruneAnyOfNoise(st, v.errors ?? [])) {
    if (drop?.(e)) continue;
    const s = formatError(st, defName, prefix, e);
    if (!out.includes(s)) out.push(s);
  }
  return out;
}

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
