// An OCI image (docs/registry.md "OCI"): pulled at install time and written into the entry by its digest
// (`image@sha256:…`), never a tag that can move; it runs as `docker run --rm -i` with the server's
// environment passed by name (-e NAME: the value stays out of argv) — the container is its own sandbox.
import type { Package } from '../types';
import type { Installed, PackageKind } from './kind';

const REF = /^[a-z0-9]([a-z0-9._:/-]*[a-z0-9])?(@sha256:[a-f0-9]{64})?$/;

/** The reference to pull: the identifier, with the version as its tag when it has none. */
function imageRef(p: Package): string {
  if (p.identifier.includes('@sha256:')) return p.identifier;
  const last = p.identifier.slice(p.identifier.lastIndexOf('/') + 1);
  return last.includes(':') || !p.version ? p.identifier : `${p.identifier}:${p.version}`;
}

/** The repository of a reference (without tag or digest), as docker names it in RepoDigests. */
const repository = (ref: string) => ref.replace(/@sha256:.*$/, '').replace(/:[^/:]+$/, '');

export const oci: PackageKind = {
  refuse(p) {
    if (!REF.test(p.identifier)) return `${JSON.stringify(p.identifier)} is not an image reference`;
    const ref = imageRef(p);
    const tag = ref.includes('@') ? undefined : ref.slice(ref.lastIndexOf(':') + 1);
    if (!ref.includes('@sha256:') && (!tag || tag === 'latest' || ref.lastIndexOf(':') < ref.lastIndexOf('/')))
      return `the image ${JSON.stringify(p.identifier)} names no exact version (a tag other than latest, or a digest)`;
    return undefined;
  },
  async fetch(p, c): Promise<Installed> {
    const ref = imageRef(p);
    let pinned = ref;
    if (!ref.includes('@sha256:')) {
      c.log(`pulling ${ref} to learn its digest`);
      await c.run('docker', ['pull', ref], { timeoutMs: c.timeoutMs });
      const { stdout } = await c.run('docker', ['image', 'inspect', '--format', '{{json .RepoDigests}}', ref], {
        timeoutMs: 30_000,
      });
      const digests = JSON.parse(stdout.trim() || '[]') as string[];
      // Docker Hub's references lose their docker.io/ prefix (and library/) in RepoDigests.
      const short = (s: string) => s.replace(/^docker\.io\//, '').replace(/^library\//, '');
      const found = digests.find((d) => short(repository(d)) === short(repository(ref)));
      const digest = found?.slice(found.indexOf('@'));
      if (!digest?.startsWith('@sha256:')) throw new Error(`docker gave no digest for ${ref}`);
      pinned = `${repository(ref)}${digest}`;
    } else await c.run('docker', ['pull', ref], { timeoutMs: c.timeoutMs });
    return {
      spec: pinned,
      sandboxable: false,
      argv: (r) => ({
        command: 'docker',
        args: [
          'run',
          '--rm',
          '-i',
          ...Object.keys(r.env).flatMap((k) => ['-e', k]),
          ...r.runtimeArgs,
          pinned,
          ...r.packageArgs,
        ],
      }),
    };
  },
};
