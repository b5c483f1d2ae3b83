// The mechanism: bubblewrap (`bwrap`, Debian's package `bubblewrap`), driven directly. Where it is
// missing, or cannot make namespaces here, a server that asks for a sandbox does not start and its error
// names what to install; it never runs unsandboxed (docs/security.md "The upstream sandbox").
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** No sandbox can be made here: the server is not started. */
export class SandboxUnavailable extends Error {
  override name = 'SandboxUnavailable';
}

const INSTALL = 'install bubblewrap (Debian and Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap)';

/** An executable named `name` on `path` (a PATH value), or undefined. */
export function onPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** One probe per bwrap binary for the life of the process: whether it can make the namespaces mcpx asks
 *  for (a kernel without unprivileged user namespaces, or a container without the capability, refuses). */
const probes = new Map<string, Promise<string | undefined>>();

function probe(bwrap: string): Promise<string | undefined> {
  let p = probes.get(bwrap);
  if (!p) {
    const args = ['--ro-bind', '/', '/', '--unshare-net', '--unshare-pid', '--die-with-parent', 'true'];
    p = new Promise((resolve) =>
      execFile(bwrap, args, { timeout: 10_000 }, (e, _out, err) =>
        resolve(e ? (String(err).trim().split('\n')[0] || e.message).slice(0, 300) : undefined),
      ),
    );
    probes.set(bwrap, p);
  }
  return p;
}

/** The bwrap to run, once known to work here; else SandboxUnavailable naming what to do. */
export async function bubblewrap(path: string): Promise<string> {
  // On the PATH the server's command is found on.
  const bwrap = onPath('bwrap', path);
  if (!bwrap)
    throw new SandboxUnavailable(`bubblewrap (bwrap) is not installed, so the server is not started: ${INSTALL}`);
  const refused = await probe(bwrap);
  if (refused !== undefined)
    throw new SandboxUnavailable(
      `bubblewrap (${bwrap}) cannot make a sandbox on this machine, so the server is not started: ${refused}`,
    );
  return bwrap;
}
