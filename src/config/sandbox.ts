// The `sandbox` block of a stdio server and the `upstream.sandbox` setting (docs/security.md "The
// upstream sandbox"): what the server's process may read, write and reach. `true` is the block with its
// defaults; `false` is no sandbox. A server's own block wins field by field over the setting.
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Settings } from './settings';

const port = z.number().int().min(1).max(65535);
/** A host the network may reach: a name or `*.suffix`, with an optional `:port` (else 443 and 80). */
const host = z
  .string()
  .regex(/^(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$/, 'expected a host name, *.domain, or either with :port');

const network = z.union([
  z.literal('none'),
  z.object({ hosts: z.array(host).optional(), loopbackPorts: z.array(port).optional() }).strict(),
]);

const block = z
  .object({
    enabled: z.boolean().optional(),
    /** Paths readable besides the defaults (workspace roots, the server's own directories, the system's). */
    read: z.array(z.string().min(1)).optional(),
    /** Paths writable besides the instance's private temporary directory. */
    write: z.array(z.string().min(1)).optional(),
    network: network.optional(),
  })
  .strict();

export const sandboxSchema = z.union([z.boolean(), block]);
export type SandboxBlock = z.infer<typeof sandboxSchema>;
type SandboxNetwork = z.infer<typeof network>;

/** A sandbox as it applies to one server: its block over the setting's. */
export interface SandboxSpec {
  enabled: boolean;
  read: string[];
  write: string[];
  network: SandboxNetwork;
}

const asObject = (b: SandboxBlock | undefined): z.infer<typeof block> =>
  b === undefined ? {} : typeof b === 'boolean' ? { enabled: b } : b;

/** The server's block over the default: a field the server sets wins; a block without `enabled` is on. */
export function sandboxOf(server: SandboxBlock | undefined, fallback: SandboxBlock): SandboxSpec {
  const s = asObject(server);
  const d = asObject(fallback);
  const enabled = s.enabled ?? (server !== undefined ? true : (d.enabled ?? typeof fallback === 'object'));
  return {
    enabled,
    read: s.read ?? d.read ?? [],
    write: s.write ?? d.write ?? [],
    network: s.network ?? d.network ?? 'none',
  };
}

/** The setting's parser: a block, `true`/`false`, or either spelled as JSON (an environment variable). */
function parseSandboxSetting(raw: unknown): SandboxBlock {
  let v = raw;
  if (typeof raw === 'string') {
    try {
      v = JSON.parse(raw);
    } catch {
      throw new Error(`expected true, false or a JSON sandbox block, got ${JSON.stringify(raw)}`);
    }
  }
  const r = sandboxSchema.safeParse(v);
  if (r.success) return r.data;
  const i = r.error.issues[0]!;
  throw new Error(`${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message.toLowerCase()}`);
}

/** upstream.sandbox as it is now, its block checked here (the settings check only its form): a bad one is
 *  an error naming the setting, and the server does not start. */
export function sandboxSetting(settings: Settings): SandboxBlock {
  try {
    return parseSandboxSetting(settings.get<unknown>('upstream.sandbox'));
  } catch (e) {
    throw new Error(`upstream.sandbox: ${(e as Error).message}`);
  }
}

/** A stdio server's sandbox as it applies now (its block over upstream.sandbox); none for HTTP. */
export function serverSandbox(
  def: { readonly type: string; readonly sandbox?: SandboxBlock },
  settings: Settings,
): SandboxSpec | false | undefined {
  if (def.type !== 'stdio') return undefined;
  const s = sandboxOf(def.sandbox, sandboxSetting(settings));
  return s.enabled ? s : false;
}

/** The workspace's folders that are files here (a sandbox reads them by default). */
export function rootPaths(roots: ReadonlyArray<{ uri: string }>): string[] {
  const out: string[] = [];
  for (const r of roots) {
    try {
      if (r.uri.startsWith('file:')) out.push(fileURLToPath(r.uri));
    } catch {
      // not a local file URI: nothing to bind
    }
  }
  return out;
}

/** One line saying what a sandbox holds (the Upstreams row's tooltip, the server's log). */
export function describeSandbox(s: SandboxSpec): string {
  const net =
    s.network === 'none' || (!s.network.hosts?.length && !s.network.loopbackPorts?.length)
      ? 'no network'
      : [
          s.network.loopbackPorts?.length ? `loopback ports ${s.network.loopbackPorts.join(', ')}` : '',
          s.network.hosts?.length ? `hosts ${s.network.hosts.join(', ')} (through a proxy)` : '',
        ]
          .filter(Boolean)
          .join('; ');
  const listed = (l: string[]) => (l.length ? `, and ${l.join(', ')}` : '');
  return [
    `reads the workspace roots, its own directories and the system's libraries${listed(s.read)}`,
    `writes its private temporary directory${listed(s.write)}`,
    net,
  ].join('; ');
}
