// Settings of the activity log: what every agent's calls left on disk (docs/gateway.md "Activity").
import { D, type SettingDef } from './def';

export const ACTIVITY: readonly SettingDef[] = [
  D(
    'activity.enabled',
    'boolean',
    true,
    'Record each tool call, resource read and prompt in the activity log (`<state>/activity/`, `mcpx activity`). Off: nothing new is recorded, in memory or on disk.',
  ),
  D(
    'activity.arguments',
    'string',
    'digest',
    "What the log keeps of a call's arguments: `digest` (only their sha256) or `full` (the arguments, every configured secret replaced by `***` and each string past 1024 characters cut, with a marker). Results are never written.",
    { choices: ['digest', 'full'] },
  ),
  D(
    'activity.maxBytes',
    'integer',
    32 * 1024 * 1024,
    "The bound on one gateway's activity files together (the file and its rotations `.1` … `.3`): each rotates at a quarter of it.",
    { min: 64 * 1024 },
  ),
  D(
    'activity.retention',
    'duration',
    7 * 24 * 3_600_000,
    'Activity files last written longer ago than this are removed, and older records are not shown.',
  ),
];
