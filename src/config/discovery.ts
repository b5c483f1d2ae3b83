// What the stdio shim reads of the config file, with plain JSON checks (no zod: the shim is its own small
// bundle, dist/shim.js): the `settings` object, variables substituted, as the config file's loader reads
// it (./file.ts parseConfig) — the shim takes shim.daemonIdleExit from it for a daemon it starts.
import { defaultConfigPath } from './paths';
import { readRegularFileSync } from './regularFile';
import { type SubstitutionContext, substitute } from './substitute';

/** The config file's `settings` (the default file's), or {} where there is none, it is not JSON, or
 *  `settings` is not an object (the loader reports those; the shim has nothing to say of them). */
export function configSettings(ctx: SubstitutionContext): Record<string, unknown> {
  let file: unknown;
  try {
    file = JSON.parse(readRegularFileSync(defaultConfigPath(ctx.env), 4 * 1024 * 1024));
  } catch {
    return {};
  }
  if (!isPlainObject(file) || !isPlainObject(file.settings)) return {};
  return substitute(file.settings, ctx, 'settings', []) as Record<string, unknown>;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
