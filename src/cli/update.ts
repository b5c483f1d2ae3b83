// `mcpx update LOCAL` (docs/registry.md): a registry-installed server moved to its registry's latest
// version — the server.json diff shown, the inputs given at install given again (secrets stay in the
// store), the new package fetched, the entry replaced. Once it starts, a tool whose definition changed is
// held by the pins as any change is (docs/gateway.md "Pins").
import { entries, putEntry } from '../registry/configFile';
import { install, pruneVersions } from '../registry/install';
import { plannedUpdate, provenanceOf, updateRequest } from '../registry/update';
import { type Args, UsageError } from './args';
import type { Command } from './command';
import { report, valuesOf } from './install';
import { printable } from '../kit/printable';
import { out } from './output';
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
  const p = provenanceOf(def);
  if (!p) throw new Error(`${local} was not installed from a registry (its entry has no "registry" block)`);
  const client = clientOf(c, a.flags['registry.url'] === undefined ? p.url : undefined);
  const plan = await plannedUpdate(client, p);
  if (!plan) return out(`${printable(local)} is at ${printable(p.name)}@${printable(p.version)}, the latest`);
  sayIfStale({ value: undefined, ...(plan.stale ? { stale: plan.stale } : {}) });
  const next = plan.latest.server.version;
  out(`${printable(local)}: ${printable(p.name)} ${printable(p.version)} → ${printable(next)}`);
  for (const l of plan.diff.trimEnd().split('\n').flatMap(lines)) out(l);
  const ports = installPorts(c);
  const req = updateRequest(
    { client, local, def, p, latest: plan.latest, extraHosts: ports.extraHosts },
    valuesOf(a.env),
    a.yes === true,
  );
  const result = await install(req, ports);
  putEntry(c.file, local, result.def, true);
  pruneVersions(c.stateDir, local, next);
  report(result, local, c);
}
