// Which of a server's packages or remotes mcpx installs (docs/registry.md "What is installed"): the first
// package of a kind it can fetch (npm, pypi, oci, mcpb) that runs over stdio and passes its checks; else
// the first remote. What a server offers, for a person (search and show); the text it asks to be shown
// after install.
import { refusedHost } from './hosts';
import { mcpb } from './packages/mcpb';
import type { PackageKind } from './packages/kind';
import { npm } from './packages/npm';
import { oci } from './packages/oci';
import { pypi } from './packages/pypi';
import { type Package, PUBLISHER, type ServerJson, type Transport } from './types';

/** The kinds of package install can fetch, by `registryType`. */
const KINDS: Readonly<Record<string, PackageKind>> = { npm, pypi, oci, mcpb };

export type Choice =
  | { kind: 'package'; pkg: Package; fetcher: PackageKind }
  | { kind: 'remote'; remote: Transport & { url: string } };

/** How each of a server's ways runs, for a person: `npm`, `pypi`, `oci`, `mcpb`, `nuget`, `remote`. */
export function howItRuns(s: ServerJson): string[] {
  return [...new Set([...(s.packages ?? []).map((p) => p.registryType), ...(s.remotes?.length ? ['remote'] : [])])];
}

/** The way to install, or why there is none (each way's reason). `extraHosts`: registry.packageHosts. */
export function choose(s: ServerJson, extraHosts: readonly string[]): { choice?: Choice; skipped: string[] } {
  const skipped: string[] = [];
  for (const pkg of s.packages ?? []) {
    const what = `${pkg.registryType} ${pkg.identifier}`;
    const fetcher = KINDS[pkg.registryType];
    if (!fetcher) {
      skipped.push(`${what}: mcpx does not install ${pkg.registryType} packages`);
      continue;
    }
    if (pkg.transport.type !== 'stdio') {
      skipped.push(`${what}: it runs over ${pkg.transport.type}, and mcpx installs stdio packages`);
      continue;
    }
    let why: string | undefined;
    try {
      why = fetcher.refuse?.(pkg) ?? refusedHost(pkg, extraHosts);
    } catch (e) {
      why = (e as Error).message;
    }
    if (why) {
      skipped.push(`${what}: ${why}`);
      continue;
    }
    return { choice: { kind: 'package', pkg, fetcher }, skipped };
  }
  for (const remote of s.remotes ?? []) {
    if ((remote.type !== 'streamable-http' && remote.type !== 'sse') || !remote.url) {
      skipped.push(`remote ${remote.url ?? '(no url)'}: transport ${remote.type} is not one mcpx speaks`);
      continue;
    }
    return { choice: { kind: 'remote', remote: remote as Transport & { url: string } }, skipped };
  }
  if (!s.packages?.length && !s.remotes?.length) skipped.push('server.json lists no package and no remote');
  return { skipped };
}

/** The text a server asks to be shown after install (`postInstallInstructions`, at the top of server.json
 *  or in its publisher-provided `_meta`: a string, or a list of strings or of `{ text | description }`);
 *  shown, never run. */
export function postInstallInstructions(s: ServerJson): string[] {
  const meta = s._meta?.[PUBLISHER] as Record<string, unknown> | undefined;
  const raw = (s as Record<string, unknown>).postInstallInstructions ?? meta?.postInstallInstructions;
  const items = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : [];
  return items
    .map((i) =>
      typeof i === 'string'
        ? i
        : typeof i === 'object' && i !== null
          ? String((i as Record<string, unknown>).text ?? (i as Record<string, unknown>).description ?? '')
          : '',
    )
    .filter(Boolean)
    .flatMap((t) => t.split('\n'));
}
