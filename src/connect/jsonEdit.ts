// A JSON or JSONC document edited in place: jsonc-parser reads it (comments and trailing commas where the
// client allows them) and finds where each property sits; an edit replaces, inserts or removes only that
// property's own text, indented as the lines around it, so comments, key order, the other entries'
// layout, the line endings and a missing final newline stay as they were. (jsonc-parser's `modify` with
// formatting reformats the whole line an edit touches, a neighbouring entry's included: not used.)
import { type Node, type ParseError, findNodeAtLocation, parseTree, printParseErrorCode } from 'jsonc-parser';

type Path = readonly string[];

/** The document's problem, for the person: where and what. */
export class Malformed extends Error {
  override name = 'Malformed';
}

/** `text` read, or Malformed naming the line and column of its first error. */
export function parseJson(text: string, jsonc: boolean): Node | undefined {
  if (text.trim() === '') return undefined;
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: jsonc, disallowComments: !jsonc });
  if (errors.length) {
    const e = errors[0]!;
    const before = text.slice(0, e.offset).split('\n');
    throw new Malformed(
      `${printParseErrorCode(e.error)} at line ${before.length}, column ${before.at(-1)!.length + 1}`,
    );
  }
  if (root?.type !== 'object') throw new Malformed('the file is not a JSON object');
  return root;
}

/** The layout an inserted text follows: the file's line ending and one level of its indentation. */
function layout(text: string, root: Node | undefined): { eol: string; unit: string } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const first = root?.children?.[0];
  const indent = first ? lineIndent(text, first.offset) : undefined;
  const unit = indent && onOwnLine(text, first!.offset) ? indent : text.includes(`${eol}\t`) ? '\t' : '  ';
  return { eol, unit };
}

const lineStart = (text: string, at: number) => text.lastIndexOf('\n', at - 1) + 1;
const lineIndent = (text: string, at: number) => /^[ \t]*/.exec(text.slice(lineStart(text, at), at))![0];
const onOwnLine = (text: string, at: number) => /^[ \t]*$/.test(text.slice(lineStart(text, at), at));

/** `value` as JSON text starting at a line indented `indent`. */
function render(value: unknown, indent: string, l: { eol: string; unit: string }): string {
  return JSON.stringify(value, null, l.unit).replace(/\n/g, `${l.eol}${indent}`);
}

const splice = (text: string, at: number, length: number, insert: string) =>
  text.slice(0, at) + insert + text.slice(at + length);

/** The document with `path` set to `value` (created with its parents where missing). */
export function setIn(text: string, path: Path, value: unknown, jsonc: boolean): string {
  const root = parseJson(text, jsonc);
  const l = layout(text, root);
  if (!root) return `${render(nest(path, value), '', l)}${l.eol}`;
  const found = findNodeAtLocation(root, [...path]);
  if (found) return splice(text, found.offset, found.length, render(value, lineIndent(text, found.offset), l));
  // The deepest existing object on the path gets the rest of the path as one new property.
  let depth = path.length - 1;
  while (depth > 0 && !findNodeAtLocation(root, path.slice(0, depth))) depth--;
  const parent = depth ? findNodeAtLocation(root, path.slice(0, depth))! : root;
  if (parent.type !== 'object') throw new Malformed(`${path.slice(0, depth).join('.')} is not an object`);
  return addProperty(text, parent, path[depth]!, nest(path.slice(depth + 1), value), l);
}

const nest = (path: Path, value: unknown): unknown => path.reduceRight<unknown>((v, key) => ({ [key]: v }), value);

/** A new last property of the object `obj`. */
function addProperty(text: string, obj: Node, key: string, value: unknown, l: { eol: string; unit: string }): string {
  const props = obj.children ?? [];
  const last = props.at(-1);
  const closing = obj.offset + obj.length - 1;
  if (!last) {
    // An empty object: the property on a line of its own, the closing brace on the next (comments inside
    // kept above it).
    const outer = lineIndent(text, obj.offset);
    const inner = outer + l.unit;
    const prop = `${inner}${JSON.stringify(key)}: ${render(value, inner, l)}`;
    const open = obj.offset + 1;
    if (/^\s*$/.test(text.slice(open, closing)))
      return splice(text, open, closing - open, `${l.eol}${prop}${l.eol}${outer}`);
    if (onOwnLine(text, closing)) return splice(text, lineStart(text, closing), 0, `${prop}${l.eol}`);
    return splice(text, closing, 0, `${l.eol}${prop}${l.eol}${outer}`);
  }
  const end = last.offset + last.length;
  if (!onOwnLine(text, last.offset)) {
    // A one-line object: the property joins the line.
    return splice(text, end, 0, `, ${JSON.stringify(key)}: ${JSON.stringify(value)}`);
  }
  const indent = lineIndent(text, last.offset);
  // After the last property (and its trailing comma, in JSONC), before anything else on its line.
  const comma = /^\s*,/.exec(text.slice(end, closing));
  const at = comma ? end + comma[0].length : end;
  const insert = `${comma ? '' : ','}${l.eol}${indent}${JSON.stringify(key)}: ${render(value, indent, l)}${comma ? ',' : ''}`;
  return splice(text, at, 0, insert);
}

/** The document without the property at `path`; unchanged when there is none. */
export function removeIn(text: string, path: Path, jsonc: boolean): string {
  const root = parseJson(text, jsonc);
  const value = root && findNodeAtLocation(root, [...path]);
  const prop = value?.parent;
  if (prop?.type !== 'property') return text;
  const siblings = prop.parent!.children!;
  const i = siblings.indexOf(prop);
  const end = prop.offset + prop.length;
  const after = /^[ \t]*,?[ \t]*(\r?\n)?/.exec(text.slice(end))![0];
  if (onOwnLine(text, prop.offset) && after.endsWith('\n')) {
    // Its own lines go, with its comma; a comma left after the new last property goes too.
    let out = splice(text, lineStart(text, prop.offset), end + after.length - lineStart(text, prop.offset), '');
    if (i === siblings.length - 1 && i > 0 && !after.includes(',')) {
      const prev = siblings[i - 1]!;
      const prevEnd = prev.offset + prev.length;
      const c = /^\s*,/.exec(out.slice(prevEnd));
      if (c) out = splice(out, prevEnd, c[0].length, c[0].slice(0, -1));
    }
    return out;
  }
  // Inline: the property and the comma joining it to a neighbour.
  if (i < siblings.length - 1) return splice(text, prop.offset, siblings[i + 1]!.offset - prop.offset, '');
  if (i > 0) {
    const prevEnd = siblings[i - 1]!.offset + siblings[i - 1]!.length;
    return splice(text, prevEnd, end - prevEnd, '');
  }
  return splice(text, prop.offset, prop.length, '');
}
