// What a sandboxed stdio upstream may see: the paths it reads and writes, as bubblewrap arguments. The
// new root holds nothing the plan does not name: the system's libraries, a few files of /etc, the
// workspace roots, the server's own directories, the paths listed, and the instance's private
// directory — never the home directory unless listed (docs/security.md "The upstream sandbox").
import { type Stats, existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import type { SandboxSpec } from '../../config/sandbox';
import { onPath } from './bwrap';

/** The system's programs and libraries: read-only, as they are (a merged /usr's links kept as links). */
const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/opt'];
/** What of /etc programs need to load, resolve names and check certificates; no secrets (shadow,
 *  ssh host keys, sudoers, the machine's credentials stay out). */
const ETC = [
  '/etc/alternatives',
  '/etc/ca-certificates',
  '/etc/ca-certificates.conf',
  '/etc/group',
  '/etc/host.conf',
  '/etc/hosts',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
  '/etc/mime.types',
  '/etc/nsswitch.conf',
  '/etc/os-release',
  '/etc/passwd',
  '/etc/pki',
  '/etc/resolv.conf',
  '/etc/ssl',
  '/etc/timezone',
];

const within = (p: string, dir: string): boolean => p === dir || p.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/** The directory a program's files live in: the outermost node_modules above it (where its hoisted
 *  dependencies are), else the nearest directory with a package.json or pyproject.toml, else its own. */
function packageDir(file: string): string {
  const parts = file.split(sep);
  const nm = parts.indexOf('node_modules');
  if (nm > 0) return parts.slice(0, nm + 1).join(sep);
  const start = dirname(file);
  for (let dir = start; dir !== dirname(dir); dir = dirname(dir)) {
    if (dir === homedir()) break; // a marker in the home itself would open all of it
    if (existsSync(join(dir, 'package.json')) || existsSync(join(dir, 'pyproject.toml'))) return dir;
  }
  return start;
}

/** The server's own directories: its command's (found on PATH; a `bin/` directory's prefix) and the
 *  package of each argument that names an existing file. Exported for the tests. */
export function serverDirs(command: string, args: readonly string[], cwd: string, path: string): string[] {
  const out: string[] = [];
  const real = (p: string): string | undefined => {
    try {
      return realpathSync(p);
    } catch {
      return undefined;
    }
  };
  const cmd = command.includes('/')
    ? real(resolve(cwd, command))
    : (() => {
        const found = onPath(command, path);
        return found && real(found);
      })();
  if (cmd) {
    const dir = dirname(cmd);
    // A bin/'s prefix holds its libraries (Node's lib/node_modules); not a prefix that is the home or a
    // directory right in it (~/.local holds keyrings, ~/.cargo credentials): then the bin/ alone.
    const prefix = dirname(dir);
    const wide = prefix === homedir() || dirname(prefix) === homedir();
    out.push(dir.endsWith(`${sep}bin`) && !wide ? prefix : dir);
  }
  for (const a of args) {
    if (a.startsWith('-') || !(a.includes('/') || a.includes('.'))) continue;
    const file = real(resolve(cwd, a));
    if (file && lstatSync(file).isFile()) out.push(packageDir(file));
  }
  return out.filter((d) => d !== sep && d !== homedir());
}

export interface Mounts {
  read: string[];
  write: string[];
}

/** The paths of one instance: `roots` (the workspace's), the server's own, the listed ones, the private
 *  directory `priv`; each kept once, a write winning over a read of the same path. */
export function mountsOf(
  spec: SandboxSpec,
  o: {
    roots: readonly string[];
    own: readonly string[];
    base: string;
    priv: string;
    extraRead?: readonly string[];
    /** A listed path made absolute (`~`, against `base`): the platform's expandPath. */
    expand: (p: string, base: string) => string;
  },
): Mounts {
  const write = [...new Set([o.priv, ...spec.write.map((p) => o.expand(p, o.base))])];
  const read = [
    ...new Set([...o.roots, ...o.own, ...(o.extraRead ?? []), ...spec.read.map((p) => o.expand(p, o.base))]),
  ].filter((p) => !write.includes(p));
  return { read, write };
}

/** bubblewrap's arguments for `m`: namespaces, the system, then each path, parents before children (so a
 *  writable directory inside a readable one stays writable), the new root read-only last. */
export function bwrapArgs(m: Mounts, chdir: string): string[] {
  const args = [
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    // Always its own network: what it may reach is relayed into it (net.ts), nothing else.
    '--unshare-net',
    '--cap-drop',
    'ALL',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
  ];
  for (const p of SYSTEM) {
    let st: Stats;
    try {
      st = lstatSync(p);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(p), p);
    else args.push('--ro-bind', p, p);
  }
  for (const p of ETC) args.push('--ro-bind-try', p, p);
  const binds = [
    ...m.read.map((p) => ({ p, flag: '--ro-bind-try' })),
    ...m.write.map((p) => ({ p, flag: '--bind-try' })),
  ].sort((a, b) => a.p.split(sep).length - b.p.split(sep).length || a.p.length - b.p.length);
  for (const b of binds) {
    // Under a system directory already bound (the same file): binding it again would change nothing.
    if (SYSTEM.some((s) => within(b.p, s)) && b.flag === '--ro-bind-try') continue;
    args.push(b.flag, b.p, b.p);
  }
  args.push('--remount-ro', '/', '--chdir', chdir);
  return args;
}
