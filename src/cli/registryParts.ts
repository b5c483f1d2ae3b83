// What `mcpx registry`, `install`, `uninstall` and `update` share (docs/registry.md): the registry client
// the settings name (registry.url, or --registry URL; registry.timeout) with its cache in the state
// directory, the config file they edit, install's ports headless (mcpx's owner-only secret store, the
// upstream sandbox's own word on whether it runs here), and registry text made safe to print.
import { defaultConfigPath, defaultStateDir } from '../config/paths';
import type { Settings } from '../config/settings';
import { RegistryCache } from '../registry/cache';
import { type Fetched, RegistryClient } from '../registry/client';
import type { InstallPorts } from '../registry/install';
import { FileSecretStore } from '../upstream/auth/store';
import { sandboxAvailability } from '../upstream/sandbox';
import type { Args } from './args';
import { configOf, reportIssues, settingsOf } from './config';
import { printable } from '../kit/printable';

export interface RegistryContext {
  settings: Settings;
  stateDir: string;
  /** The config file install and uninstall edit. */
  file: string;
}

export function registryContext(a: Args): RegistryContext {
  const config = configOf(a);
  reportIssues(config);
  return {
    settings: settingsOf(config, a),
    stateDir: defaultStateDir(process.env),
    file: a.config ?? defaultConfigPath(process.env),
  };
}

/** The client of `url` (else registry.url), its answers cached in the state directory. */
export function clientOf(c: RegistryContext, url?: string): RegistryClient {
  return new RegistryClient({
    url: url ?? c.settings.get<string>('registry.url'),
    timeoutMs: c.settings.duration('registry.timeout'),
    cache: RegistryCache.inState(c.stateDir),
  });
}

/** Says on stderr when an answer is the cached one. */
export function sayIfStale(f: Fetched<unknown>): void {
  if (!f.stale) return;
  const mins = Math.round((Date.now() - f.stale.at) / 60_000);
  const age = mins < 120 ? `${mins} min` : `${Math.round(mins / 60)} h`;
  process.stderr.write(`mcpx: ${printable(f.stale.why)}; showing what was cached ${age} ago (stale)\n`);
}

/** Install's ports headless. */
export function installPorts(c: RegistryContext): InstallPorts {
  return {
    stateDir: c.stateDir,
    secrets: FileSecretStore.serverSecrets(c.stateDir),
    sandboxAvailable: () => sandboxAvailability(process.env.PATH ?? ''),
    extraHosts: c.settings.get<string[]>('registry.packageHosts'),
    log: (l) => process.stderr.write(`mcpx: ${printable(l)}\n`),
    warn: (w) => process.stderr.write(`mcpx: WARNING: ${printable(w)}\n`),
  };
}

/** Registry text as lines to print: each made printable (names, descriptions, instructions come from a
 *  publisher). */
export const lines = (text: string): string[] => text.split(/\r?\n/).map(printable);
