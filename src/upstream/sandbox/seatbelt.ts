// The upstream sandbox on macOS (docs/security.md "The upstream sandbox", docs/platforms.md): the same
// plan as bubblewrap's (plan.ts `mountsOf`) written as a Seatbelt profile for the system's sandbox-exec,
// as @anthropic-ai/sandbox-runtime does. Everything is denied but what the profile names: the system's
// programs and libraries, the paths of the plan, and the network the block allows — its loopback ports
// and the gateway's proxy to its hosts, both on the host's loopback (there is no network namespace to
// relay into).
import type { Mounts } from './plan';

export const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

/** Read-only for every sandboxed program: the system's own. */
const SYSTEM = [
  '/usr',
  '/bin',
  '/sbin',
  '/System',
  '/Library',
  '/opt',
  '/private/etc',
  '/private/var/db/timezone',
  '/dev',
];
/** Writable devices. */
const DEVICES = ['/dev/null', '/dev/zero', '/dev/tty', '/dev/dtracehelper', '/dev/stdout', '/dev/stderr'];
/** The system services a program needs to run and resolve its own user (not the network's). */
const MACH = [
  'com.apple.system.opendirectoryd.libinfo',
  'com.apple.system.notification_center',
  'com.apple.system.logger',
  'com.apple.logd',
  'com.apple.trustd.agent',
  'com.apple.SecurityServer',
  'com.apple.CoreServices.coreservicesd',
  'com.apple.FSEvents',
];

/** A string in the profile's Scheme. */
const str = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

export interface SeatbeltNet {
  /** The host's loopback ports the server may connect to. */
  loopbackPorts: readonly number[];
  /** The gateway's proxy to the listed hosts, when there are hosts. */
  proxyPort?: number;
}

/** The profile for `m` and `net`. */
export function seatbeltProfile(m: Mounts, net: SeatbeltNet): string {
  const subpaths = (ps: readonly string[]) => ps.map((p) => `(subpath ${str(p)})`).join(' ');
  const ports = [...net.loopbackPorts, ...(net.proxyPort !== undefined ? [net.proxyPort] : [])];
  return [
    '(version 1)',
    '(deny default)',
    '(allow process-exec process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow ipc-posix-shm)',
    // stat of any path (a module resolver walks up from its file); not its contents.
    '(allow file-read-metadata)',
    `(allow mach-lookup ${MACH.map((n) => `(global-name ${str(n)})`).join(' ')})`,
    `(allow file-read* ${subpaths([...SYSTEM, ...m.read, ...m.write])})`,
    `(allow file-write* ${subpaths(m.write)} ${DEVICES.map((d) => `(literal ${str(d)})`).join(' ')})`,
    ...(ports.length
      ? [
          '(allow system-socket)',
          `(allow network-outbound ${ports.map((p) => `(remote ip ${str(`localhost:${p}`)})`).join(' ')})`,
        ]
      : []),
    '',
  ].join('\n');
}
