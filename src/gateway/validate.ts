// JSON Schema checks with ajv: tool arguments against inputSchema before an upstream is called, and
// structuredContent against outputSchema after. Draft-07 where a schema says so, 2020-12 otherwise
// (the 2025-11-25 default dialect). Compiled validators are kept, a bounded number of them.
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';

const opts = { strict: false, allErrors: true, validateSchema: false } as const;
// Built on first use: building them costs start-up time a gateway that has not been called yet need not pay.
let ajvs: { draft07: Ajv; draft2020: Ajv2020 } | undefined;
function instances(): { draft07: Ajv; draft2020: Ajv2020 } {
  if (!ajvs) {
    ajvs = { draft07: new Ajv(opts), draft2020: new Ajv2020(opts) };
    addFormats(ajvs.draft07);
    addFormats(ajvs.draft2020);
  }
  return ajvs;
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
  const ajv = /draft-0[4-7]/.test(dialect) ? instances().draft07 : instances().draft2020;
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

function describe(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : ''}`)
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
