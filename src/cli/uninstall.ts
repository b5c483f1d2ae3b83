// `mcpx uninstall LOCAL` (docs/registry.md): a server's entry removed from the config file, the secrets
// install stored for it removed from mcpx's secret store, its installed files removed.
import { secretNames } from '../config/file';
import { removeEntry } from '../registry/configFile';
import { pruneVersions } from '../registry/install';
import { FileSecretStore } from '../upstream/auth/store';
import { type Args, UsageError } from './args';
import type { Command } from './command';
import { printable } from '../kit/printable';
import { out } from './output';
import { registryContext } from './registryParts';

export const uninstall: Command = {
  usage: [['uninstall LOCAL [--config FILE]', 'remove a server: its entry, its secrets, its installed files']],
  flags: ['config'],
  positional: true,
  run,
};

async function run(a: Args): Promise<void> {
  const [local, extra] = a.positional;
  if (local === undefined) throw new UsageError('mcpx uninstall needs the LOCAL name of a server');
  if (extra !== undefined) throw new UsageError(`mcpx uninstall: unexpected argument ${JSON.stringify(extra)}`);
  const c = registryContext(a);
  const def = removeEntry(c.file, local);
  if (!def) throw new Error(`${c.file} has no server named ${JSON.stringify(local)}`);
  // Only the secrets install stored for this server (named LOCAL.KEY): one shared with another entry is
  // the person's own.
  const store = FileSecretStore.serverSecrets(c.stateDir);
  const own = secretNames(def).filter((n) => n.startsWith(`${local}.`));
  for (const n of own) await store.delete(n);
  pruneVersions(c.stateDir, local);
  out(
    `${printable(local)} removed from ${c.file}${own.length ? ` with ${own.length} secret${own.length > 1 ? 's' : ''}` : ''}; a running daemon stops it`,
  );
}
