// `mcpx settings`: every setting, its value and where it came from (docs/settings.md).
import { policyFrom } from '../config/policy';
import { SETTINGS, envSource } from '../config/settings';

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
  // The order in force: a partial spec.precedence is completed, newest first, and spec.first moved ahead.
  const precedence = policyFrom(settings).precedence;
  for (const [key, r] of settings.entries()) {
    const value =
      SECRET.has(key) && r.value !== ''
        ? '(set)'
        : key === 'spec.precedence' && JSON.stringify(r.value) !== JSON.stringify(precedence)
          ? `${JSON.stringify(precedence)} (as given: ${JSON.stringify(r.value)})`
          : JSON.stringify(r.value);
    const from = r.source === 'env' ? `: ${envSource(key, process.env)}` : '';
    process.stdout.write(`${key.padEnd(width)}  ${value}  (${r.source}${from})\n`);
  }
  process.stdout.write(`config: ${config.source}\n`);
}
