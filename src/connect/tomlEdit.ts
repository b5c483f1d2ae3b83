// A TOML document (Codex's config.toml) edited in place through toml-patch, which keeps comments,
// whitespace, key order and line endings: a changed or removed value is patched where it stands. A new
// table is appended as its own `[a.b]` section (toml-patch would add it as a dotted key of the root
// table); every result is read back and compared with the value wanted, so a file toml-patch or the
// append could not edit faithfully is refused rather than written.
import { parse, patch, stringify } from '@decimalturn/toml-patch';
import { canonicalJson } from '../kit/canonical';
import { Malformed } from './jsonEdit';

type Path = readonly string[];
type Table = Record<string, unknown>;

export function parseToml(text: string): Table {
  try {
    // Plain objects (toml-patch's tables have no prototype).
    return JSON.parse(JSON.stringify(parse(text))) as Table;
  } catch (e) {
    throw new Malformed((e as Error).message.split('\n')[0]!);
  }
}

const clone = (v: Table): Table => JSON.parse(JSON.stringify(v)) as Table;

/** The table at `path` in `doc` (created where missing when `create`); undefined when there is none or
 *  something else stands there. */
function tableAt(doc: Table, path: Path, create: boolean): Table | undefined {
  let t: unknown = doc;
  for (const key of path) {
    const o = t as Table;
    if (create) o[key] ??= {};
    t = o[key];
    if (typeof t !== 'object' || t === null || Array.isArray(t)) return undefined;
  }
  return t as Table;
}

/** A bare key, or a quoted one. */
const key = (k: string) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k));

function checked(text: string, want: Table): string {
  if (canonicalJson(parseToml(text)) !== canonicalJson(want))
    throw new Malformed('the file has a shape mcpx cannot edit in place (edit it by hand)');
  return text;
}

export function setInToml(text: string, path: Path, value: unknown): string {
  const doc = parseToml(text);
  const want = clone(doc);
  const parent = tableAt(want, path.slice(0, -1), true);
  if (!parent) throw new Malformed(`${path.slice(0, -1).join('.')} is not a table`);
  const existed = path.at(-1)! in parent;
  parent[path.at(-1)!] = value;
  if (existed) return checked(patch(text, want), want);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const body = stringify(value, { newLine: eol, trailingNewline: 0, bracketSpacing: false, inlineTableStart: 0 });
  const section = `[${path.map(key).join('.')}]${eol}${body}`;
  const sep = text === '' ? '' : text.endsWith(eol) ? (text.endsWith(eol + eol) ? '' : eol) : eol + eol;
  // A missing final newline stays missing.
  const end = text === '' || text.endsWith('\n') ? eol : '';
  try {
    return checked(`${text}${sep}${section}${end}`, want);
  } catch {
    return checked(patch(text, want), want);
  }
}

export function removeInToml(text: string, path: Path): string {
  const want = clone(parseToml(text));
  const parent = tableAt(want, path.slice(0, -1), false);
  if (!parent || !(path.at(-1)! in parent)) return text;
  delete parent[path.at(-1)!];
  return checked(patch(text, want), want);
}
