// What `mcpx serve` takes and how the usage shows it: read by the dispatcher's command (./serve.ts) and by
// the shim's own bundle (./serveShim.ts), which parses the same flags the same way.
import { SETTING_FLAGS, UsageError } from './args';
import type { Command } from './command';

export const SERVE = {
  usage: [
    [
      'serve --transport stdio [--connect auto|URL|ssh://host[:port]] [--profile NAME]',
      "a stdio shim onto a running gateway (auto: this folder's",
      'editor window, the running daemon, else one started)',
    ],
    [
      'serve --transport stdio --standalone [--config FILE] [--profile NAME] [--passthrough a,b] [--mcp-spec REV] [--set key=value]',
      'a whole gateway in this process',
    ],
  ],
  flags: ['transport', 'connect', 'standalone', 'config', 'profile', ...SETTING_FLAGS],
} as const satisfies Omit<Command, 'run'>;

/** A profile's name as `--profile` takes it (config/profiles.ts holds the same rule, with zod). */
export function profileFlag(profile: string | undefined): string | undefined {
  if (profile !== undefined && !/^[a-z0-9-]{1,32}$/.test(profile))
    throw new UsageError(`--profile ${JSON.stringify(profile)}: a profile name is 1 to 32 of a-z 0-9 -`);
  return profile;
}

/** A gateway's endpoint URL (/mcp or /mcp/<secret>) as the endpoint of `profile` (docs/gateway.md
 *  "Profiles"): /mcp/<secret>/<profile>. */
export function profileEndpoint(endpoint: string, profile: string | undefined): string {
  if (profile === undefined) return endpoint;
  const u = new URL(endpoint);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/${profile}`;
  return u.toString();
}
