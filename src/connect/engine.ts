// Connecting agents (docs/connect.md): each client's file read, mcpx's entry written in the client's own
// format with everything else kept as it was, its own servers moved into mcpx's config on --import, and
// all of it undone by disconnect — byte for byte while nothing else changed the file. A file that cannot
// be read is refused for that client alone, untouched.
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { canonicalJson } from '../kit/canonical';
import { unifiedDiff } from '../kit/diff';
import { type Client, ENTRY, type Json } from './client';
import { isObject } from './clients/common';
import { Malformed } from './jsonEdit';
import type { Places } from './places';
import { type ConnectRecord, type ImportedRecord, Records, digest } from './records';
import { type ShimFacts, shimCommand } from './shim';
import type { ServerStore } from './store';
import { writeInPlace } from './write';

export interface ConnectDeps {
  readonly places: Places;
  readonly stateDir: string;
  readonly shim: ShimFacts;
  /** mcpx's config, for --import and for putting imported servers back out. */
  readonly store?: ServerStore;
}

/** One client as `mcpx connect --list` shows it. */
export interface ClientRow {
  readonly id: string;
  readonly name: string;
  readonly file: string;
  /** Its file, or the folder its app keeps, is on this machine. */
  readonly present: boolean;
  /** Its file has an `mcpx` entry. */
  readonly connected: boolean;
  /** Its own servers (the `mcpx` entry not counted). */
  readonly servers: number;
  /** mcpx connected it, and its entry has since been changed (or goes stale) or removed. */
  readonly drift?: 'changed' | 'removed';
  /** The file as it was before mcpx first changed it; null: mcpx created it; absent: never connected. */
  readonly backup?: string | null;
  readonly profile?: string;
  /** Why its file cannot be read. */
  readonly problem?: string;
}

export interface Outcome {
  readonly id: string;
  readonly name: string;
  readonly file: string;
  readonly status: 'connected' | 'unchanged' | 'refused' | 'disconnected' | 'not-connected';
  readonly problem?: string;
  /** The change to the file as a unified diff ('' when none). */
  readonly diff: string;
  readonly imported: ReadonlyArray<{ name: string; as: string; dropped: readonly string[] }>;
  /** Its own servers left in its file, and why. */
  readonly kept: ReadonlyArray<{ name: string; why: string }>;
  /** Imported servers left in mcpx's config on disconnect (changed there since). */
  readonly stayed?: readonly string[];
}

interface Read {
  readonly file: string;
  /** The file's bytes as text; undefined: there is no file. */
  readonly text?: string;
  readonly doc: Json;
  readonly path: readonly string[];
  readonly servers: Json;
}

function readClient(c: Client, p: Places): Read {
  const file = c.file(p);
  const text = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  const doc = c.format.parse(text ?? '');
  const path = c.serversPath(doc);
  let servers: unknown = doc;
  for (const k of path) servers = isObject(servers) ? servers[k] : undefined;
  if (servers !== undefined && !isObject(servers)) throw new Malformed(`"${path.join('.')}" is not an object`);
  return { file, text, doc, path, servers: servers ?? {} };
}

const same = (a: unknown, b: unknown) => a !== undefined && b !== undefined && canonicalJson(a) === canonicalJson(b);
const ownCount = (servers: Json) => Object.keys(servers).filter((k) => k !== ENTRY).length;

export function listClients(d: ConnectDeps, clients: readonly Client[]): ClientRow[] {
  const records = new Records(d.stateDir);
  return clients.map((c) => {
    const file = c.file(d.places);
    const present = existsSync(file) || c.appDirs(d.places).some((dir) => existsSync(dir));
    const rec = records.read(c.id);
    const base = {
      id: c.id,
      name: c.name,
      file,
      present,
      ...(rec ? { backup: rec.backup, profile: rec.profile } : {}),
    };
    try {
      const r = readClient(c, d.places);
      const entry = r.servers[ENTRY];
      const wanted = c.entry(shimCommand(d.places.os, d.shim, rec?.profile));
      const drift = !rec ? undefined : entry === undefined ? 'removed' : same(entry, wanted) ? undefined : 'changed';
      return { ...base, connected: entry !== undefined, servers: ownCount(r.servers), ...(drift ? { drift } : {}) };
    } catch (e) {
      return { ...base, connected: false, servers: 0, problem: (e as Error).message };
    }
  });
}

const refused = (c: Client, file: string, e: unknown): Outcome => {
  if (!(e instanceof Malformed) && (e as NodeJS.ErrnoException).code === undefined) throw e;
  return {
    id: c.id,
    name: c.name,
    file,
    status: 'refused',
    problem: (e as Error).message,
    diff: '',
    imported: [],
    kept: [],
  };
};

/** The diff as a person reads it: the file's own line endings left out. */
const diffOf = (file: string, before: string, after: string) =>
  unifiedDiff(before.replace(/\r\n/g, '\n'), after.replace(/\r\n/g, '\n'), file, file);

/** A name mcpx's config does not have yet: the client's own, else `<client>-<name>` (numbered on). */
function freeName(taken: Set<string>, client: string, name: string): string {
  let as = taken.has(name) ? `${client}-${name}` : name;
  for (let n = 2; taken.has(as); n++) as = `${client}-${name}-${n}`;
  taken.add(as);
  return as;
}

export interface ConnectOptions {
  readonly profile?: string;
  readonly import?: boolean;
  readonly dryRun?: boolean;
}

