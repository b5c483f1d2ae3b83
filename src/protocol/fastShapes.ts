// The shapes checked on every call, as plain functions written once (docs/performance.md): a tools/call's
// params on the way in and its result on the way back. Each says only "valid" or "ask zod": it never calls
// valid what the zod schema (shapes.ts, methods.ts) refuses, and anything it is not sure of goes to the
// schema, which finds the issue and words it. A valid value is used as it is, never copied.

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A string member, or one an upstream sent that is still undecoded (an accessor: wire/lazy.ts leaves long
 *  strings so, and JSON.parse makes no other). */
function isText(o: Obj, key: string): boolean {
  const v = Object.getOwnPropertyDescriptor(o, key);
  return v !== undefined && (v.get !== undefined || typeof v.value === 'string');
}

const isAudience = (a: unknown): boolean => Array.isArray(a) && a.every((x) => x === 'user' || x === 'assistant');

function annotationsOk(a: unknown): boolean {
  if (a === undefined) return true;
  if (!isObj(a)) return false;
  const { audience, priority } = a;
  return (
    (audience === undefined || isAudience(audience)) &&
    (priority === undefined || (typeof priority === 'number' && priority >= 0 && priority <= 1))
  );
}

/** A content block of the types every revision's schema requires fields of (shapes.ts `block`). */
function blockOk(b: unknown): boolean {
  if (!isObj(b) || !annotationsOk(b.annotations)) return false;
  switch (b.type) {
    case 'text':
      return isText(b, 'text');
    case 'image':
    case 'audio':
      return isText(b, 'data') && typeof b.mimeType === 'string';
    case 'resource_link':
      return typeof b.uri === 'string' && typeof b.name === 'string';
    default:
      return false; // an embedded resource, or a type no revision defines: the schema decides
  }
}

/** A tools/call result in the shape every revision requires (shapes.ts RESULT.callTool). */
export function callToolResultOk(r: unknown): boolean {
  if (!isObj(r) || !Array.isArray(r.content)) return false;
  if (r.structuredContent !== undefined && !isObj(r.structuredContent)) return false;
  if (r.isError !== undefined && typeof r.isError !== 'boolean') return false;
  for (const b of r.content) if (!blockOk(b)) return false;
  return true;
}

/** tools/call params: a name, and arguments that are an object when present (methods.ts). */
export const callToolParamsOk = (p: unknown): boolean =>
  isObj(p) && typeof p.name === 'string' && (p.arguments === undefined || isObj(p.arguments));
