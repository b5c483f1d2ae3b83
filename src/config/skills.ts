// The `skills` block of a config file (docs/gateway.md "Skills"): directories of skill folders in the Agent
// Skills layout (`<dir>/<skill-name>/SKILL.md` and its supporting files) that mcpx serves itself, under the
// Skills extension (SEP-2640), as the skills of its own source `mcpx` beside the upstreams'. A directory that
// does not exist is no issue here: it is logged when the skills are listed (the folder may come later).
import { homedir } from 'node:os';
import { z } from 'zod';
import { system } from '../platform';
import type { ConfigIssue } from './servers';
import type { SubstitutionContext } from './substitute';

/** The source mcpx's own skills are listed under: a profile, a permission rule, the activity log, the pins
 *  and the qualified URI (skill://mcpx/mcpx/…) name it as they name an upstream. */
export const OWN_SKILLS = 'mcpx';

const block = z
  .object({
    dirs: z.array(z.string().min(1, 'expected a directory')).min(1, 'expected at least one directory'),
    /** What a changed skill does (as a server's `pins` field); absent: the pins.mode setting's. */
    pins: z.enum(['hold', 'warn', 'off']).optional(),
  })
  .strict();

export interface LocalSkills {
  /** Absolute paths, in the order written. */
  readonly dirs: readonly string[];
  readonly pins?: 'hold' | 'warn' | 'off';
}

/** The block at `skills`, its directories made absolute (`~`, `${workspaceFolder}` already substituted);
 *  a server named `mcpx` beside it is an issue (the two would be one source). */
export function parseSkills(
  raw: unknown,
  servers: readonly string[],
  ctx: SubstitutionContext,
): { skills?: LocalSkills; issues: ConfigIssue[] } {
  if (raw === undefined) return { issues: [] };
  const parsed = block.safeParse(Array.isArray(raw) ? { dirs: raw } : raw);
  if (!parsed.success)
    return {
      issues: parsed.error.issues.map((i) => ({
        path: ['skills', ...i.path].join('.'),
        message:
          i.path.length === 0 && i.code === 'invalid_type'
            ? 'expected {"dirs": [directories], "pins"?} or a list of directories'
            : i.message.toLowerCase(),
      })),
    };
  const issues: ConfigIssue[] = servers.includes(OWN_SKILLS)
    ? [
        {
          path: `servers.${OWN_SKILLS}`,
          message: `"${OWN_SKILLS}" names mcpx's own skills (the skills block); choose another name for this server`,
        },
      ]
    : [];
  const dirs = parsed.data.dirs.map((d) => system.expandPath(d, ctx.env, homedir(), process.cwd()));
  return { skills: { dirs, ...(parsed.data.pins ? { pins: parsed.data.pins } : {}) }, issues };
}
