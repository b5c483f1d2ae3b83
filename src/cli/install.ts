// `mcpx install NAME[@VERSION]` (docs/registry.md): one exact version of a registry server installed —
// checked, its package fetched now, its secrets in mcpx's owner-only store — and its entry written into
// the config file, which a running daemon follows.
import { entries, putEntry } from '../registry/configFile';
import { type InstallResult, install, localNameOf, parseNameAtVersion, pruneVersions } from '../registry/install';
import { type Args, UsageError } from './args';
import type { Command } from './command';
import { printable } from '../kit/printable';
import { out } from './output';
import { type RegistryContext, clientOf, installPorts, lines, registryContext, sayIfStale } from './registryParts';

export const installCommand: Command = {
  usage: [
    [
      'install NAME[@VERSION] [--name LOCAL] [--env KEY=VALUE]... [--no-sandbox] [--yes] [--config FILE] [--registry URL]',
      'install a server of the MCP Registry at one exact version:',
      'its package fetched now, sandboxed where the platform can,',
      "secrets in mcpx's owner-only store; --yes: a deprecated one",
    ],
  ],
  flags: ['name', 'env', 'no-sandbox', 'yes', 'config', 'registry'],
  positional: true,
  run,
};

const LOCAL = /^[\w.-]+$/;

/** `--env KEY=VALUE`s by key, in order. */
export function valuesOf(env: readonly string[] = []): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const kv of env) {
    const i = kv.indexOf('=');
    if (i <= 0) throw new UsageError(`--env: expected KEY=VALUE, got ${JSON.stringify(kv)}`);
    const key = kv.slice(0, i);
    values.set(key, [...(values.get(key) ?? []), kv.slice(i + 1)]);
  }
  return values;
}

/** What an install or update says (its warnings were said as they came): what was installed, where, and
 *  the publisher's instructions (shown, not run). */
export function report(r: InstallResult, local: string, c: RegistryContext): void {
  out(`${printable(local)}: ${printable(r.summary)}`);
  out(`written to ${c.file}; a running daemon picks it up (it follows the file), its tools pinned at first start`);
  if (r.instructions.length) {
    out("the publisher's post-install instructions (shown, not run):");
    for (const l of r.instructions.flatMap(lines)) out(`  | ${l}`);
  }
}

async function run(a: Args): Promise<void> {
  const [arg, extra] = a.positional;
  if (arg === undefined) throw new UsageError('mcpx install needs a NAME (a registry name, e.g. io.github.x/weather)');
  if (extra !== undefined) throw new UsageError(`mcpx install: unexpected argument ${JSON.stringify(extra)}`);
  const { name, version } = parseNameAtVersion(arg);
  const local = a.name ?? localNameOf(name);
  if (!LOCAL.test(local))
    throw new UsageError(`--name: ${JSON.stringify(local)} is not a usable name (letters, digits, _ . -)`);
  const values = valuesOf(a.env);
  const c = registryContext(a);
  // Before anything is fetched: the name's directory and secrets are the entry's own.
  if (Object.hasOwn(entries(c.file), local))
    throw new Error(
      `a server named ${JSON.stringify(local)} is already in ${c.file}: choose another with --name (or mcpx update ${local})`,
    );
  const client = clientOf(c);
  const got = await client.version(name, version);
  sayIfStale(got);
  const result = await install(
    { client, entry: got.value, local, values, sandbox: a.noSandbox !== true, yes: a.yes === true },
    installPorts(c),
  );
  try {
    putEntry(c.file, local, result.def);
  } catch (e) {
    pruneVersions(c.stateDir, local);
    throw e;
  }
  report(result, local, c);
}
