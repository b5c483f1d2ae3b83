// Each revision's (and extension's) compiled schema as schema.ts validates with it: loaded lazily from
// test/schemas/<rev>/, prepared (schema-prepare.ts), compiled with ajv, its method tables; and ajv's errors
// formatted to say where a frame and the schema part ways.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
// Types only: ajv / ajv-formats are loaded at run time from the repo root's node_modules (see loadAjv),
// so the bundled test also runs when it is written outside the repository (e.g. /tmp).
import type Ajv from 'ajv';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import {
  type SchemaObject,
  closeAllOfCompositions,
  closeObjects,
  deepCopy,
  injectParamsMeta,
  isObject,
  methodConst,
  pick,
  refName,
  unionMembers,
} from './schema-prepare';

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
// Per-revision state
// ---------------------------------------------------------------------------

export type Direction = 'server' | 'client'; // who sends the frame

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

export interface RevState {
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
export const EXT_TASKS = 'ext-tasks';
/** The Skills extension's results (test/schemas/ext-skills, written from SEP-2640's text: no official
 *  schema exists): skills/list and skills/get travel in every revision, their shape per era there. */
export const EXT_SKILLS = 'ext-skills';
type Extension = typeof EXT_TASKS | typeof EXT_SKILLS;
export const SKILLS_RESULTS: Readonly<Record<string, string>> = {
  'skills/list': 'ListSkillsResult',
  'skills/get': 'GetSkillResult',
};
/** SEP-2640 "Capability Declaration": the extension declares itself in a legacy initialize too, where the
 *  revision's closed ServerCapabilities has no `extensions`; the harness lets exactly it through. */
export const LEGACY_DECLARED = 'io.modelcontextprotocol/skills';
/** 2026-07-28 results the extension defines, by the method they answer. */
export const EXT_RESULTS: Readonly<Record<string, string>> = {
  'tasks/get': 'GetTaskResult',
  'tasks/update': 'UpdateTaskResult',
  'tasks/cancel': 'CancelTaskResult',
};

function isRevision(rev: unknown): rev is Revision {
  return typeof rev === 'string' && (REVISIONS as readonly string[]).includes(rev);
}

export function state(rev: Revision | Extension): RevState {
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

export function tables(st: RevState): MethodTables {
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
export function paramsDeclare(st: RevState, reqDef: string, prop: string): boolean {
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

export function run(
  st: RevState,
  defName: string,
  value: unknown,
  prefix = '',
  drop?: (e: ErrorObject) => boolean,
): string[] {
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