export async function connectClients(
  d: ConnectDeps,
  clients: readonly Client[],
  o: ConnectOptions,
): Promise<Outcome[]> {
  const taken = o.import && d.store ? new Set(await d.store.names()) : new Set<string>();
  const out: Outcome[] = [];
  for (const c of clients) {
    let file = c.file(d.places);
    try {
      const r = readClient(c, d.places);
      file = r.file;
      out.push(await connectOne(d, c, r, o, taken));
    } catch (e) {
      out.push(refused(c, file, e));
    }
  }
  return out;
}

async function connectOne(d: ConnectDeps, c: Client, r: Read, o: ConnectOptions, taken: Set<string>): Promise<Outcome> {
  const before = r.text ?? '';
  let text = before;
  const kept: Array<{ name: string; why: string }> = [];
  const moving: Array<{ name: string; as: string; raw: unknown; imp: Exclude<ReturnType<Client['read']>, string> }> =
    [];
  if (o.import) {
    if (!d.store) throw new Error('--import needs mcpx config');
    for (const [name, raw] of Object.entries(r.servers)) {
      if (name === ENTRY) continue;
      const imp = c.read(raw);
      if (typeof imp === 'string') kept.push({ name, why: imp });
      else {
        moving.push({ name, as: freeName(taken, c.id, name), raw, imp });
        text = c.format.remove(text, [...r.path, name]);
      }
    }
  }
  const wanted = c.entry(shimCommand(d.places.os, d.shim, o.profile));
  if (!same(r.servers[ENTRY], wanted)) text = c.format.set(text, [...r.path, ENTRY], wanted);
  const diff = diffOf(r.file, before, text);
  const base = { id: c.id, name: c.name, file: r.file, diff, kept };
  const imported = moving.map((m) => ({ name: m.name, as: m.as, dropped: m.imp.dropped }));
  if (text === before) return { ...base, status: 'unchanged', imported };
  if (o.dryRun) return { ...base, status: 'connected', imported };

  const records = new Records(d.stateDir);
  const rec = records.read(c.id);
  const real = r.text === undefined ? r.file : realpathSync(r.file);
  const backup = rec ? rec.backup : records.backUp(c.id, real, r.text !== undefined);
  const added: ImportedRecord[] = [];
  for (const m of moving) added.push({ name: m.name, as: m.as, raw: m.raw, def: await d.store!.add(m.as, m.imp) });
  if (r.text === undefined) mkdirSync(dirname(real), { recursive: true });
  writeInPlace(real, text, r.text === undefined ? 0o600 : statSync(real).mode);
  const next: ConnectRecord = {
    file: r.file,
    backup,
    written: digest(text),
    entry: wanted,
    ...(o.profile ? { profile: o.profile } : {}),
    imported: [...(rec?.imported ?? []), ...added],
  };
  records.write(c.id, next);
  return { ...base, status: 'connected', imported };
}

export async function disconnectClients(
  d: ConnectDeps,
  clients: readonly Client[],
  o: { dryRun?: boolean } = {},
): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (const c of clients) {
    let file = c.file(d.places);
    try {
      const r = readClient(c, d.places);
      file = r.file;
      out.push(await disconnectOne(d, c, r, o));
    } catch (e) {
      out.push(refused(c, file, e));
    }
  }
  return out;
}

async function disconnectOne(d: ConnectDeps, c: Client, r: Read, o: { dryRun?: boolean }): Promise<Outcome> {
  const records = new Records(d.stateDir);
  const rec = records.read(c.id);
  const base = { id: c.id, name: c.name, file: r.file, kept: [], imported: [] };
  if (!rec && r.servers[ENTRY] === undefined) return { ...base, status: 'not-connected', diff: '' };
  const before = r.text ?? '';
  // Nothing else changed the file since mcpx wrote it: it goes back to what it was, byte for byte.
  const untouched = rec !== undefined && r.text !== undefined && digest(r.text) === rec.written;
  let after: string | undefined;
  if (untouched && rec.backup === null) after = undefined;
  else if (untouched) after = readFileSync(rec.backup!, 'utf8');
  else {
    after = c.format.remove(before, [...r.path, ENTRY]);
    for (const i of rec?.imported ?? []) {
      const now = c.format.parse(after);
      let servers: unknown = now;
      for (const k of r.path) servers = isObject(servers) ? servers[k] : undefined;
      if (!isObject(servers) || !(i.name in servers)) after = c.format.set(after, [...r.path, i.name], i.raw);
    }
  }
  const diff = diffOf(r.file, before, after ?? '');
  if (o.dryRun) return { ...base, status: 'disconnected', diff };
  const real = r.text === undefined ? r.file : realpathSync(r.file);
  if (after === undefined) rmSync(real, { force: true });
  else if (untouched) writeInPlace(real, readFileSync(rec.backup!), statSync(real).mode);
  else if (after !== before) {
    // A file removed since: made again, to hold the servers --import took from it.
    if (r.text === undefined) mkdirSync(dirname(real), { recursive: true });
    writeInPlace(real, after, r.text === undefined ? 0o600 : statSync(real).mode);
  }
  const stayed: string[] = [];
  for (const i of rec?.imported ?? []) if (d.store && !(await d.store.remove(i.as, i.def))) stayed.push(i.as);
  records.remove(c.id);
  return { ...base, status: 'disconnected', diff, ...(stayed.length ? { stayed } : {}) };
}
