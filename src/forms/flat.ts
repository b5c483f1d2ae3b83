// The flat form of an elicitation's requestedSchema (2025-06-18+ client/elicitation: an object of
// primitive properties — string, number, integer, boolean, single and multi enums, titled or not, with
// defaults). A flat schema is asked field by field in the editor; anything richer is not flat.
// Plain data and functions: the editor's QuickPick flow (src/vscode/person.ts) and tests both use it.
import { type JsonObject, isObject } from '../protocol/jsonrpc';

interface Option {
  value: string;
  label: string;
}

export interface Field {
  key: string;
  title: string;
  description?: string;
  kind: 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'multi';
  required: boolean;
  default?: unknown;
  options?: Option[];
  schema: JsonObject;
}

/** Options of an enum: `enum` (+ legacy `enumNames`), or `oneOf`/`anyOf` of `{const, title}`. */
function optionsOf(s: JsonObject): Option[] | undefined {
  if (Array.isArray(s.enum)) {
    const names = Array.isArray(s.enumNames) ? s.enumNames : [];
    return s.enum.map((v, i) => ({
      value: String(v),
      label: typeof names[i] === 'string' ? String(names[i]) : String(v),
    }));
  }
  const alts = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined;
  if (alts?.every((a) => isObject(a) && 'const' in a))
    return alts.map((a) => ({
      value: String((a as JsonObject).const),
      label: String((a as JsonObject).title ?? (a as JsonObject).const),
    }));
  return undefined;
}

/** The fields of a flat schema, in order; undefined when the schema is not flat. */
export function flatFields(schema: unknown): Field[] | undefined {
  if (!isObject(schema) || schema.type !== 'object' || !isObject(schema.properties)) return undefined;
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const out: Field[] = [];
  for (const [key, s] of Object.entries(schema.properties)) {
    if (!isObject(s)) return undefined;
    const base = {
      key,
      title: typeof s.title === 'string' ? s.title : key,
      description: typeof s.description === 'string' ? s.description : undefined,
      required: required.has(key),
      default: s.default,
      schema: s,
    };
    const options = optionsOf(s);
    if (s.type === 'array') {
      const items = isObject(s.items) ? optionsOf(s.items) : undefined;
      if (!items) return undefined;
      out.push({ ...base, kind: 'multi', options: items });
    } else if (options && (s.type === 'string' || s.type === undefined)) out.push({ ...base, kind: 'enum', options });
    else if (s.type === 'string' || s.type === 'number' || s.type === 'integer' || s.type === 'boolean')
      out.push({ ...base, kind: s.type });
    else return undefined;
  }
  return out;
}

/** A typed value from what the person typed, or why it is not acceptable. Empty text: no value. */
export function parseText(f: Field, text: string): { value?: unknown } | { error: string } {
  const s = f.schema;
  if (text === '') return f.required ? { error: `${f.title} is required` } : {};
  if (f.kind === 'number' || f.kind === 'integer') {
    const n = Number(text);
    if (!Number.isFinite(n)) return { error: 'not a number' };
    if (f.kind === 'integer' && !Number.isInteger(n)) return { error: 'not a whole number' };
    if (typeof s.minimum === 'number' && n < s.minimum) return { error: `at least ${s.minimum}` };
    if (typeof s.maximum === 'number' && n > s.maximum) return { error: `at most ${s.maximum}` };
    return { value: n };
  }
  if (typeof s.minLength === 'number' && text.length < s.minLength)
    return { error: `at least ${s.minLength} characters` };
  if (typeof s.maxLength === 'number' && text.length > s.maxLength)
    return { error: `at most ${s.maxLength} characters` };
  if (s.format === 'email' && !/^[^@\s]+@[^@\s]+$/.test(text)) return { error: 'not an email address' };
  if ((s.format === 'uri' || s.format === 'url') && !/^[a-z][a-z0-9+.-]*:/i.test(text)) return { error: 'not a URI' };
  if (typeof s.pattern === 'string' && !new RegExp(s.pattern).test(text))
    return { error: `does not match ${s.pattern}` };
  return { value: text };
}

/** How a value is shown for review. */
export function showValue(f: Field, v: unknown): string {
  if (v === undefined) return '(not set)';
  if (f.options) {
    const label = (x: unknown) => f.options!.find((o) => o.value === String(x))?.label ?? String(x);
    return Array.isArray(v) ? v.map(label).join(', ') : label(v);
  }
  return typeof v === 'string' ? v : JSON.stringify(v);
}
