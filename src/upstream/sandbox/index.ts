// One stdio upstream instance started inside a sandbox (docs/security.md "The upstream sandbox"): its
// private directory made, its network relays listening, its command wrapped in bubblewrap — under the
// reaper wrapper (spawn.ts) like any upstream — and all of it removed when the instance ends.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import type { SandboxSpec } from '../../config/sandbox';
import { bundleNear } from '../../kit/bundles';
import type { SpawnSpec } from '../spawn';
import { bubblewrap } from './bwrap';
import { SandboxNet } from './net';
import { bwrapArgs, mountsOf, serverDirs } from './plan';

export interface Sandboxed {
  spec: SpawnSpec;
  /** Stops its relays and removes its private directories; once the process has ended. */
  release(): Promise<void>;
}

/** `spec` to run inside the sandbox `sandbox`; `roots` are the workspace's folders (paths). */
export async function sandboxed(
  spec: SpawnSpec,
  sandbox: SandboxSpec,
  roots: readonly string[],
  log: (line: string) => void,
): Promise<Sandboxed> {
  const bwrap = await bubblewrap(spec.env.PATH ?? '');
  const base = spec.cwd ?? process.cwd();
  // Real paths: a bind of a path through a link (macOS-style /tmp, a linked home) is the target's.
  const priv = realpathSync(mkdtempSync(`${tmpdir()}/mcpx-sandbox-`));
  const net = typeof sandbox.network === 'object' ? sandbox.network : {};
  const relayed = (net.loopbackPorts?.length ?? 0) > 0 || (net.hosts?.length ?? 0) > 0;
  const sockets = relayed ? new SandboxNet(`${priv}-net`, net.loopbackPorts ?? [], net.hosts ?? [], log) : undefined;
  const release = async () => {
    await sockets?.close();
    rmSync(priv, { recursive: true, force: true });
    if (sockets) rmSync(sockets.dir, { recursive: true, force: true });
  };
  try {
    const own = serverDirs(spec.command, spec.args, base, spec.env.PATH ?? '');
    if (spec.cwd) own.push(spec.cwd);
    const extraRead: string[] = [];
    let inner = [spec.command, ...spec.args];
    const env: NodeJS.ProcessEnv = { ...spec.env, TMPDIR: priv, TMP: priv, TEMP: priv };
    if (sockets) {
      mkdirSync(sockets.dir, { mode: 0o700 }); // the gateway's alone; read-only inside the sandbox
      await sockets.start();
      const relay = bundleNear('sandbox-relay.js', __dirname);
      const node = realpathSync(process.execPath);
      extraRead.push(sockets.dir, dirname(relay), dirname(node));
      const electron = process.versions.electron !== undefined;
      if (electron) env.ELECTRON_RUN_AS_NODE = '1';
      inner = [node, relay, ...(electron ? ['--electron'] : []), ...sockets.routes, '--', ...inner];
      Object.assign(env, sockets.env);
    }
    const mounts = mountsOf(sandbox, { roots, own, base, priv, extraRead });
    const chdir = spec.cwd ?? priv;
    return {
      spec: { command: bwrap, args: [...bwrapArgs(mounts, chdir), '--', ...inner], env, cwd: spec.cwd },
      release,
    };
  } catch (e) {
    await release();
    throw e;
  }
}

/** Undefined when a sandbox can be made here (on this PATH); else why not, in a sentence. */
export async function sandboxAvailability(path: string): Promise<string | undefined> {
  try {
    await bubblewrap(path);
    return undefined;
  } catch (e) {
    return (e as Error).message.replace(', so the server is not started', '');
  }
}
