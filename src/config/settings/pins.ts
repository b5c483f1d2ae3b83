// Settings of tool pins: what mcpx does when an upstream's tool or prompt definition changes after it was
// first seen (docs/gateway.md "Pins").
import { D, type SettingDef } from './def';

export const PINS: readonly SettingDef[] = [
  D(
    'pins.mode',
    'string',
    'hold',
    "What a changed tool or prompt definition (its description, schemas, annotations) does, against the one pinned when mcpx first saw it: `hold` (listed in its pinned form while its input schema is unchanged, else withheld; calls refused until `mcpx pins accept`), `warn` (logged, then let through), `off` (nothing is pinned). A server's own `pins` field overrides it.",
    { choices: ['hold', 'warn', 'off'] },
  ),
  D(
    'pins.newTools',
    'string',
    'allow',
    'A tool or prompt that is new on a server whose definitions are already pinned: `allow` (pinned as it is and offered) or `hold` (held like a changed one until accepted).',
    { choices: ['allow', 'hold'] },
  ),
];
