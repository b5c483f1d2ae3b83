// One stdio upstream instance started inside a sandbox (docs/security.md "The upstream sandbox"): its
// private directory made, its network reached through the gateway, its command wrapped in the system's
// mechanism — bubblewrap on Linux, Seatbelt on macOS (docs/platforms.md), none on Windows, where the
// server does not start — under the platform's guarded spawn like any upstream, and all of it removed
// when the instance ends.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname } from 'node:path';
import type { SandboxSpec } from '../../config/sandbox';
import { bundleNear } from '../../kit/bundles';
import { type SpawnSpec, system } from '../../platform';
import { SandboxUnavailable, bubblewrap } from './bwrap';
import { SandboxNet, proxyEnv } from './net';
import { bwrapArgs, mountsOf, serverDirs } from './plan';
import { SANDBOX_EXEC, seatbeltProfile } from './seatbelt';

export interface Sandboxed {
  spec: SpawnSpec;
  /** Stops its relays and removes its private directories; once the process has ended. */
  release(): Promise<void>;
}

/** One instance's sandbox as the mechanisms share it: its private directory, its network, what it reads. */
interface Instance {
  spec: SpawnSpec;
  sandbox: SandboxSpec;
  roots: readonly string[];
  priv: string;
  sockets?: SandboxNet;
  own: string[];
  env: NodeJS.ProcessEnv;
}

/** `spec` to run inside the sandbox `sandbox`; `roots` are the workspace's folders (paths). */
export async function sandboxed(
  spec: SpawnSpec,
  sandbox: SandboxSpec,
  roots: readonly string[],
  log: (line: string) => void,
): Promise<Sandboxed> {
  const mechanism = system.sandbox;
  if (mechanism.kind === 'none')
    throw new SandboxUnavailable(
      `${mechanism.why}, so the server is not started (set "sandbox": false to run it unsandboxed)`,
    );
  const bwrap = mechanism.kind === 'bubblewrap' ? await bubblewrap(spec.env.PATH ?? '') : undefined;
  // Real paths: a bind of a path through a link (macOS's /tmp, a linked home) is the target's.
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
    const own = serverDirs(spec.command, spec.args, spec.cwd ?? process.cwd(), spec.env.PATH ?? '');
    if (spec.cwd) own.push(spec.cwd);
    const env: NodeJS.ProcessEnv = { ...spec.env, TMPDIR: priv, TMP: priv, TEMP: priv };
    const i: Instance = { spec, sandbox, roots, priv, sockets, own, env };
    return { spec: bwrap ? await inBubblewrap(i, bwrap) : await inSeatbelt(i), release };
  } catch (e) {
    await release();
    throw e;
  }
}

const mounts = (i: Instance, extraRead: readonly string[] = []) =>
  mountsOf(i.sandbox, {
    roots: i.roots,
    own: i.own,
    base: i.spec.cwd ?? process.cwd(),
    priv: i.priv,
    extraRead,
    expand: (p, base) => system.expandPath(p, process.env, homedir(), base),
  });

/** Linux: bubblewrap, with its own empty network; what it may reach comes in through the relay. */
async function inBubblewrap(i: Instance, bwrap: string): Promise<SpawnSpec> {
  const extraRead: string[] = [];
  let inner = [i.spec.command, ...i.spec.args];
  if (i.sockets) {
    mkdirSync(i.sockets.dir, { mode: 0o700 }); // the gateway's alone; read-only inside the sandbox
    await i.sockets.start();
    const relay = bundleNear('sandbox-relay.js', __dirname);
    const node = realpathSync(process.execPath);
    extraRead.push(i.sockets.dir, dirname(relay), dirname(node));
    const electron = process.versions.electron !== undefined;
    if (electron) i.env.ELECTRON_RUN_AS_NODE = '1';
    inner = [node, relay, ...(electron ? ['--electron'] : []), ...i.sockets.routes, '--', ...inner];
    Object.assign(i.env, i.sockets.env);
  }
  const args = [...bwrapArgs(mounts(i, extraRead), i.spec.cwd ?? i.priv), '--', ...inner];
  return { command: bwrap, args, env: i.env, cwd: i.spec.cwd };
}

/** macOS: sandbox-exec with a profile; the loopback ports allowed as they are, the hosts through the
 *  gateway's proxy on the loopback. */
async function inSeatbelt(i: Instance): Promise<SpawnSpec> {
  const proxyPort = await i.sockets?.startOnLoopback();
  if (proxyPort !== undefined) Object.assign(i.env, proxyEnv(proxyPort));
  const net = typeof i.sandbox.network === 'object' ? i.sandbox.network : {};
  const profile = seatbeltProfile(mounts(i), { loopbackPorts: net.loopbackPorts ?? [], proxyPort });
  return {
    command: SANDBOX_EXEC,
    args: ['-p', profile, i.spec.command, ...i.spec.args],
    env: i.env,
    cwd: i.spec.cwd ?? i.priv,
  };
}

/** Undefined when a sandbox can be made here (this system's mechanism, found on this PATH); else why not,
 *  in a sentence. */
export async function sandboxAvailability(path: string): Promise<string | undefined> {
  const mechanism = system.sandbox;
  if (mechanism.kind === 'none') return mechanism.why;
  if (mechanism.kind !== 'bubblewrap') return undefined;
  try {
    await bubblewrap(path);
    return undefined;
  } catch (e) {
    return (e as Error).message.replace(', so the server is not started', '');
  }
}
