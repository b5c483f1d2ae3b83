// What a client module is (one file each under clients/): where its user-level file is on each OS, how
// that file is read and edited, where its servers sit in it, mcpx's entry in its shape, and one of its own
// entries as an mcpx server definition (for --import). Adding a client is one such module and one line in
// clients/index.ts.
import { getNodeValue } from 'jsonc-parser';
import { parseJson, removeIn, setIn } from './jsonEdit';
import type { Places } from './places';
import { parseToml, removeInToml, setInToml } from './tomlEdit';

export type Json = Record<string, unknown>;
type Path = readonly string[];

/** How a file is read and edited in place (jsonEdit.ts, tomlEdit.ts). `parse` throws Malformed. */
export interface FileFormat {
  readonly kind: 'json' | 'jsonc' | 'toml';
  parse(text: string): Json;
  set(text: string, path: Path, value: unknown): string;
  remove(text: string, path: Path): string;
}

const jsonFormat = (jsonc: boolean): FileFormat => ({
  kind: jsonc ? 'jsonc' : 'json',
  parse: (text) => {
    const root = parseJson(text, jsonc);
    // Plain objects (jsonc-parser's have no prototype).
    return (root ? JSON.parse(JSON.stringify(getNodeValue(root))) : {}) as Json;
  },
  set: (text, path, value) => setIn(text, path, value, jsonc),
  remove: (text, path) => removeIn(text, path, jsonc),
});

export const JSON_FILE = jsonFormat(false);
export const JSONC_FILE = jsonFormat(true);
export const TOML_FILE: FileFormat = { kind: 'toml', parse: parseToml, set: setInToml, remove: removeInToml };

/** How the stdio shim is started: an absolute command, its arguments, and the environment it needs. */
export interface ShimCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/** One of a client's entries as an mcpx server definition: `def` holds no secret literal; the
 *  environment values that are not references to variables are `secrets`, for the store to keep as
 *  secrets. `dropped`: the entry's keys mcpx has no use for. */
export interface Imported {
  readonly def: Json;
  readonly secrets: Readonly<Record<string, string>>;
  readonly dropped: readonly string[];
}

export interface Client {
  readonly id: string;
  readonly name: string;
  /** Where the file's location and format are documented. */
  readonly docs: string;
  readonly format: FileFormat;
  /** `exists` tells which of two names a client reads is there (opencode). */
  file(p: Places, exists?: (path: string) => boolean): string;
  /** Folders whose presence says the client is installed while its file is not there yet. */
  appDirs(p: Places): string[];
  /** Where the servers map sits in the parsed file. */
  serversPath(doc: Json): Path;
  /** mcpx's entry in this client's shape. */
  entry(shim: ShimCommand): Json;
  /** One of its own entries for --import; a string: why it stays in the client's file. */
  read(raw: unknown): Imported | string;
}

/** The name of mcpx's entry in every client's file. */
export const ENTRY = 'mcpx';
