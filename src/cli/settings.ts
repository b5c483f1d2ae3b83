// `mcpx settings`: every setting, its value and where it came from (docs/settings.md).
import { SETTINGS, envName } from '../config/settings';

const SECRET = new Set(SETTINGS.filter((s) => s.secret).map((s) => s.key));
import { type Args, SETTING_FLAGS } from './args';
import type { Command } from './command';
import { configOf, settingsOf } from './config';

export const settings: Command = {
  usage: [['settings [--config FILE] [...flags]']],
  flags: ['config', ...SETTING_FLAGS],
  run,
};

async function run(a: Args): Promise<void> {
  const config = configOf(a);
  const settings = settingsOf(config, a);
  const width = Math.max(...SETTINGS.map((s) => s.key.length));
  for (const [key, r] of settings.entries()) {
    process.stdout.write(
      `${key.padEnd(width)}  ${SECRET.has(key) && r.value !== '' ? '(set)' : JSON.stringify(r.value)}  (${r.source}${r.source === 'env' ? `: ${envName(key)}` : ''})\n`,
    );
  }
  process.stdout.write(`config: ${config.source}\n`);
}
