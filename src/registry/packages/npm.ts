// An npm package (docs/registry.md "npm"): installed at its exact version into the server's directory
// with `npm install --ignore-scripts` (no install script runs), its lockfile's integrity checked against
// the version document mcpx reads from the registry itself and every `resolved` URL checked to be on an
// allowed host; it then runs as `node <its bin>` from disk, with no network.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { allowedUrl, packageOrigin } from '../hosts';
import type { Package } from '../types';
import { type Installed, type PackageKind, noRuntimeArguments } from './kind';

const NPM_NAME = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;
const EXACT = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

/** The registry's own word on an exact version: its tarball's integrity. */
async function registryIntegrity(base: string, name: string, version: string, timeoutMs: number): Promise<string> {
  const url = `${base.replace(/\/+$/, '')}/${name.replace('/', '%2F')}/${encodeURIComponent(version)}`;
  const res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  const doc = (await res.json()) as { dist?: { integrity?: unknown } };
  if (typeof doc.dist?.integrity !== 'string') throw new Error(`${url} gives no dist.integrity`);
  return doc.dist.integrity;
}

/** The file a package's bin runs: its only bin, or the one named like the package. */
function binOf(pkgDir: string, manifest: { name: string; bin?: string | Record<string, string> }): string {
  const bin = manifest.bin;
  const rel =
    typeof bin === 'string'
      ? bin
      : bin && Object.keys(bin).length === 1
        ? Object.values(bin)[0]
        : bin?.[manifest.name.replace(/^@[^/]+\//, '')];
  if (!rel)
    throw new Error(
      `${manifest.name} has ${bin ? `several bins (${Object.keys(bin).join(', ')})` : 'no bin'}: mcpx cannot tell which runs the server`,
    );
  const file = resolve(pkgDir, rel);
  if (!file.startsWith(pkgDir + sep)) throw new Error(`${manifest.name}'s bin points outside the package`);
  return file;
}

export const npm: PackageKind = {
  refuse(p) {
    if (!NPM_NAME.test(p.identifier)) return `${JSON.stringify(p.identifier)} is not an npm package name`;
    if (!p.version || !EXACT.test(p.version))
      return `its npm version ${JSON.stringify(p.version ?? '(none)')} is not one exact version`;
    return noRuntimeArguments(p);
  },
  async fetch(p: Package, c): Promise<Installed> {
    const version = p.version!;
    const base = packageOrigin(p).href;
    const spec = `${p.identifier}@${version}`;
    // A project of its own, so npm neither walks up to another package.json nor saves anywhere else.
    writeFileSync(join(c.dir, 'package.json'), `${JSON.stringify({ private: true, description: `mcpx: ${spec}` })}\n`);
    c.log(`installing ${spec} from ${base} (npm install --ignore-scripts)`);
    await c.run(
      'npm',
      ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--save-exact', '--registry', base, spec],
      { cwd: c.dir, timeoutMs: c.timeoutMs },
    );
    const lock = JSON.parse(readFileSync(join(c.dir, 'package-lock.json'), 'utf8')) as {
      packages?: Record<string, { version?: string; resolved?: string; integrity?: string }>;
    };
    const own = lock.packages?.[`node_modules/${p.identifier}`];
    if (own?.version !== version)
      throw new Error(`npm installed ${p.identifier}@${own?.version ?? '(nothing)'}, not ${version}`);
    const expected = await registryIntegrity(base, p.identifier, version, c.timeoutMs);
    if (own.integrity !== expected)
      throw new Error(
        `${spec}: the installed tarball's integrity ${own.integrity ?? '(none)'} is not the registry's ${expected}`,
      );
    for (const [path, entry] of Object.entries(lock.packages ?? {}))
      if (entry.resolved && !allowedUrl(entry.resolved, 'npm', [packageOrigin(p).host, ...c.extraHosts]))
        throw new Error(`${path} was fetched from ${entry.resolved}, not an allowed package host`);
    const pkgDir = join(c.dir, 'node_modules', ...p.identifier.split('/'));
    const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
      name: string;
      bin?: string | Record<string, string>;
      mcpName?: unknown;
    };
    const bin = binOf(pkgDir, manifest);
    return {
      spec,
      ...(typeof manifest.mcpName === 'string' ? { mcpName: manifest.mcpName } : {}),
      sandboxable: true,
      argv: (r) => ({ command: 'node', args: [bin, ...r.packageArgs] }),
    };
  },
};
