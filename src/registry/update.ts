// Moving a registry-installed server to its registry's latest version (docs/registry.md): the entry's
// provenance read, the latest version and the server.json diff, and the install request that gives the
// inputs of the install again — those the new version still asks for, secrets kept in the store, the same
// sandbox choice. `mcpx update` and the editor's Update both use it.
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import type { RegistryClient } from './client';
import { serverJsonDiff } from './diff';
import { type InstallRequest, chosen, needsOf } from './install';
import type { RegistryEntry } from './types';

export interface Provenance {
  name: string;
  version: string;
  url?: string;
  inputs: Record<string, string[]>;
  secrets: string[];
}

/** The `registry` block of an entry, or undefined when it was not installed from a registry. */
export function provenanceOf(def: JsonObject | undefined): Provenance | undefined {
  const p = def?.registry;
  if (!isObject(p) || typeof p.name !== 'string' || typeof p.version !== 'string') return undefined;
  const inputs: Record<string, string[]> = {};
  if (isObject(p.inputs))
    for (const [k, v] of Object.entries(p.inputs)) if (Array.isArray(v)) inputs[k] = v.map(String);
  return {
    name: p.name,
    version: p.version,
    ...(typeof p.url === 'string' ? { url: p.url } : {}),
    inputs,
    secrets: Array.isArray(p.secrets) ? p.secrets.map(String) : [],
  };
}

export interface PlannedUpdate {
  latest: RegistryEntry;
  /** The unified diff of the installed version's server.json and the latest's. */
  diff: string;
  stale?: { at: number; why: string };
}

/** The latest version when it is another than the installed one; undefined when it is the same. */
export async function plannedUpdate(client: RegistryClient, p: Provenance): Promise<PlannedUpdate | undefined> {
  const latest = await client.version(p.name);
  if (latest.value.server.version === p.version) return undefined;
  const old = await client.version(p.name, p.version).then(
    (o) => o.value.server,
    () => undefined,
  );
  return {
    latest: latest.value,
    diff: serverJsonDiff(old, latest.value.server),
    ...(latest.stale ? { stale: latest.stale } : {}),
  };
}

/** The install request of an update: the inputs given at install that the new version still asks for,
 *  then `given`; the secrets already stored kept; the entry's sandbox choice. */
export function updateRequest(
  o: {
    client: RegistryClient;
    local: string;
    def: JsonObject;
    p: Provenance;
    latest: RegistryEntry;
    extraHosts: readonly string[];
  },
  given: ReadonlyMap<string, readonly string[]> = new Map(),
  yes = false,
): InstallRequest {
  const asks = new Set(needsOf(chosen(o.latest, o.extraHosts)).map((n) => n.key));
  const values = new Map<string, readonly string[]>();
  for (const [k, v] of Object.entries(o.p.inputs)) if (asks.has(k)) values.set(k, v);
  for (const [k, v] of given) values.set(k, v);
  return {
    client: o.client,
    entry: o.latest,
    local: o.local,
    values,
    keptSecrets: new Set(o.p.secrets.filter((k) => asks.has(k))),
    sandbox: o.def.sandbox !== false,
    yes,
  };
}
