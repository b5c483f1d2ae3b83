// An envFile of a server definition: KEY=VALUE lines, `#` comments, an optional `export`, values
// optionally quoted. Read when a stdio upstream starts (its environment) and by the redaction (its values
// are secrets to mask).
import { readFileSync } from 'node:fs';

export function readEnvFile(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)\s*$/.exec(line);
    if (!m || line.trim().startsWith('#')) continue;
    out[m[1]!] = m[2]!.replace(/^(['"])(.*)\1$/, '$2');
  }
  return out;
}
