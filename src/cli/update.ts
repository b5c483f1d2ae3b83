// `mcpx update LOCAL` (docs/registry.md): a registry-installed server moved to its registry's latest
// version — the server.json diff shown, the inputs given at install given again (secrets stay in the
// store), the new package fetched, the entry replaced. Once it starts, a tool whose definition changed is
// held by the pins as any change is (docs/gateway.md "Pins").
import { isObject } from '../protocol/jsonrpc';
import { entries, putEntry } from '../registry/configFile';
import { chosen, install, needsOf, pruneVersions } from '../registry/install';
import { serverJsonDiff } from '../registry/diff';
import { type Args, UsageError } from './args';
import type { Command } from './command';
import { report, valuesOf } from './install';
import { out, printable } from './output';
import { clientOf, installPorts, lines, registryContext, sayIfStale } from './registryParts';

export const update: Command = {
  usage: [
    [
      'update LOCAL [--env KEY=VALUE]... [--yes] [--config FILE] [--registry URL]',
      'move a registry-installed server to its latest version,',
      'showing the server.json diff',
    ],
  ],
  flags: ['env', 'yes', 'config', 'registry'],
  positional: true,
  run,
};

async function run(a: Args): Promise<void> {
  const [local, extra] = a.positional;
  if (local === undefined) throw new UsageError('mcpx update needs the LOCAL name of a server');
  if (extra !== undefined) throw new UsageError(`mcpx update: unexpected argument ${JSON.stringify(extra)}`);
  const c = registryContext(a);
  const def = entries(c.file)[local];
  if (!def) throw new Error(`${c.file} has no server named ${JSON.stringify(local)}`);
  const p = def.registry;
  if (!isObject(p) || typeof p.name !== 'string' || typeof p.version !== 'string')
    throw new Error(`${local} was not installed from a registry (its entry has no "registry" block)`);
  const client = clientOf(c, a.flags['registry.url'] === undefined && typeof p.url === 'string' ? p.url : undefined);
  const latest = await client.version(p.name);
  sayIfStale(latest);
  const next = latest.value.server;
  if (next.version === p.version)
    return out(`${printable(local)} is at ${printable(p.name)}@${printable(p.version)}, the latest`);
  const old = await client.version(p.name, p.version).then(
    (o) => o.value.server,
    () => undefined,
  );
  out(`${printable(local)}: ${printable(p.name)} ${printable(p.version)} → ${printable(next.version)}`);
  const diff = serverJsonDiff(old, next);
  for (const l of diff.trimEnd().split('\n').flatMap(lines)) out(l);
  // The inputs given at install that the new version still asks for, then what is given now.
  const ports = installPorts(c);
  const asks = new Set(needsOf(chosen(latest.value, ports.extraHosts)).map((n) => n.key));
  const values = new Map<string, string[]>();
  if (isObject(p.inputs))
    for (const [k, v] of Object.entries(p.inputs)) if (Array.isArray(v) && asks.has(k)) values.set(k, v.map(String));
  for (const [k, v] of valuesOf(a.env)) values.set(k, v);
  const kept = new Set(Array.isArray(p.secrets) ? p.secrets.map(String) : []);
  const result = await install(
    {
      client,
      entry: latest.value,
      local,
      values,
      keptSecrets: kept,
      sandbox: def.sandbox !== false,
      yes: a.yes === true,
    },
    ports,
  );
  putEntry(c.file, local, result.def, true);
  pruneVersions(c.stateDir, local, next.version);
  report(result, local, c);
}
