// The headless config file as install, uninstall and update edit it: one server entry added, replaced or
// removed, everything else in the file kept as it was; the file written whole through a temporary file
// (a daemon following it never reads half of it), made — with its directory — when there is none yet.
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type JsonObject, isObject } from '../protocol/jsonrpc';

interface Doc {
  doc: JsonObject;
  /** `servers`, or `mcpServers` where the file uses that. */
  key: 'servers' | 'mcpServers';
}

function read(path: string): Doc {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { doc: {}, key: 'servers' };
    throw e;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`${path} is not plain JSON (${(e as Error).message}); mcpx edits only a file it can read whole`);
  }
  if (!isObject(doc)) throw new Error(`${path} does not hold a JSON object`);
  return { doc, key: isObject(doc.mcpServers) && !isObject(doc.servers) ? 'mcpServers' : 'servers' };
}

function write(path: string, doc: JsonObject): void {
  mkdirSync(dirname(path), { recursive: true });
  let mode = 0o600;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    // a new file: owner-only
  }
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(doc, null, 2)}\n`, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, path);
}

/** Every entry of the file, by local name (`servers` and `mcpServers`). */
export function entries(path: string): Record<string, JsonObject> {
  const { doc } = read(path);
  const out: Record<string, JsonObject> = {};
  for (const k of ['servers', 'mcpServers'] as const)
    if (isObject(doc[k])) for (const [n, d] of Object.entries(doc[k])) if (isObject(d)) out[n] ??= d;
  return out;
}

/** Puts `def` under `local`: refused when the name is taken unless `replace`. */
export function putEntry(path: string, local: string, def: JsonObject, replace = false): void {
  const { doc, key } = read(path);
  if (!replace && Object.hasOwn(entries(path), local))
    throw new Error(`a server named ${JSON.stringify(local)} is already in ${path}: choose another with --name`);
  const map = isObject(doc[key]) ? doc[key] : {};
  doc[key] = { ...map, [local]: def };
  write(path, doc);
}

/** Removes the entry `local`; returns it, or undefined when the file has none. */
export function removeEntry(path: string, local: string): JsonObject | undefined {
  const { doc } = read(path);
  for (const k of ['servers', 'mcpServers'] as const) {
    const map = doc[k];
    if (isObject(map) && isObject(map[local])) {
      const def = map[local];
      delete map[local];
      write(path, doc);
      return def;
    }
  }
  return undefined;
}
