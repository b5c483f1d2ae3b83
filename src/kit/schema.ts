// JSON Schema checks with ajv, for whoever holds a schema and a value: the gateway (a tool's arguments
// against its inputSchema before an upstream is called, structuredContent against outputSchema after, an
// answer against a question's schema) and the editor's form (each field's problem beside it). Draft-07
// where a schema says so, 2020-12 otherwise (the 2025-11-25 default dialect). Compiled validators are
// kept, a bounded number of them.
import type { default as AjvCore, ErrorObject, ValidateFunction } from 'ajv';

/** Longest string a schema's `pattern` is tried on; a longer one is not checked against it. */
const PATTERN_INPUT_MAX = 1000;

/** Whether a pattern could backtrack without bound: a group repeated without limit (`*`, `+`, `{n,}`,
 *  `{n,m}`) that itself repeats something or holds an alternation — `(a+)+`, `(\w|\d)*`. Conservative:
 *  some such patterns are harmless, and they go unchecked too. */
function backtracks(p: string): boolean {
  const groups: boolean[] = [false]; // per open group: does it repeat something or alternate?
  let closed: boolean | undefined; // the group just closed, when the next character may repeat it
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    const prev = closed;
    closed = undefined;
    if (c === '\\') i++;
    else if (c === '[') {
      for (i++; i < p.length && p[i] !== ']'; i++) if (p[i] === '\\') i++;
    } else if (c === '(') {
      groups.push(false);
      if (p[i + 1] === '?') i += p[i + 2] === '<' && p[i + 3] !== '=' && p[i + 3] !== '!' ? p.indexOf('>', i) - i : 2;
    } else if (c === ')') {
      const inner = groups.pop() ?? false;
      if (groups.length === 0) groups.push(false);
      if (inner) groups[groups.length - 1] = true;
      closed = inner;
    } else if (c === '|') groups[groups.length - 1] = true;
    else if (c === '*' || c === '+' || c === '?' || (c === '{' && /^\{\d+(,\d*)?\}/.test(p.slice(i, i + 24)))) {
      const unbounded = c === '*' || c === '+' || (c === '{' && p.slice(i, p.indexOf('}', i)).includes(','));
      if (unbounded && prev) return true;
      groups[groups.length - 1] = true;
      if (c === '{') i = p.indexOf('}', i);
    }
  }
  return false;
}

/** The regular expressions ajv builds for `pattern` and `patternProperties`. The schemas are an
 *  upstream's, and so — for structuredContent against outputSchema — is the data: `^(a+)+$` on 30
 *  characters held the event loop for 25 s. A pattern that could backtrack without bound is not checked,
 *  nor is a string longer than PATTERN_INPUT_MAX (docs/security.md "Hostile shapes"). */
const guardedRegExp = Object.assign(
  (pattern: string, flags: string) => {
    const re = backtracks(pattern) ? undefined : new RegExp(pattern, flags);
    return {
      test: (s: string) => re === undefined || s.length > PATTERN_INPUT_MAX || re.test(s),
      // ajv keys its compiled patterns by this text.
      toString: () => `/${pattern}/${flags}${re ? '' : ' (unchecked)'}`,
    };
  },
  { code: 'guardedRegExp' },
);

// No meta-schema: schemas are not validated against it (validateSchema false), and adding it is most of
// the cost of an instance.
const opts = {
  strict: false,
  allErrors: true,
  validateSchema: false,
  meta: false,
  code: { regExp: guardedRegExp },
} as const;
type Dialect = 'draft07' | 'draft2020';
const instances: Partial<Record<Dialect, AjvCore>> = {};

/** One ajv per dialect, each loaded and built on first use: ajv's modules and instances cost start-up time
 *  that a gateway not yet called need not pay (docs/performance.md "Cold start"). */
function instance(d: Dialect): AjvCore {
  let ajv = instances[d];
  if (!ajv) {
    // require, not import: deferred on purpose (see above).
    const Ctor: typeof AjvCore = d === 'draft07' ? require('ajv').default : require('ajv/dist/2020').default;
    ajv = new Ctor(opts);
    (require('ajv-formats') as typeof import('ajv-formats')).default(ajv);
    instances[d] = ajv;
  }
  return ajv;
}

/** Build the default dialect's instance now, while nothing waits (an upstream is starting), rather than
 *  inside the first call that needs it. */
export function prepareValidation(): void {
  instance('draft2020');
}

const cache = new Map<string, ValidateFunction | Error>();
const MAX_CACHED = 500;
/** The same schema object (a cached tools/list entry) skips even the cache key. */
const byObject = new WeakMap<object, ValidateFunction | Error>();

function compile(schema: object): ValidateFunction | Error {
  const known = byObject.get(schema);
  if (known) return known;
  const v = compileByText(schema);
  byObject.set(schema, v);
  return v;
}

function compileByText(schema: object): ValidateFunction | Error {
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit) return hit;
  const dialect = String((schema as { $schema?: unknown }).$schema ?? '');
  const ajv = instance(/draft-0[4-7]/.test(dialect) ? 'draft07' : 'draft2020');
  let v: ValidateFunction | Error;
  try {
    // ajv keeps schemas it compiled by $id; a copy without it avoids clashes between tools.
    const { $id: _id, ...rest } = schema as Record<string, unknown>;
    void _id;
    v = ajv.compile(rest);
  } catch (e) {
    v = e as Error;
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, v);
  return v;
}

/** Where `value` does not match `schema`, field by field: each problem at the dotted path of the property
 *  it is about (a missing required property at its own path), for a form that shows it beside the field. */
export function schemaProblems(schema: unknown, value: unknown): Array<{ path: string; message: string }> {
  if (typeof schema !== 'object' || schema === null) return [];
  const v = compile(schema);
  if (v instanceof Error || v(value)) return [];
  return (v.errors ?? []).map((e) => {
    const missing = e.keyword === 'required' ? (e.params as { missingProperty?: string }).missingProperty : undefined;
    const path = [...e.instancePath.split('/').filter(Boolean), ...(missing ? [missing] : [])].join('.');
    return { path, message: missing ? 'required' : (e.message ?? 'is invalid') };
  });
}

function describe(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 5)
    .map(
      (e) =>
        `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : ''}`,
    )
    .join('; ');
}

/** Why `value` does not match `schema`, or undefined when it does (or the schema cannot be compiled:
 *  an upstream's broken schema is its own business, not a reason to refuse every call). */
export function schemaMismatch(schema: unknown, value: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const v = compile(schema);
  if (v instanceof Error) return undefined;
  return v(value) ? undefined : describe(v.errors);
}

/** The formats the schemas give URIs ("uri", "uri-template"), as ajv-formats checks them: what a
 *  client's validator holds a URI mcpx shows to (gateway/catalogue/screen.ts). */
function formats(): typeof import('ajv-formats/dist/formats').fullFormats {
  // require, not import: deferred with the rest of ajv (see instance()).
  return (require('ajv-formats/dist/formats') as typeof import('ajv-formats/dist/formats')).fullFormats;
}

export function validUri(s: string): boolean {
  const f = formats().uri;
  return typeof f === 'function' ? f(s) : f instanceof RegExp ? f.test(s) : true;
}

export function validUriTemplate(s: string): boolean {
  const f = formats()['uri-template'];
  return typeof f === 'function' ? f(s) : f instanceof RegExp ? f.test(s) : true;
}
