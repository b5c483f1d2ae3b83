// Settings of the skills mcpx serves itself from the config's `skills` directories (docs/gateway.md
// "Skills").
import { D, type SettingDef } from './def';

export const SKILLS: readonly SettingDef[] = [
  D(
    'skills.maxFileBytes',
    'integer',
    16 * 1024 * 1024,
    "Largest file of a local skill (the config's `skills` directories) mcpx reads: a skill with a larger file is left out of the listing, logged, and a file grown past it is not read.",
    { min: 1024 },
  ),
];
