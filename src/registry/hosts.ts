// Where a package may come from (docs/registry.md "Package hosts"): the official registry's own allowed
// hosts per registry type (its docs/reference/server-json/official-registry-requirements.md, "Restricted
// Registry Base URLs"), and those the person adds (registry.packageHosts). A package from any other host
// is refused before anything is fetched.
import type { Package } from './types';

const OFFICIAL_HOSTS: Readonly<Record<string, readonly string[]>> = {
  npm: ['registry.npmjs.org'],
  pypi: ['pypi.org'],
  nuget: ['api.nuget.org'],
  oci: ['docker.io', 'ghcr.io', '*.pkg.dev', '*.azurecr.io', 'mcr.microsoft.com'],
  mcpb: ['github.com', 'gitlab.com'],
};

/** The base URL a registry type's packages come from when server.json names none. */
const DEFAULT_BASE: Readonly<Record<string, string>> = {
  npm: 'https://registry.npmjs.org',
  pypi: 'https://pypi.org',
  nuget: 'https://api.nuget.org',
};

/** The registry host of an OCI reference: its first part when that names a host, else Docker Hub. */
function ociHost(identifier: string): string {
  const first = identifier.split('/')[0]!;
  return identifier.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost')
    ? first
    : 'docker.io';
}

/** Where a package is fetched from, as a URL (an OCI reference's registry as https://host). */
export function packageOrigin(p: Package): URL {
  const raw =
    p.registryType === 'mcpb'
      ? p.identifier
      : p.registryType === 'oci'
        ? `https://${ociHost(p.identifier)}`
        : (p.registryBaseUrl ?? DEFAULT_BASE[p.registryType] ?? '');
  try {
    return new URL(raw);
  } catch {
    throw new Error(
      `the ${p.registryType} package ${JSON.stringify(p.identifier)} names no usable URL (${JSON.stringify(raw)})`,
    );
  }
}

/** `host` (with its port when not the scheme's default) against `pattern` (a name or `*.domain`, with
 *  `:port` where it is not the default). */
function matches(url: URL, pattern: string): boolean {
  const [name, port] = pattern.toLowerCase().split(':') as [string, string | undefined];
  if ((url.port || '') !== (port ?? '')) return false;
  const host = url.hostname.toLowerCase();
  return name.startsWith('*.') ? host.endsWith(name.slice(1)) && host.length > name.length - 1 : host === name;
}

/** Undefined when the package's origin is allowed; else why not. */
export function refusedHost(p: Package, extra: readonly string[]): string | undefined {
  const origin = packageOrigin(p);
  const allowed = [...(OFFICIAL_HOSTS[p.registryType] ?? []), ...extra];
  if (!allowed.some((h) => matches(origin, h)))
    return `its ${p.registryType} package comes from ${origin.host}, which is not an allowed package host (${allowed.join(', ') || 'none'}); add it to registry.packageHosts to allow it`;
  // Plain http only from a host the person named.
  if (origin.protocol !== 'https:' && !extra.some((h) => matches(origin, h))) return `${origin.href} is not https`;
  return undefined;
}

/** Whether `url` is on an allowed host (a download's redirects, an npm lock's `resolved` URLs). */
export function allowedUrl(url: string, registryType: string, extra: readonly string[]): boolean {
  try {
    const u = new URL(url);
    return [...(OFFICIAL_HOSTS[registryType] ?? []), ...extra].some((h) => matches(u, h));
  } catch {
    return false;
  }
}
